"""Apache Kafka single-node KRaft clusters as local Java processes, for tests where no Docker engine runs.

Each cluster is one JVM (broker and controller), on free loopback ports, with its config, data and log in
one temp directory. `start_kafka_jvm(secure=True)` adds an SSL listener (PKCS12 keystore from a throw-away
CA) and a SASL_SSL listener with one SCRAM-SHA-512 user, both for clients only (pyconnect.testing.kafka_config).

Invariants:
- The log directory is formatted exactly once, when the cluster is made: a restart (`restart()` after
  `kill()` or `shutdown()`) runs the same JVM on the same directory and ports without formatting, so every
  record the node acknowledged before a kill -9 is still there (the OS keeps what the process wrote).
- A node counts as started only when a Metadata request on its PLAINTEXT port answers with a broker
  (pyconnect.testing.kafka_wire); a node that exits first fails the start with its log's path and last error.
- A node dies with the process that launched it from its main thread (pyconnect.testing.parent_death), so a
  killed test run leaves no JVM behind. `stop()` ends the cluster for good (kill -9, then its directory is
  removed); `shutdown()` and `kill()` keep the directory for a restart.
"""

from __future__ import annotations

import base64
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pyconnect.testing.brokers import Broker, free_port, refuse_in_broker_free_run
from pyconnect.testing.kafka_cds import CdsArchive, cds_archive
from pyconnect.testing.kafka_config import (
    JVM_FLAGS,
    SCRAM_MECHANISM,
    Keystore,
    Listeners,
    logging_config,
    server_properties,
)
from pyconnect.testing.kafka_dist import KafkaDistribution, distribution, java_binary
from pyconnect.testing.kafka_keystore import server_keystore
from pyconnect.testing.kafka_wire import answers_metadata
from pyconnect.testing.parent_death import die_with_parent
from pyconnect.testing.tls import CertificateAuthority

READY_TIMEOUT = 90.0  # a cold JVM on a loaded 2-core machine; measured starts are 3-6 s (docs/brokers.md)
SCRAM_USER = "replikafka"


def _cluster_id() -> str:
    """A Kafka Uuid string (22 base64url characters), made here to spare a JVM start of StorageTool."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):  # Kafka's own random ids avoid a leading '-' (command-line parsing)
            return text


@dataclass
class KafkaBroker(Broker):
    """A local Apache Kafka node (kind "kafka"); `bootstrap` is its PLAINTEXT listener."""

    version: str = ""
    directory: Path = field(default_factory=Path)
    command: list[str] = field(default_factory=list)
    ssl_bootstrap: str | None = None
    sasl_ssl_bootstrap: str | None = None
    ca_path: Path | None = None
    scram_user: str = SCRAM_USER
    scram_password: str = ""
    started_in: float = 0.0  # seconds from the last launch to a Metadata answer
    plaintext_port: int = 0
    cds: CdsArchive | None = None  # its flags go after command[0], the java binary

    def client_settings(self, protocol: str = "PLAINTEXT") -> dict[str, str]:
        """librdkafka settings of a client of listener `protocol` (PLAINTEXT, SSL or SASL_SSL), trusting the
        test CA and (SASL_SSL) logging in as the SCRAM user."""
        if protocol == "PLAINTEXT":
            return {"bootstrap.servers": self.bootstrap}
        address = self.ssl_bootstrap if protocol == "SSL" else self.sasl_ssl_bootstrap
        if address is None or protocol not in ("SSL", "SASL_SSL"):
            raise ValueError(f"this node has no {protocol} listener (start it with secure=True)")
        settings = {"bootstrap.servers": address, "security.protocol": protocol, "ssl.ca.location": str(self.ca_path)}
        if protocol == "SASL_SSL":
            settings |= {"sasl.mechanism": SCRAM_MECHANISM, "sasl.username": self.scram_user,
                         "sasl.password": self.scram_password}
        return settings

    def rss_bytes(self) -> int:
        """The JVM's resident set size now (Linux /proc)."""
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS line in /proc status")

    def launch(self) -> None:
        """Run the node on its (already formatted) directory and wait until it answers."""
        if self.process is not None and self.process.poll() is None:
            raise RuntimeError("the node is still running: kill() or shutdown() it before a restart")
        with open(self.directory / "kafka.log", "ab") as log:  # noqa: PTH123 - the child keeps its own descriptor
            began = time.monotonic()
            command = [self.command[0], *(self.cds.flags if self.cds else []), *self.command[1:]]
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True,
                                            preexec_fn=die_with_parent())
        try:
            self._wait_ready()
        except (TimeoutError, RuntimeError):
            self.kill()
            raise
        self.started_in = time.monotonic() - began

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        assert self.process is not None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Apache Kafka {self.version} exited with code {self.process.returncode} before "
                                   f"it was ready: {_last_error(self.directory / 'kafka.log')}")
            if answers_metadata(self.plaintext_port):
                return
            time.sleep(0.1)
        raise TimeoutError(f"Apache Kafka {self.version} did not answer a Metadata request within "
                           f"{READY_TIMEOUT:.0f} s (log: {self.directory / 'kafka.log'})")

    restart = launch

    def shutdown(self, timeout: float = 60.0) -> None:
        """A clean stop (SIGTERM: Kafka flushes and closes its logs), keeping the directory for a restart."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.cds is not None and self.cds.recording is not None:
            self.cds = self.cds.settle()

    def stop(self) -> None:
        if self.cds is not None and self.cds.recording is not None:
            self.shutdown()  # the JVM writes the class-data archive only when it exits cleanly
        self.kill()
        shutil.rmtree(self.directory, ignore_errors=True)


def _last_error(log: Path) -> str:
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    errors = [line for line in lines if " ERROR " in line or "Exception" in line] or lines[-1:] or ["(empty log)"]
    return f"{errors[-1].strip()[:400]} (log: {log})"


def _format(dist: KafkaDistribution, java: str, props: Path, log_flag: str, cluster_id: str,
            scram_password: str | None, cds: CdsArchive) -> None:
    """Format the node's log directory once (StorageTool), adding the SCRAM user if any."""
    shared = [] if cds.recording is not None else cds.flags  # a tool run records no archive for the server
    command = [java, *shared, *JVM_FLAGS, log_flag, "-cp", dist.classpath, "kafka.tools.StorageTool", "format",
               "-t", cluster_id, "-c", str(props)]
    if scram_password is not None:
        command += ["--add-scram", f"{SCRAM_MECHANISM}=[name={SCRAM_USER},password={scram_password}]"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        detail = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"formatting Apache Kafka {dist.version}'s log directory failed: {detail[0][:400]}")


def start_kafka_jvm(name: str = "test", *, secure: bool = False, version: str | None = None,
                    directory: Path | None = None, extra: Mapping[str, str] | None = None) -> KafkaBroker:
    """A new single-node cluster of `version` (a lane or version of scripts/kafka-versions; default:
    REPLIKAFKA_TEST_KAFKA_VERSION, else 4.x). `secure` adds the SSL and SASL_SSL listeners; `extra` broker
    properties (e.g. an authorizer) are added to server.properties, overriding the harness's."""
    refuse_in_broker_free_run()
    dist, java = distribution(version), java_binary()
    work = directory or Path(tempfile.mkdtemp(prefix=f"kafka-{name}-"))
    listeners = Listeners(free_port(), free_port(), *((free_port(), free_port()) if secure else (None, None)))
    keystore, ca, password = None, None, None
    if secure:
        ca = CertificateAuthority(work / "pki", name=f"{name} Kafka test CA")
        password = uuid.uuid4().hex
        keystore = Keystore(server_keystore(ca, work / "pki" / "server.p12", password), password)
    props = work / "server.properties"
    props.write_text(server_properties(listeners, work / "data", dist, keystore, extra))
    log_text, log_flag = logging_config(dist)
    (work / "logging.properties").write_text(log_text)
    log_flag = log_flag.format(path=work / "logging.properties")
    cds = cds_archive(dist, java)
    _format(dist, java, props, log_flag, _cluster_id(), password, cds)
    command = [java, *JVM_FLAGS, log_flag, "-cp", dist.classpath, "kafka.Kafka", str(props)]
    ports = listeners.client_listeners()
    broker = KafkaBroker(
        f"127.0.0.1:{listeners.plaintext}", "kafka", log_path=str(work / "kafka.log"), version=dist.version,
        directory=work, command=command, plaintext_port=listeners.plaintext, scram_password=password or "",
        ssl_bootstrap=f"127.0.0.1:{ports['SSL']}" if secure else None,
        sasl_ssl_bootstrap=f"127.0.0.1:{ports['SASL_SSL']}" if secure else None,
        ca_path=ca.ca_path if ca else None, cds=cds)
    broker.launch()
    return broker
