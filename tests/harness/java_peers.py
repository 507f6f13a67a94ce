"""Java MirrorMaker 2 (dedicated mode) and a Java Kafka Connect distributed worker as local JVMs: the real
programs replikafka claims to replace, run from the jars of the Apache Kafka test bed (scripts/fetch-kafka.sh).

`start_java_connect(broker, directory)` runs `ConnectDistributed` with its REST listener on a free loopback
port; `start_java_mirror_maker(mm2_properties, directory)` runs `connect.mirror.MirrorMaker` on a file. Both
return a `JavaPeer`: `stop()` (SIGTERM, then kill -9), `kill()` (kill -9), `log_tail()`, and for Connect
`request()` against its REST API.

Invariants:
- Ready means ready for a test's calls: a Connect worker when `GET /health` answers 200 (KIP-1017: the herder
  has joined its group and serves requests), MirrorMaker when its log holds "Kafka MirrorMaker started". A
  JVM that exits first fails the start with its log's last error; a start never waits past its deadline.
- Every JVM dies with the test process (PR_SET_PDEATHSIG, pyconnect.testing.parent_death) and runs small
  (a 256 MB heap, the serial collector, one JIT tier): at most one of them beside a broker on 2 cores.
- Logs go to `<directory>/<name>.log` at WARN, except the lines a start waits for (INFO).
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from pyconnect.testing.brokers import Broker, free_port, refuse_in_broker_free_run
from pyconnect.testing.kafka_cds import cds_archive
from pyconnect.testing.kafka_dist import KafkaDistribution, distribution, java_binary
from pyconnect.testing.parent_death import die_with_parent

READY_TIMEOUT = 120.0  # Connect's first start on a loaded 2-core machine: a class-path of ~100 jars
JVM_FLAGS = ("-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
             "-XX:+ExitOnOutOfMemoryError", "-Djava.awt.headless=true")
CONNECT_MAIN = "org.apache.kafka.connect.cli.ConnectDistributed"
MIRROR_MAKER_MAIN = "org.apache.kafka.connect.mirror.MirrorMaker"
MIRROR_MAKER_STARTED = "Kafka MirrorMaker started"
# The loggers whose INFO lines a start (or a reader of the log) needs; everything else logs at WARN.
INFO_LOGGERS = ("org.apache.kafka.connect.mirror.MirrorMaker", "org.apache.kafka.connect.runtime.Connect")


@dataclass
class JavaPeer:
    """One Java Connect or MirrorMaker process with its directory and log."""

    name: str
    directory: Path
    command: list[str]
    version: str
    url: str = ""  # Connect's REST address ("" for MirrorMaker, whose REST is off by default)
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    log_start: int = 0  # the log's size at the last launch: a restart's readiness is read after it

    @property
    def log_path(self) -> Path:
        return self.directory / f"{self.name}.log"

    def launch(self) -> JavaPeer:
        if self.process is not None and self.process.poll() is None:
            raise RuntimeError(f"{self.name} is still running")
        self.log_start = self.log_path.stat().st_size if self.log_path.exists() else 0
        with open(self.log_path, "ab") as log:  # noqa: PTH123 - the child keeps its own descriptor
            self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True,
                                            preexec_fn=die_with_parent())
        return self

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> JavaPeer:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} (Kafka {self.version}) exited with code {self.process.returncode} "
                                   f"before it was ready: {self.last_error()}")
            if self._ready():
                return self
            time.sleep(0.25)  # the poll interval of a wait under a deadline
        self.kill()
        raise TimeoutError(f"{self.name} (Kafka {self.version}) was not ready within {timeout:.0f} s "
                           f"(log: {self.log_path})")

    def _ready(self) -> bool:
        if not self.url:
            with open(self.log_path, "rb") as log:  # noqa: PTH123 - read from an offset
                log.seek(self.log_start)
                return MIRROR_MAKER_STARTED.encode() in log.read()
        try:
            return httpx.get(self.url + "/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def request(self, method: str, path: str, body: Any = None, **options: Any) -> httpx.Response:
        return httpx.request(method, self.url + path, json=body, timeout=60, **options)

    def kill(self) -> None:
        """kill -9: no clean leave, no offset flush (a no-op once the process has exited)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)

    def stop(self, timeout: float = 30.0) -> int | None:
        """SIGTERM (the JVM's shutdown hook stops connectors and leaves the group), kill -9 after `timeout`."""
        process = self.process
        if process is None:
            return None
        if process.poll() is None:
            process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout)
            self.kill()
        return process.returncode

    def log_tail(self, lines: int = 30) -> str:
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def last_error(self) -> str:
        lines = self.log_path.read_text(errors="replace").splitlines() if self.log_path.exists() else []
        errors = [line for line in lines if " ERROR " in line or "Exception" in line] or lines[-1:] or ["(empty)"]
        return f"{errors[-1].strip()[:400]} (log: {self.log_path})"


def logging_config(dist: KafkaDistribution, path: Path) -> str:
    """Write a WARN-level console log config (INFO for INFO_LOGGERS) to `path`; the JVM flag that reads it.
    3.9 logs through log4j 1 (reload4j), 4.x through log4j2."""
    if dist.major < 4:
        text = ("log4j.rootLogger=WARN, stdout\nlog4j.appender.stdout=org.apache.log4j.ConsoleAppender\n"
                "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout\n"
                "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n\n"
                + "".join(f"log4j.logger.{name}=INFO\n" for name in INFO_LOGGERS))
        path.write_text(text)
        return f"-Dlog4j.configuration=file:{path}"
    text = ("status = warn\nappender.stdout.type = Console\nappender.stdout.name = STDOUT\n"
            "appender.stdout.layout.type = PatternLayout\nappender.stdout.layout.pattern = [%d] %p %m (%c)%n\n"
            "rootLogger.level = WARN\nrootLogger.appenderRef.stdout.ref = STDOUT\n"
            + "".join(f"logger.info{i}.name = {name}\nlogger.info{i}.level = INFO\n"
                      for i, name in enumerate(INFO_LOGGERS)))
    path.write_text(text)
    return f"-Dlog4j2.configurationFile={path}"


def _java_command(dist: KafkaDistribution, directory: Path, main: str, *arguments: str) -> list[str]:
    java = java_binary()
    archive = cds_archive(dist, java)
    # Map the broker's class-data archive when one exists (the same class path): it covers the client and
    # common classes. Recording one here would make stop() slow for a gain only the broker needs.
    shared = archive.flags if archive.recording is None else []
    log_flag = logging_config(dist, directory / "log4j.properties")
    return [java, *shared, *JVM_FLAGS, log_flag, "-cp", dist.classpath, main, *arguments]


def connect_properties(broker: Broker, group: str, port: int, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A distributed worker's properties on a single-node cluster: RF 1 internal topics, JSON converters,
    REST on 127.0.0.1:`port`, plugins found through their service manifests (no class-path scan)."""
    props = {
        "bootstrap.servers": broker.bootstrap, "group.id": group,
        "config.storage.topic": f"{group}-configs", "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status", "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1", "status.storage.replication.factor": "1",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "offset.flush.interval.ms": "1000", "listeners": f"http://127.0.0.1:{port}",
        "rest.advertised.host.name": "127.0.0.1", "plugin.discovery": "service_load",
    }
    return props | dict(extra or {})


def start_java_connect(broker: Broker, directory: Path, group: str = "java-connect", *,
                       extra: Mapping[str, str] | None = None, version: str | None = None) -> JavaPeer:
    """A Java Connect distributed worker of `group` on `broker`, ready (its /health answers 200)."""
    refuse_in_broker_free_run()
    dist, port = distribution(version), free_port()
    directory.mkdir(parents=True, exist_ok=True)
    props = connect_properties(broker, group, port, extra)
    worker_file = directory / f"{group}.properties"
    worker_file.write_text("".join(f"{key}={value}\n" for key, value in props.items()))
    peer = JavaPeer(group, directory, _java_command(dist, directory, CONNECT_MAIN, str(worker_file)),
                    dist.version, url=f"http://127.0.0.1:{port}")
    return peer.launch().wait_ready()


def start_java_mirror_maker(mm2_properties: Path, directory: Path, *, clusters: list[str] | None = None,
                            version: str | None = None, name: str = "java-mm2") -> JavaPeer:
    """Java's dedicated MirrorMaker on `mm2_properties` (optionally only `--clusters`), ready (its log says
    "Kafka MirrorMaker started")."""
    refuse_in_broker_free_run()
    dist = distribution(version)
    directory.mkdir(parents=True, exist_ok=True)
    arguments = [str(mm2_properties), *(["--clusters", *clusters] if clusters else [])]
    peer = JavaPeer(name, directory, _java_command(dist, directory, MIRROR_MAKER_MAIN, *arguments), dist.version)
    return peer.launch().wait_ready()
