"""Two flows in one dedicated process (A->B and C->B: same connector names, one /metrics, one Python
logging): each flow's metric series are its own and stable, and a logger level set through one flow
leaves the other flow's level and records alone."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from confluent_kafka import Consumer, TopicPartition

from tests.harness.brokers import Broker, free_port, start_broker
from tests.harness.kafka_io import create_topic, produce_many, read_to_end
from tests.harness.mirror import cluster_lines, mm2_settings
from tests.harness.workers import wait_for
from tests.test_metrics import sample
from tests.test_mirror_topologies import MirrorMakerProcess

FLOWS = {"A": {"source": "A", "target": "B"}, "C": {"source": "C", "target": "B"}}
CHECKPOINT_LOGGER = "connectors.mirror.checkpoint"


@dataclass
class Running:
    mm: MirrorMakerProcess
    log: Path
    metrics_port: int
    topic: str
    groups: dict[str, str]

    def url(self, source: str, path: str) -> str:
        return f"http://127.0.0.1:{self.mm.port}/{source}/B{path}"

    def scrape(self) -> str:
        return httpx.get(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5).text


def seed(b: Broker, topic: str, group: str) -> None:
    """`topic` (2 partitions, 200 records) on `b`, and `group` committed at offset 50 of each partition."""
    create_topic(b.bootstrap, topic, 2)
    produce_many(b.bootstrap, topic, 200, 2)
    consumer = Consumer({"bootstrap.servers": b.bootstrap, "group.id": group})
    consumer.commit(offsets=[TopicPartition(topic, p, 50) for p in range(2)], asynchronous=False)
    consumer.close()


@pytest.fixture(scope="module")
def broker_c() -> Iterator[Broker]:
    c = start_broker("C", 2)
    yield c
    c.stop()


def launch(where: Path, named: dict[str, Broker], topic: str, filters: str, groups: dict[str, str]) -> Running:
    """The dedicated process of flows A->B (2 tasks) and C->B (1 task) with `filters` (topics/groups lines)."""
    port = free_port()
    # Different task counts per flow: the flows' series differ, so one flow cannot stand in for the other.
    path = where / "mm2.properties"
    path.write_text(cluster_lines(named)
                    + "A->B.enabled = true\nA->B.tasks.max = 2\nC->B.enabled = true\nC->B.tasks.max = 1\n"
                    + f"{filters}emit.heartbeats.enabled = false\n"
                    + f"B.metrics.prometheus.port = {port}\n" + mm2_settings(named))
    log = where / "mm.log"
    return Running(MirrorMakerProcess(path, log), log, port, topic, groups)


@pytest.fixture(scope="module")
def own_ab() -> Iterator[list[Broker]]:
    """A and B of the module's own. The session's shared brokers keep each flow's config topic from earlier
    tests: connector states (a PAUSED checkpoint connector) and configs bound for a C that is gone, which the
    dedicated process started before the file's and which held its flows up."""
    brokers = [start_broker("flowsA", 0), start_broker("flowsB", 1)]
    yield brokers
    for b in brokers:
        b.stop()


@pytest.fixture(scope="module")
def two_flows(tmp_path_factory: pytest.TempPathFactory, own_ab: list[Broker],
              broker_c: Broker) -> Iterator[Running]:
    broker, broker_b = own_ab
    uid = uuid.uuid4().hex[:6]
    topic, groups = f"flows{uid}", {"A": f"fga{uid}", "C": f"fgc{uid}"}
    sources = {"A": broker, "C": broker_c}
    for alias, b in sources.items():
        seed(b, topic, groups[alias])
    running = launch(tmp_path_factory.mktemp("flows"), {"A": broker, "B": broker_b, "C": broker_c}, topic,
                     f"topics = {topic}\ngroups = fg.{uid}\n", groups)
    try:
        for alias in sources:
            wait_for(lambda alias=alias: len(read_to_end(broker_b.bootstrap, f"{alias}.{topic}")) == 200, 120,
                     f"{alias}.{topic} copied to B")
        yield running
    finally:
        running.mm.stop()


def series(text: str) -> set[tuple[str, frozenset[tuple[str, str]]]]:
    """The series (name and labels, not values) of one scrape."""
    out = set()
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name_labels = line.rsplit(" ", 1)[0]
            name = name_labels.split("{", 1)[0]
            out.add((name, frozenset(re.findall(r'(\w+)="([^"]*)"', name_labels))))
    return out


def _flow_settled(text: str, running: Running) -> bool:
    """Both flows show their tasks running and their replication and checkpoint figures."""
    p = "kafka_connect_mirror_mirrorsourceconnector_"
    for alias, flow in FLOWS.items():
        if (sample(text, p + "record_count", **flow, topic=f"{alias}.{running.topic}", partition="1") or 0) < 100:
            return False
        if sample(text, "kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms", **flow,
                  group=running.groups[alias], partition="1") is None:
            return False
        if any(sample(text, "kafka_consumer_fetch_manager_records_lag", **flow, topic=running.topic,
                      partition=str(p)) is None for p in range(2)):  # each consumer's first statistics
            return False
    return True


def values(text: str, name: str) -> list[float]:
    """Every value of metric `name` in one scrape, whatever the labels, in order."""
    return sorted(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                  if line.startswith(name + "{") or line.startswith(name + " "))


def test_each_flow_has_its_own_stable_series(two_flows: Running) -> None:
    scrapes = [wait_for(lambda: (lambda s: s if _flow_settled(s, two_flows) else None)(two_flows.scrape()), 120,
                        "both flows' replication and checkpoint metrics")]
    for _ in range(9):
        # Spaced wider than the 250 ms worker loop, whose per-process publishing used to overwrite
        # one flow's series with the other's: sampling, not synchronisation.
        time.sleep(0.3)  # sample spacing (see above), not synchronisation
        scrapes.append(two_flows.scrape())
    first = series(scrapes[0])
    for i, text in enumerate(scrapes):
        assert series(text) == first, f"scrape {i}: series came or went: {series(text) ^ first}"
        assert values(text, "kafka_connect_worker_task_count") == values(scrapes[0], "kafka_connect_worker_task_count")
    for i, text in enumerate(scrapes):
        _check_flows(text, two_flows.topic, i)


def _check_flows(text: str, topic: str, i: int) -> None:
    """Each flow's series, told apart by source/target: states, task counts and replication figures."""
    for alias, flow in FLOWS.items():
        assert sample(text, "kafka_connect_connector_status", **flow, connector="MirrorSourceConnector",
                      status="running") == 1, (i, alias)
        assert sample(text, "kafka_connect_connector_task_status", **flow, connector="MirrorSourceConnector",
                      task="0", status="running") == 1, (i, alias)
        assert (sample(text, "kafka_connect_mirror_mirrorsourceconnector_record_count", **flow,
                       topic=f"{alias}.{topic}", partition="0") or 0) >= 100, (i, alias)
    # A->B runs two source tasks, C->B one: each flow's worker counts its own.
    assert sample(text, "kafka_connect_connector_task_status", **FLOWS["A"], connector="MirrorSourceConnector",
                  task="1", status="running") == 1, i
    assert sample(text, "kafka_connect_connector_task_status", **FLOWS["C"], connector="MirrorSourceConnector",
                  task="1") is None, i
    counts = {alias: sample(text, "kafka_connect_worker_task_count", **flow) for alias, flow in FLOWS.items()}
    assert counts["A"] is not None and counts["C"] is not None and counts["A"] == counts["C"] + 1, (i, counts)


def _level(running: Running, source: str, logger: str) -> str:
    response = httpx.get(running.url(source, f"/admin/loggers/{logger}"), timeout=10)
    assert response.status_code == 200, response.text
    level: str = response.json()["level"]
    return level


def _debug_lines(running: Running, flow: str) -> list[str]:
    return [line for line in running.log.read_text(errors="replace").splitlines()
            if f"DEBUG [{flow}] " in line and line.endswith(f"({CHECKPOINT_LOGGER})")]


def test_a_logger_level_set_through_one_flow_leaves_the_other_alone(two_flows: Running) -> None:
    assert _level(two_flows, "A", CHECKPOINT_LOGGER) == _level(two_flows, "C", CHECKPOINT_LOGGER) == "INFO"
    put = httpx.put(two_flows.url("A", f"/admin/loggers/{CHECKPOINT_LOGGER}"), json={"level": "DEBUG"}, timeout=10)
    assert put.status_code == 200 and CHECKPOINT_LOGGER in put.json(), put.text
    assert _level(two_flows, "A", CHECKPOINT_LOGGER) == "DEBUG"
    assert _level(two_flows, "C", CHECKPOINT_LOGGER) == "INFO", "flow C->B's level changed by flow A->B"
    assert httpx.get(two_flows.url("A", "/admin/loggers"), timeout=10).json()[CHECKPOINT_LOGGER]["level"] == "DEBUG"
    assert httpx.get(two_flows.url("C", "/admin/loggers"), timeout=10).json().get(
        CHECKPOINT_LOGGER, {"level": "INFO"})["level"] == "INFO"
    # Both flows' checkpoint tasks poll every second: A's debug lines appear, C's never do.
    status = httpx.get(two_flows.url("C", "/connectors/MirrorCheckpointConnector/status"), timeout=10).json()
    assert [t["state"] for t in status["tasks"]] == ["RUNNING"], status
    wait_for(lambda: len(_debug_lines(two_flows, "A->B")) >= 3, 60, "flow A->B's checkpoint task at DEBUG")
    assert _debug_lines(two_flows, "C->B") == [], "flow C->B logged at DEBUG"
    assert any("[C->B] [MirrorSourceConnector|task-0] mirroring" in line
               for line in two_flows.log.read_text(errors="replace").splitlines()), "C->B's lines carry its flow"

    # Through flow A's config topic (every worker of the flow applies it): still flow A's only.
    cluster = httpx.put(two_flows.url("A", "/admin/loggers/pyconnect.storage?scope=cluster"), json={"level": "WARN"},
                        timeout=10)
    assert cluster.status_code == 204, cluster.text
    try:
        wait_for(lambda: _level(two_flows, "A", "pyconnect.storage") == "WARN", 30, "flow A->B applies its record")
        assert _level(two_flows, "C", "pyconnect.storage") == "INFO"
    finally:  # the flow's config topic outlives this test on the session's brokers
        httpx.put(two_flows.url("A", "/admin/loggers/pyconnect.storage?scope=cluster"), json={"level": "INFO"},
                  timeout=10)
