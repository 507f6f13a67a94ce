from __future__ import annotations

import pytest

from connectors.mirror.filters import (
    DEFAULT_TOPICS_EXCLUDE,
    DefaultTopicFilter,
    compile_list,
)
from connectors.mirror.formats import Checkpoint, Heartbeat, OffsetSync
from connectors.mirror.offset_sync_writer import OffsetSyncWriter
from connectors.mirror.policy import DefaultReplicationPolicy, IdentityReplicationPolicy, load_policy
from connectors.mirror.source_connector import MAX_STREAMING_TASKS, MirrorSourceConnector
from connectors.mirror.source_task import parse_partitions
from connectors.mirror.topics import TopicSelector


def test_record_layouts_byte_for_byte() -> None:
    sync = OffsetSync("orders", 3, 41, 40)
    assert sync.key() == b"\x00\x06orders\x00\x00\x00\x03"
    assert sync.value() == (41).to_bytes(8, "big") + (40).to_bytes(8, "big")
    assert OffsetSync.decode(sync.key(), sync.value()) == sync
    cp = Checkpoint("g", "A.orders", 1, 10, 9, "meta")
    assert cp.key() == b"\x00\x01g\x00\x08A.orders\x00\x00\x00\x01"
    assert cp.value() == b"\x00\x00" + (10).to_bytes(8, "big") + (9).to_bytes(8, "big") + b"\x00\x04meta"
    assert Checkpoint.decode(cp.key(), cp.value()) == cp
    hb = Heartbeat("A", "B", 1700000000000)
    assert hb.key() == b"\x00\x01A\x00\x01B" and hb.value() == b"\x00\x00" + (1700000000000).to_bytes(8, "big")
    assert Heartbeat.decode(hb.key(), hb.value()) == hb


def test_default_policy_rules() -> None:
    p = load_policy("org.apache.kafka.connect.mirror.DefaultReplicationPolicy", {})
    assert isinstance(p, DefaultReplicationPolicy)
    assert p.format_remote_topic("A", "t") == "A.t"
    assert p.topic_source("A.t") == "A" and p.topic_source("t") is None
    assert p.topic_source("A.") is None and p.topic_source(".x") == "", "Java split semantics"
    assert p.upstream_topic("B.A.t") == "A.t" and p.original_topic("B.A.t") == "t"
    assert p.offset_syncs_topic("B") == "mm2-offset-syncs.B.internal"
    assert p.checkpoints_topic("A") == "A.checkpoints.internal"
    assert p.is_heartbeats_topic("A.heartbeats") and p.is_internal_topic("__consumer_offsets")
    assert p.is_internal_topic("mm2-offset-syncs.B.internal") and not p.is_internal_topic("orders")


def test_custom_separator_and_internal_separator_rule() -> None:
    p = load_policy("DefaultReplicationPolicy", {"replication.policy.separator": "_"})
    assert p.format_remote_topic("A", "t") == "A_t"
    assert p.offset_syncs_topic("B") == "mm2-offset-syncs_B_internal"
    assert p.checkpoints_topic("A") == "A_checkpoints_internal"
    q = load_policy("DefaultReplicationPolicy", {"replication.policy.separator": "_",
                                                  "replication.policy.internal.topic.separator.enabled": "false"})
    assert q.checkpoints_topic("A") == "A.checkpoints.internal"


def test_identity_policy() -> None:
    p = load_policy("org.apache.kafka.connect.mirror.IdentityReplicationPolicy", {"source.cluster.alias": "A"})
    assert isinstance(p, IdentityReplicationPolicy)
    assert p.format_remote_topic("A", "orders") == "orders" and p.topic_source("orders") == "A"
    assert p.format_remote_topic("A", "heartbeats") == "A.heartbeats"


def test_unknown_policy_class() -> None:
    with pytest.raises(ValueError, match=r"Class com.x.Nope could not be found\."):
        load_policy("com.x.Nope", {})
    with pytest.raises(ValueError, match="tests.unit.test_mirror_parts.DefaultTopicFilter is not an instance of "
                                         "connectors.mirror.policy.ReplicationPolicy"):
        load_policy("tests.unit.test_mirror_parts.DefaultTopicFilter", {})


def test_filters_full_match_and_defaults() -> None:
    f = DefaultTopicFilter()
    f.configure({})
    assert f.should_replicate_topic("orders") and not f.should_replicate_topic("mm2-offsets.A.internal")
    # Kafka 4.0's default exclude (KIP-1074): user topics ending in .internal / -internal are replicated.
    assert f.should_replicate_topic("x.internal") and f.should_replicate_topic("x-internal")
    assert not f.should_replicate_topic("a.replica") and not f.should_replicate_topic("__consumer_offsets")
    g = DefaultTopicFilter(["ord"], [])
    assert not g.should_replicate_topic("orders"), "whole-name match"
    assert not DefaultTopicFilter([], []).should_replicate_topic("x"), "empty list matches nothing"
    with pytest.raises(ValueError, match="invalid regular expression"):
        compile_list(["(unclosed"])


def test_cycle_detection_and_selection() -> None:
    sel = TopicSelector(DefaultReplicationPolicy(), DefaultTopicFilter([".*"], DEFAULT_TOPICS_EXCLUDE), "B")
    assert sel.should_replicate("orders")
    assert not sel.should_replicate("B.orders"), "came from the target: a cycle"
    assert not sel.should_replicate("C.B.orders")
    assert sel.should_replicate("C.orders")
    assert sel.should_replicate("heartbeats") and sel.should_replicate("C.heartbeats")
    assert not sel.should_replicate("mm2-offset-syncs.B.internal")


def test_sync_writer_rules() -> None:
    sent: list[OffsetSync] = []
    w = OffsetSyncWriter(sent.append, max_lag=3)
    w.record("t", 0, 0, 100)  # first record: immediate
    w.record("t", 0, 1, 101)  # held back
    w.record("t", 0, 2, 102)
    assert [s.upstream_offset for s in sent] == [0]
    w.record("t", 0, 3, 103)  # lag 103-(100+1) = 2 < 3: held
    w.record("t", 0, 4, 104)  # lag 3: immediate
    w.record("t", 0, 7, 105)  # upstream gap: immediate
    w.record("t", 0, 8, 107)  # downstream discontinuity: immediate
    w.record("t", 0, 9, 108)  # held back
    assert [(s.upstream_offset, s.downstream_offset) for s in sent] == [(0, 100), (4, 104), (7, 105), (8, 107)]
    w.flush_pending()
    assert sent[-1] == OffsetSync("t", 0, 9, 108)
    w.flush_pending()
    assert len(sent) == 5, "nothing pending twice"


def test_task_split_round_robin() -> None:
    c = MirrorSourceConnector()
    c.cfg = type("C", (), {"__getitem__": lambda self, k: True})()  # only "enabled" is read
    c.raw = {"x": "y"}
    c._partitions = {"a": 3, "b-x": 2}
    configs = c.task_configs(2)
    assert [cfg["task.assigned.partitions"] for cfg in configs] == ["a-0,a-2,b-x-1", "a-1,b-x-0"]
    assert parse_partitions(configs[0]["task.assigned.partitions"]) == [("a", 0), ("a", 2), ("b-x", 1)]
    assert len(c.task_configs(10)) == 5


def test_connect_per_connector_overrides_stay_out_of_mm2_clients() -> None:
    """`producer.override.*` is Connect's (the worker applies it); MM2's `producer.*` layering must not
    hand it to librdkafka, which refuses unknown properties (the Java client only ignores them)."""
    from connectors.mirror.client_config import client_settings

    raw = {"target.cluster.bootstrap.servers": "b:9092", "producer.override.max.request.size": "3000000",
           "producer.linger.ms": "5"}
    conf = client_settings(raw, "target", "producer")
    assert conf["linger.ms"] == "5" and not any(k.startswith("override.") for k in conf)


def test_task_count_stops_at_what_one_worker_fits(caplog: pytest.LogCaptureFixture) -> None:
    """MirrorSourceConnector.taskConfigs takes min(tasks.max, partitions); past MAX_STREAMING_TASKS the
    partitions are dealt over that many tasks instead (500 tasks exhaust a process's client slots)."""
    c = MirrorSourceConnector()
    c.cfg = type("C", (), {"__getitem__": lambda self, k: True})()
    c.raw = {}
    c._partitions = {f"t{i}": 4 for i in range(500)}
    with caplog.at_level("WARNING"):
        configs = c.task_configs(1000)
    assert len(configs) == MAX_STREAMING_TASKS
    assert {len(cfg["task.assigned.partitions"].split(",")) for cfg in configs} == {2000 // MAX_STREAMING_TASKS}
    assert "tasks.max=1000 over 2000 partition(s) would start 1000 tasks" in caplog.text
