"""A real schema registry for the test bed: Apicurio Registry, in memory, on a free loopback port.

`start_apicurio()` runs the release scripts/fetch-apicurio.sh unpacked into the cache (Maven Central, once) and
returns when its Confluent-compatible API (`/apis/ccompat/v7`) answers. confluent-kafka's
`SchemaRegistryClient` and serializers speak that API.

Invariants:
- Every registry listens on 127.0.0.1 only, on its own free port, and so does Quarkus's management interface
  (port 9000 on every address by default), so two registries run side by side.
- The heap is bounded (-Xmx) and the JVM dies with the process that started it from its main thread
  (pyconnect.testing.parent_death); `stop()` kills it and removes its directory.
- The release needs Java 21 or newer: REPLIKAFKA_APICURIO_JAVA names a `java`, else the first JDK under
  /usr/lib/jvm (then JAVA_HOME, PATH) whose major version is 21 or more is used; none is a clear error.
- A missing release is a clear error naming the fetch script; nothing is downloaded here.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from pyconnect.testing.brokers import free_port, refuse_in_broker_free_run
from pyconnect.testing.parent_death import die_with_parent

VERSION = os.environ.get("REPLIKAFKA_APICURIO_VERSION", "3.3.3")
READY_TIMEOUT = 240.0  # seconds; a loaded 2-core machine took 62 s for one start
HEAP = "-Xmx384m"
CCOMPAT = "/apis/ccompat/v7"
MIN_JAVA = 21
JVM_FLAGS = [HEAP, "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=2",
             "-Djava.net.preferIPv4Stack=true"]
QUARKUS_FLAGS = ["-Dquarkus.http.host=127.0.0.1", "-Dquarkus.management.host=127.0.0.1",
                 "-Dquarkus.otel.enabled=false", "-Dquarkus.otel.sdk.disabled=true",
                 "-Dquarkus.log.level=WARN", "-Dquarkus.http.access-log.enabled=false"]


def cache_dir() -> Path:
    root = os.environ.get("REPLIKAFKA_KAFKA_CACHE") or str(Path.home() / ".cache" / "replikafka")
    return Path(root) / f"apicurio-{VERSION}"


def release_jar() -> Path:
    """The fetched release's quarkus-run.jar; a clear error when scripts/fetch-apicurio.sh has not run."""
    jar = cache_dir() / "quarkus-app" / "quarkus-run.jar"
    if not jar.is_file():
        raise RuntimeError(f"Apicurio Registry {VERSION} is not fetched ({jar} is missing): run "
                           "`bash scripts/fetch-apicurio.sh` (Maven and network once, offline afterwards)")
    return jar


def _major(java: str) -> int:
    done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    found = re.search(r'version "(\d+)', done.stderr + done.stdout)
    return int(found.group(1)) if found else 0


def java_for_apicurio() -> str:
    """A `java` of major version MIN_JAVA or newer (see the module docstring)."""
    named = os.environ.get("REPLIKAFKA_APICURIO_JAVA")
    if named:
        return named
    candidates = sorted(Path("/usr/lib/jvm").glob("*/bin/java"), reverse=True) if Path("/usr/lib/jvm").is_dir() else []
    home = os.environ.get("JAVA_HOME")
    others = [Path(home) / "bin" / "java"] if home else []
    on_path = shutil.which("java")
    for java in [*candidates, *others, *([Path(on_path)] if on_path else [])]:
        if java.is_file() and _major(str(java)) >= MIN_JAVA:
            return str(java)
    raise RuntimeError(f"Apicurio Registry {VERSION} needs Java {MIN_JAVA} or newer and none was found "
                       "(set REPLIKAFKA_APICURIO_JAVA to its `java`)")


@dataclass
class Apicurio:
    """A running registry; `url` is its Confluent-compatible API's base URL."""

    port: int
    directory: Path
    command: list[str]
    process: subprocess.Popen[bytes] | None = None
    started_in: float = 0.0  # seconds from launch to the first answer
    log_path: Path = field(default_factory=Path)
    _began: float = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{CCOMPAT}"

    def rss_bytes(self) -> int:
        """The JVM's resident set size now (Linux /proc)."""
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS line in /proc status")

    def launch(self) -> None:
        """Start the JVM (again, after kill()) and wait until the API answers."""
        self.spawn()
        self.wait_ready()

    def spawn(self) -> None:
        """Start the JVM without waiting (wait_ready() waits): registries started together start in parallel."""
        if self.process is not None and self.process.poll() is None:
            raise RuntimeError("the registry is still running: kill() it before a restart")
        self._began = time.monotonic()
        with open(self.log_path, "ab") as log:  # noqa: PTH123 - the child keeps its own descriptor
            self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT, cwd=self.directory,
                                            stdin=subprocess.DEVNULL, start_new_session=True,
                                            preexec_fn=die_with_parent())

    def wait_ready(self) -> None:
        try:
            self._wait_ready()
        except (TimeoutError, RuntimeError):
            self.kill()
            raise
        self.started_in = time.monotonic() - self._began

    restart = launch

    def answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/subjects", timeout=2) as reply:
                return int(reply.status) == 200
        except (OSError, urllib.error.URLError):
            return False

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        assert self.process is not None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.log_path.read_text(errors="replace").splitlines()[-3:]
                raise RuntimeError(f"Apicurio Registry exited with code {self.process.returncode} before it was "
                                   f"ready: {' | '.join(tail)[:600]} (log: {self.log_path})")
            if self.answers():
                return
            time.sleep(0.2)  # poll interval while the JVM starts
        raise TimeoutError(f"Apicurio Registry did not answer within {READY_TIMEOUT:.0f} s (log: {self.log_path})")

    def kill(self) -> None:
        """SIGKILL: the registry is gone at once (its in-memory contents too)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(30)

    def stop(self) -> None:
        self.kill()
        shutil.rmtree(self.directory, ignore_errors=True)


def _new(name: str) -> Apicurio:
    jar = release_jar()
    java = java_for_apicurio()
    work = Path(tempfile.mkdtemp(prefix=f"apicurio-{name}-"))
    port = free_port()
    command = [java, *JVM_FLAGS, *QUARKUS_FLAGS, f"-Dquarkus.http.port={port}",
               f"-Dquarkus.management.port={free_port()}", "-jar", str(jar)]
    return Apicurio(port, work, command, log_path=work / "apicurio.log")


def start_apicurio(*names: str) -> list[Apicurio]:
    """New empty in-memory registries (one per name, default one) on free loopback ports, started in
    parallel, each ready to answer."""
    refuse_in_broker_free_run()
    registries = [_new(name) for name in names or ("registry",)]
    try:
        for registry in registries:
            registry.spawn()
        for registry in registries:
            registry.wait_ready()
    except BaseException:
        for registry in registries:
            registry.stop()
        raise
    return registries
