"""Small Java programs of the test bed (sources in tests/java), compiled with javac at test time against the
jars of a fetched Apache Kafka (scripts/fetch-kafka.sh) and run as one-shot processes.

`compile_java(name, directory)` compiles `tests/java/<name>.java` into `directory` (only the source is in
the repository); `run_java(program, *arguments)` runs its main class on that Kafka's class path and returns
its standard output. Logs go to standard error at WARN (a log4j2 file written next to the classes), so
standard output is the program's answer only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pyconnect.testing.kafka_dist import distribution, java_binary

SOURCES = Path(__file__).resolve().parents[1] / "java"
JVM_FLAGS = ("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData")
LOG_CONFIG = ("status = warn\nappender.err.type = Console\nappender.err.name = STDERR\n"
              "appender.err.target = SYSTEM_ERR\nappender.err.layout.type = PatternLayout\n"
              "appender.err.layout.pattern = [%d] %p %m (%c)%n\n"
              "rootLogger.level = WARN\nrootLogger.appenderRef.err.ref = STDERR\n")


@dataclass(frozen=True)
class JavaProgram:
    """A compiled main class and the class path it runs on."""

    main: str
    classpath: str
    log_config: Path
    version: str


def javac_binary() -> str:
    """The `javac` of JAVA_HOME, else the one next to `java` or on PATH."""
    home = os.environ.get("JAVA_HOME")
    beside = Path(java_binary()).resolve().parent / "javac"
    for candidate in ((Path(home) / "bin" / "javac") if home else None, beside):
        if candidate is not None and candidate.is_file():
            return str(candidate)
    found = shutil.which("javac")
    if not found:
        raise RuntimeError("compiling the Java test programs needs a JDK's `javac` (JAVA_HOME or PATH)")
    return found


def compile_java(name: str, directory: Path, version: str | None = None) -> JavaProgram:
    """Compile tests/java/`name`.java into `directory` against Kafka `version`'s jars (default: the 4.x lane)."""
    dist = distribution(version or "4")
    directory.mkdir(parents=True, exist_ok=True)
    source = SOURCES / f"{name}.java"
    done = subprocess.run([javac_binary(), "-proc:none", "-cp", dist.classpath, "-d", str(directory), str(source)],
                          capture_output=True, text=True, timeout=180, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"javac {source.name} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    log_config = directory / "log4j2.properties"
    log_config.write_text(LOG_CONFIG)
    return JavaProgram(name, f"{directory}{os.pathsep}{dist.classpath}", log_config, dist.version)


def run_java(program: JavaProgram, *arguments: str, timeout: float = 120.0) -> str:
    """Run `program` to its end; its standard output (a non-zero exit fails with its standard error's end)."""
    command = [java_binary(), *JVM_FLAGS, f"-Dlog4j2.configurationFile={program.log_config}", "-cp",
               program.classpath, program.main, *arguments]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{program.main} (Kafka {program.version}) exited with {done.returncode}: "
                           f"{done.stderr.strip()[-2000:]}")
    return done.stdout
