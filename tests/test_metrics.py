"""/metrics from a live worker replicating on real brokers: Strimzi's names, non-zero, plus the lag gauge."""

from __future__ import annotations

import re
from typing import Any

import httpx
from confluent_kafka import Consumer, TopicPartition

from tests.harness.brokers import Broker, free_port
from tests.harness.kafka_io import create_topic, produce_many, read_to_end
from tests.harness.mirror import cluster_settings, mirror_source
from tests.harness.workers import Cluster, wait_for


def sample(text: str, name: str, **labels: str) -> float | None:
    for line in text.splitlines():
        if not line.startswith(name + "{") and line.split(" ")[0] != name:
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split(" ")[0]))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return None


def start_mirror(w: Any, broker: Broker, broker_b: Broker, topic: str, group: str) -> None:
    """Connectors `src` (MirrorSource of `topic`) and `cp` (MirrorCheckpoint of `group`, every second), A -> B."""
    assert w.request("POST", "/connectors", {"name": "src", "config": mirror_source(
        broker, broker_b, {"topics": topic})}).status_code == 201
    assert w.request("POST", "/connectors", {"name": "cp", "config": {
        "connector.class": "MirrorCheckpointConnector", "source.cluster.alias": "A", "target.cluster.alias": "B",
        "topics": topic, "groups": group, "emit.checkpoints.interval.seconds": "1",
        "checkpoints.topic.replication.factor": "1", **cluster_settings("source", broker),
        **cluster_settings("target", broker_b)}}).status_code == 201


def test_metrics_endpoint_while_replicating(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                            unique: str) -> None:
    t = f"met{unique}"
    create_topic(broker.bootstrap, t, 2)
    produce_many(broker.bootstrap, t, 2_000, 2)
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": f"mg-{unique}"})
    consumer.commit(offsets=[TopicPartition(t, 0, 500)], asynchronous=False)
    consumer.close()
    port = free_port()
    cluster: Cluster = cluster_factory(on=broker_b, extra={"metrics.prometheus.port": str(port)})
    (w,) = cluster.start(1)
    start_mirror(w, broker, broker_b, t, f"mg-{unique}")
    wait_for(lambda: len(read_to_end(broker_b.bootstrap, f"A.{t}")) >= 2_000, 60, "replicated")

    def scrape() -> str:
        return httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text

    labels = {"source": "A", "target": "B", "topic": f"A.{t}", "partition": "0"}
    p = "kafka_connect_mirror_mirrorsourceconnector_"
    text = wait_for(lambda: (lambda s: s if (sample(s, p + "record_count", **labels) or 0) >= 1000
                             and sample(s, "kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms",
                                        group=f"mg-{unique}") is not None else None)(scrape()),
                    60, "replication and checkpoint metrics")
    for name in ("byte_count", "record_age_ms", "record_age_ms_max", "replication_latency_ms_avg"):
        assert (sample(text, p + name, **labels) or 0) > 0, name
    assert sample(text, p + "record_rate", **labels) is not None
    assert sample(text, p + "offset_lag", **labels) == 0, "the lag gauge MM2 lacks: caught up"
    assert (sample(text, "kafka_connect_worker_task_count") or 0) >= 2
    assert sample(text, "kafka_connect_connector_status", connector="src", status="running") == 1
    assert sample(text, "kafka_connect_connector_task_status", connector="src", task="0", status="running") == 1
    # Every line a task logs carries Connect's context.
    assert any("[src|task-0] " in line and "mirroring" in line for line in w.log_path.read_text().splitlines())
