"""The internal topics as Connect lays them out, read directly from the broker."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.harness.connectors import all_running, committed, sequence_connector
from tests.harness.kafka_io import partition_count, read_all, replica_counts, topic_config
from tests.harness.workers import Cluster, wait_for


def latest(records: list[Any]) -> dict[bytes, bytes | None]:
    """Key -> value after applying records in order (what compaction would keep)."""
    out: dict[bytes, bytes | None] = {}
    for _p, _o, key, value in sorted(records, key=lambda r: (r[0], r[1])):
        out[key] = value
    return out


def test_internal_topics_layout_and_record_formats(cluster_factory: Any, unique: str) -> None:
    cluster: Cluster = cluster_factory()
    (w,) = cluster.start(1)
    bs = cluster.broker.bootstrap
    assert w.request("POST", "/connectors", sequence_connector("fmt", f"fmt-{unique}", 2, 50, 500)).status_code == 201
    wait_for(lambda: all_running(w, "fmt", 2), 30, "connector running")
    wait_for(lambda: committed(w, "fmt") == 100, 30, "all offsets committed")
    assert w.request("PUT", "/connectors/fmt/pause").status_code == 202

    g = cluster.group
    for topic, partitions in ((f"{g}-configs", 1), (f"{g}-offsets", 25), (f"{g}-status", 5)):
        assert partition_count(bs, topic) == partitions, topic
        assert topic_config(bs, topic)["cleanup.policy"] == "compact", topic

    configs = latest(read_all(bs, f"{g}-configs"))
    conn = orjson.loads(configs[b"connector-fmt"])
    assert conn["properties"]["connector.class"] == "SequenceSourceConnector"
    assert conn["properties"]["name"] == "fmt"
    assert orjson.loads(configs[b"commit-fmt"]) == {"tasks": 2}
    task0 = orjson.loads(configs[b"task-fmt-0"])["properties"]
    assert task0["task.index"] == "0" and task0["topic"] == f"fmt-{unique}"
    wait_for(lambda: orjson.loads(latest(read_all(bs, f"{g}-configs"))[b"target-state-fmt"] or b"{}")
             == {"state": "PAUSED", "state.v2": "PAUSED"}, 10, "target state record")

    offsets = read_all(bs, f"{g}-offsets")
    keys = {k for _p, _o, k, _v in offsets}
    assert b'["fmt",{"task":0}]' in keys and b'["fmt",{"task":1}]' in keys
    final = latest(offsets)
    assert orjson.loads(final[b'["fmt",{"task":0}]']) == {"seq": 49}

    statuses = latest(read_all(bs, f"{g}-status"))
    st = orjson.loads(statuses[b"status-connector-fmt"])
    assert set(st) == {"state", "trace", "worker_id", "generation"}
    assert st["worker_id"] == w.worker_id and st["trace"] is None
    wait_for(lambda: orjson.loads(latest(read_all(bs, f"{g}-status"))[b"status-task-fmt-1"] or b"{}")
             .get("state") == "PAUSED", 10, "task status PAUSED")


def test_internal_topics_get_the_configured_replication_factors(cluster_factory: Any) -> None:
    """Connect's TopicAdmin creates the config, offset and status topics with config.storage.replication.factor,
    offset.storage.replication.factor and status.storage.replication.factor (KafkaConfigBackingStore,
    KafkaOffsetBackingStore, KafkaStatusBackingStore); the membership topic takes the config topic's. The one-node
    test broker keeps one copy but reports the replicas the CreateTopics request asked for."""
    cluster: Cluster = cluster_factory(extra={"config.storage.replication.factor": "3",
                                              "offset.storage.replication.factor": "2",
                                              "status.storage.replication.factor": "4"})
    if cluster.broker.kind != "tansu":
        pytest.skip("a one-node Kafka refuses a replication factor above 1; Tansu reports the replicas asked for")
    cluster.start(1)
    bs, g = cluster.broker.bootstrap, cluster.group
    for topic, replicas in ((f"{g}-configs", 3), (f"{g}-offsets", 2), (f"{g}-status", 4),
                            (f"connect-membership.{g}.internal", 3)):
        assert replica_counts(bs, topic) == {replicas}, topic
