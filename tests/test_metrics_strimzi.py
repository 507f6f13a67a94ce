"""Strimzi parity: a live dedicated MirrorMaker process (two flows) and a live distributed worker, scraped
while they replicate, export every `kafka_*` series Strimzi's Connect and MirrorMaker 2 dashboards and its
Connect alert rules query (strimzi/strimzi-kafka-operator, packaging/examples/metrics/), with the labels
those queries select or group by; plus the series replikafka's own alerts and dashboard need
(docs/monitoring). Two flows in one process keep separate series."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from connectors.mirror.formats import Heartbeat
from tests.harness.brokers import Broker, free_port
from tests.harness.kafka_io import create_topic, produce_many, read_to_end
from tests.harness.mirror import cluster_lines, mm2_settings
from tests.harness.workers import Cluster, wait_for
from tests.test_metrics import sample, start_mirror
from tests.test_metrics_flows import broker_c, own_ab, seed, series
from tests.test_mirror_topologies import MirrorMakerProcess

MM2 = "grafana-dashboards/strimzi-kafka-mirror-maker-2.json"
CONNECT = "grafana-dashboards/strimzi-kafka-connect.json"
RULES = "prometheus-install/prometheus-rules/prometheus-kafka-connect-rules.yaml"
OURS = "docs/monitoring (replikafka's alerts and dashboard)"
_AGE = ("partition", "topic")
_SOURCE = "kafka_connect_mirror_mirrorsourceconnector_"
_CHECKPOINT = "kafka_connect_mirror_mirrorcheckpointconnector_"

# Series name -> (where it is queried, the labels the queries select or group by).
STRIMZI: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "kafka_connect_worker_connector_count": ((MM2, CONNECT), ()),
    "kafka_connect_worker_task_count": ((MM2, CONNECT), ()),
    _SOURCE + "record_rate": ((MM2,), ()),
    _SOURCE + "byte_rate": ((MM2,), ()),
    **{_SOURCE + "record_age_ms" + s: ((MM2,), _AGE) for s in ("", "_avg", "_min", "_max")},
    **{_SOURCE + "replication_latency_ms" + s: ((MM2,), _AGE) for s in ("", "_avg", "_min", "_max")},
    **{_CHECKPOINT + "checkpoint_latency_ms" + s: ((MM2,), ("source", "target")) for s in ("", "_avg", "_min", "_max")},
    "kafka_consumer_incoming_byte_total": ((MM2, CONNECT), ()),
    "kafka_producer_outgoing_byte_total": ((MM2, CONNECT), ()),
    "kafka_consumer_fetch_manager_records_lag": ((MM2,), ("clientid", "topic", "partition")),
    "kafka_producer_buffer_available_bytes": ((MM2,), ("clientid",)),
    "kafka_connect_source_task_source_record_active_count": ((MM2,), ("connector",)),
    "kafka_connect_connector_task_offset_commit_avg_time_ms": ((MM2,), ("connector", "task")),
    "kafka_consumer_connection_count": ((CONNECT,), ()),
    "kafka_producer_connection_count": ((CONNECT,), ()),
    **{f"kafka_connect_worker_connector_{s}_task_count": ((CONNECT,), ("connector",))
       for s in ("running", "paused", "unassigned", "destroyed")},
    "kafka_connect_worker_connector_failed_task_count": ((CONNECT, RULES), ("connector",)),
    "kafka_connect_connector_status": ((CONNECT, RULES), ("connector", "status")),
    "kafka_connect_connector_task_status": ((CONNECT,), ("connector", "task", "status")),
}
# What replikafka's own rules and dashboard query beyond Strimzi's (checked live the same way).
OWN: dict[str, tuple[str, ...]] = {
    _SOURCE + "offset_lag": ("source", "target", "topic", "partition"),
    _SOURCE + "record_count": ("source", "target", "topic", "partition"),
    _SOURCE + "heartbeat_timestamp_seconds": ("source", "target", "upstream"),
    _CHECKPOINT + "checkpoint_timestamp_seconds": ("source", "target", "group"),
    _CHECKPOINT + "emit_interval_seconds": ("source", "target"),
    "kafka_connect_coordinator_assigned_connectors": (),
    "kafka_connect_coordinator_assigned_tasks": (),
    "kafka_connect_worker_rebalance_rebalancing": (),
    "kafka_connect_connector_task_offset_commit_max_time_ms": ("connector", "task"),
    "process_resident_memory_bytes": (),
    "process_cpu_seconds_total": (),
    "python_gc_collections_total": (),
    "python_threads": (),
}
EXPORTED = set(STRIMZI) | set(OWN)
__all__ = ["broker_c", "own_ab"]  # the module's clusters (fixtures)
FLOWS = {"A": {"source": "A", "target": "B"}, "C": {"source": "C", "target": "B"}}


def required_labels(name: str) -> tuple[str, ...]:
    return STRIMZI[name][1] if name in STRIMZI else OWN[name]


def missing(text: str, exempt: frozenset[str] = frozenset()) -> list[str]:
    """The listed series absent from one scrape (or present without the labels queries use)."""
    found = series(text)
    return sorted(name for name in EXPORTED - exempt
                  if not any(n == name and set(required_labels(name)) <= {k for k, _ in labels}
                             for n, labels in found))


def scrape_until(scrape: Callable[[], str], ready: Callable[[str], bool], timeout: float,
                 exempt: frozenset[str] = frozenset()) -> str:
    """The first scrape with every listed series (but `exempt`) and `ready`; on timeout, fail naming
    what is missing."""
    deadline, text = time.monotonic() + timeout, ""
    while time.monotonic() < deadline:
        text = scrape()
        if not missing(text, exempt) and ready(text):
            return text
        time.sleep(0.5)  # poll interval of the deadline loop above
    assert missing(text, exempt) == [], "listed series not exported"
    raise AssertionError("every listed series exported, but the figures never settled:\n"
                         + "\n".join(line for line in text.splitlines() if line.startswith("kafka_producer_out")))


@dataclass
class Dedicated:
    mm: MirrorMakerProcess
    port: int
    uid: str

    @property
    def topic(self) -> str:
        return f"strimzi{self.uid}"

    def scrape(self) -> str:
        return httpx.get(f"http://127.0.0.1:{self.port}/metrics", timeout=5).text


@pytest.fixture(scope="module")
def dedicated(tmp_path_factory: pytest.TempPathFactory, own_ab: list[Broker],
              broker_c: Broker) -> Iterator[Dedicated]:
    broker, broker_b = own_ab  # brokers of the module's own (test_metrics_flows.own_ab says why)
    uid = uuid.uuid4().hex[:6]
    topic = f"strimzi{uid}"
    sources = {"A": broker, "C": broker_c}
    for alias, b in sources.items():
        seed(b, topic, f"sg{alias}{uid}")
    # C's heartbeats, as an upstream MirrorMaker would write them (MM2 always copies `heartbeats`).
    producer = Producer({"bootstrap.servers": broker_c.bootstrap})
    beat = Heartbeat("X", "C", int(time.time() * 1000))
    producer.produce("heartbeats", beat.value(), key=beat.key(), timestamp=beat.timestamp)
    assert producer.flush(10) == 0
    named = {"A": broker, "B": broker_b, "C": broker_c}
    port = free_port()
    path = tmp_path_factory.mktemp("strimzi") / "mm2.properties"
    path.write_text(cluster_lines(named)
                    + "A->B.enabled = true\nC->B.enabled = true\n"
                    + f"topics = {topic}\ngroups = sg.*{uid}\nemit.heartbeats.enabled = false\n"
                    + f"B.metrics.prometheus.port = {port}\n" + mm2_settings(named))
    running = Dedicated(MirrorMakerProcess(path, path.parent / "mm.log"), port, uid)
    try:
        for alias in sources:
            wait_for(lambda alias=alias: len(read_to_end(broker_b.bootstrap, f"{alias}.{topic}")) == 200, 60,
                     f"{alias}.{topic} copied to B")
        yield running
    finally:
        running.mm.stop()


def test_dedicated_mirror_maker_exports_strimzi_series_per_flow(dedicated: Dedicated) -> None:
    def settled(s: str) -> bool:  # both flows' clients have reported statistics once
        return all(sample(s, "kafka_producer_outgoing_byte_total", **flow,
                          clientid="connector-producer-MirrorSourceConnector-0")
                   and sample(s, "kafka_consumer_fetch_manager_records_lag", **flow, topic=dedicated.topic,
                              partition="1") is not None for flow in FLOWS.values())
    text = scrape_until(dedicated.scrape, settled, 45)
    for alias, flow in FLOWS.items():  # each flow's clients and tasks have their own series
        producer = {**flow, "clientid": "connector-producer-MirrorSourceConnector-0"}
        assert (sample(text, "kafka_producer_outgoing_byte_total", **producer) or 0) > 0, alias
        assert (sample(text, "kafka_producer_buffer_available_bytes", **producer) or 0) > 0, alias
        assert (sample(text, "kafka_consumer_incoming_byte_total", **flow) or 0) > 0, alias
        assert sample(text, "kafka_consumer_fetch_manager_records_lag", **flow, topic=dedicated.topic,
                      partition="0") == 0, alias
        assert sample(text, "kafka_connect_coordinator_assigned_tasks", **flow) == \
            sample(text, "kafka_connect_worker_task_count", **flow), alias
        assert sample(text, _CHECKPOINT + "emit_interval_seconds", **flow) == 1, alias
        assert (sample(text, _CHECKPOINT + "checkpoint_timestamp_seconds", **flow, group=f"sg{alias}{dedicated.uid}")
                or 0) > time.time() - 60, alias
    beat = sample(text, _SOURCE + "heartbeat_timestamp_seconds", **FLOWS["C"], upstream="C")
    assert beat is not None and time.time() - 120 < beat <= time.time()


def test_distributed_worker_exports_strimzi_series(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                   unique: str) -> None:
    t = f"sdist{unique}"
    create_topic(broker.bootstrap, t, 2)
    produce_many(broker.bootstrap, t, 500, 2)
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": f"sdg-{unique}"})
    consumer.commit(offsets=[TopicPartition(t, 0, 100)], asynchronous=False)
    consumer.close()
    port = free_port()
    cluster: Cluster = cluster_factory(on=broker_b, extra={"metrics.prometheus.port": str(port),
                                                           "offset.flush.interval.ms": "1000"})
    (w,) = cluster.start(1)
    start_mirror(w, broker, broker_b, t, f"sdg-{unique}")
    wait_for(lambda: len(read_to_end(broker_b.bootstrap, f"A.{t}")) >= 500, 45, "replicated")

    def scrape() -> str:
        return httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text

    # The producer's connection shows in its next statistics (the MirrorSource series, registered when the
    # task starts, no longer hold the scrape back until then).
    text = scrape_until(scrape, lambda s: (sample(
        s, "kafka_connect_connector_task_offset_commit_avg_time_ms", connector="src", task="0") or 0) > 0
        and (sample(s, "kafka_producer_connection_count", clientid="connector-producer-src-0") or 0) >= 1, 45,
        exempt=frozenset({_SOURCE + "heartbeat_timestamp_seconds"}))  # no upstream heartbeats here: see above
    assert sample(text, "kafka_connect_worker_connector_running_task_count", connector="src") == 1
    assert sample(text, "kafka_connect_worker_connector_failed_task_count", connector="src") == 0
    assert sample(text, "kafka_connect_coordinator_assigned_connectors") == 2
    assert sample(text, "kafka_connect_worker_rebalance_rebalancing") == 0
    assert sample(text, "kafka_connect_source_task_source_record_active_count", connector="src", task="0") == 0
    assert (sample(text, "kafka_producer_connection_count", clientid="connector-producer-src-0") or 0) >= 1


def test_listed_sources_are_the_strimzi_files() -> None:
    """Each listed series names the Strimzi file(s) that query it (guards the list's bookkeeping)."""
    assert {f for files, _ in STRIMZI.values() for f in files} == {MM2, CONNECT, RULES}
    assert Path(__file__).name == "test_metrics_strimzi.py"
