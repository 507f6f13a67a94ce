"""The two dedicated MirrorMakers, started one at a time on the same mm2.properties.

- Java: `org.apache.kafka.connect.mirror.MirrorMaker` 4.3.1 from the test bed's jars, with the flags a production
  start gets from Kafka's scripts (connect-mirror-maker.sh's heap, capped at 1 GB here; kafka-run-class.sh's G1
  settings; the default tiered JIT), NOT the test harness's small-JVM flags (256 MB heap, serial collector, C1
  only: tests/harness/java_peers.py), which would handicap it.
- replikafka: `python -m replikafka mirror-maker` from this checkout's interpreter.
Both log to a file in the run's directory. A run is timed from the moment its process is launched.
Each run gets fresh cluster aliases (S<n>, T<n>): fresh herder groups, internal topics and remote topic names, so
no run resumes another's state.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from cpu_meter import tree_cpu

from pyconnect.testing.brokers import free_port
from pyconnect.testing.kafka_dist import distribution, java_binary
from pyconnect.testing.parent_death import die_with_parent
from tests.harness.java_peers import MIRROR_MAKER_MAIN, logging_config

REPO = Path(__file__).resolve().parents[2]
JAVA_FLAGS = ("-Xms256m", "-Xmx1g", "-server", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
              "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent", "-XX:MaxInlineLevel=15",
              "-Djava.awt.headless=true")
KINDS = ("java", "ours")
LABEL = {"java": "Java MM2 4.3.1", "ours": "replikafka"}


@dataclass
class Flow:
    """One run's aliases and topic: `source`->`target`, copying `topic` (its copy is `<source>.<topic>`)."""

    source: str
    target: str
    topic: str

    @property
    def remote(self) -> str:
        return f"{self.source}.{self.topic}"

    @property
    def syncs_topic(self) -> str:
        return f"mm2-offset-syncs.{self.target}.internal"


def mm2_properties(path: Path, flow: Flow, a: str, b: str, tasks: int = 1, extra: dict[str, str] | None = None) -> Path:
    """The file both replicators read: `flow` from `a` to `b`, replication factors of 1 (single-node clusters),
    every other key at its default unless `extra` sets it."""
    s, t = flow.source, flow.target
    lines = {
        "clusters": f"{s}, {t}", f"{s}.bootstrap.servers": a, f"{t}.bootstrap.servers": b,
        f"{s}->{t}.enabled": "true", f"{s}->{t}.topics": flow.topic, f"{t}->{s}.enabled": "false",
        "tasks.max": str(tasks), "listeners": f"http://127.0.0.1:{free_port()}",
        # What Java's own start-up warning advises: find the plugins through their manifests, not a class-path scan
        # (a scan costs Java tens of seconds per herder on a loaded machine); replikafka ignores it.
        **{f"{prefix}plugin.discovery": "service_load" for prefix in ("", f"{s}.", f"{t}.")},
        **{key: "1" for key in ("replication.factor", "checkpoints.topic.replication.factor",
                                "heartbeats.topic.replication.factor", "offset-syncs.topic.replication.factor",
                                "offset.storage.replication.factor", "status.storage.replication.factor",
                                "config.storage.replication.factor")},
        **(extra or {}),
    }
    path.write_text("".join(f"{key} = {value}\n" for key, value in lines.items()))
    return path


def command(kind: str, properties: Path, directory: Path, listeners: str | None = None) -> list[str]:
    if kind == "java":
        dist = distribution("4")
        log_flag = logging_config(dist, directory / "log4j-mm2.properties")
        return [java_binary(), *JAVA_FLAGS, log_flag, "-cp", dist.classpath, MIRROR_MAKER_MAIN, str(properties)]
    extra = ["--listeners", listeners] if listeners else []
    return [sys.executable, "-m", "replikafka", "mirror-maker", str(properties), *extra]


@dataclass
class Replicator:
    """One running dedicated MirrorMaker process (Java or ours)."""

    kind: str
    process: subprocess.Popen[bytes]
    launched: float  # time.perf_counter() just before the launch
    log: Path
    peak_rss: dict[int, int] = field(default_factory=dict)  # the largest VmHWM seen per pid, bytes

    @property
    def pid(self) -> int:
        return self.process.pid

    def cpu_seconds(self) -> float:
        """CPU seconds used so far by the process and its live descendants."""
        return sum(cpu for cpu, _name in tree_cpu([self.pid]).values())

    def sample_rss(self) -> None:
        """Record each process's peak resident set (VmHWM) of the tree."""
        for pid in tree_cpu([self.pid]):
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    self.peak_rss[pid] = max(self.peak_rss.get(pid, 0), int(line.split()[1]) * 1024)

    def rss_mb(self) -> float:
        return sum(self.peak_rss.values()) / 1e6

    def alive(self) -> bool:
        return self.process.poll() is None

    def check(self) -> None:
        if not self.alive():
            tail = self.log.read_text(errors="replace").splitlines()[-15:]
            raise RuntimeError(f"{LABEL[self.kind]} exited with code {self.process.returncode}:\n" + "\n".join(tail))

    def kill(self) -> None:
        """kill -9."""
        if self.alive():
            self.process.kill()
        self.process.wait(10)

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM, then kill -9 after `timeout`."""
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()


def launch(kind: str, properties: Path, directory: Path, name: str = "", listeners: str | None = None) -> Replicator:
    """Start `kind` ("java" or "ours") on `properties`; no wait: the caller times from here."""
    directory.mkdir(parents=True, exist_ok=True)
    log = directory / f"{name or kind}.log"
    cmd = command(kind, properties, directory, listeners)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with open(log, "ab") as out:  # noqa: PTH123 - the child keeps its own descriptor
        launched = time.perf_counter()
        process = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=die_with_parent())
    return Replicator(kind, process, launched, log)
