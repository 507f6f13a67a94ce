"""The independent Java MM2 state codec (tests/harness/java_mm2_state.py) checked against Kafka's own
tests and known bytes, then the project's encoders checked against it."""

from __future__ import annotations

import pytest

from tests.harness import java_mm2_state as java


def test_hashmap_order_of_mm2_partition_maps() -> None:
    """Jackson writes a HashMap in bucket order: MM2's source partition key is
    `{"cluster":..,"partition":..,"topic":..}` (as found in real mm2-offsets topics)."""
    assert list(java.source_partition("A", "t", 0)) == ["cluster", "partition", "topic"]
    assert list(java.checkpoint_partition("g", "A.t", 0)) == ["partition", "topic", "group"]
    assert list(java.heartbeat_partition("A", "B")) == ["sourceClusterAlias", "targetClusterAlias"]
    assert java.offset_key("MirrorSourceConnector", java.source_partition("A", "orders", 3)) == \
        b'["MirrorSourceConnector",{"cluster":"A","partition":3,"topic":"orders"}]'
    assert java.java_string_hash("topic") == 110546223  # "topic".hashCode() in Java


def test_offsets_topic_latest_wins_and_tombstones() -> None:
    """KafkaOffsetBackingStore: the latest value per key bytes; a null value removes the key; a key in
    another byte order is another key (OffsetStorageReaderImpl looks keys up by their bytes)."""
    topic = java.OffsetsTopic()
    key = java.offset_key(java.SOURCE_CONNECTOR, java.source_partition("A", "t", 0))
    topic.apply(key, java.offset_value(5))
    topic.apply(key, java.offset_value(9))
    assert topic.resume_position("A", "t", 0) == 10
    topic.apply(b'["MirrorSourceConnector",{"topic":"t","partition":0,"cluster":"A"}]', java.offset_value(99))
    assert topic.resume_position("A", "t", 0) == 10
    topic.apply(key, None)
    assert topic.resume_position("A", "t", 0) is None


def test_maybe_queue_offset_syncs() -> None:
    """OffsetSyncWriterTest.testMaybeQueueOffsetSyncs."""
    writer = java.JavaOffsetSyncWriter(max_offset_lag=2, in_flight=1)
    writer.maybe_queue("topic", 0, 0, 1)
    assert ("topic", 0) not in writer.delayed and ("topic", 0) in writer.pending
    writer.maybe_queue("topic", 0, 1, 2)
    assert ("topic", 0) in writer.delayed


def test_fire_pending_offset_syncs() -> None:
    """OffsetSyncWriterTest.testFirePendingOffsetSyncs: one permit, the second sync waits for it."""
    writer = java.JavaOffsetSyncWriter(max_offset_lag=1, in_flight=1)
    writer.maybe_queue("topic", 0, 0, 100)
    writer.fire()
    assert len(writer.sent) == 1
    writer.maybe_queue("topic", 0, 2, 102)
    writer.fire()
    assert len(writer.sent) == 1


def test_promote_delayed_offset_syncs() -> None:
    """OffsetSyncWriterTest.testPromoteDelayedOffsetSyncs: the delayed sync replaces the pending one."""
    writer = java.JavaOffsetSyncWriter(max_offset_lag=50, in_flight=1)
    writer.maybe_queue("topic", 0, 0, 100)
    writer.maybe_queue("topic", 0, 1, 101)
    writer.promote()
    assert not writer.delayed
    assert list(writer.pending.values()) == [java.OffsetSync("topic", 0, 1, 101)]


def test_merging_over_a_copied_run() -> None:
    """A task copying 1,000 contiguous records with a commit every 250 sends the first record's sync,
    one per offset.lag.max (100) and the merged sync of each commit: far fewer than one per record."""
    writer = java.JavaOffsetSyncWriter()
    for offset in range(1000):
        writer.record("t", 0, offset, offset)
        writer.acknowledge()
        if offset % 250 == 249:
            writer.commit()
    upstream = [s.upstream_offset for s in writer.sent]
    assert upstream[0] == 0 and upstream == sorted(upstream) and len(upstream) < 30
    assert 999 in upstream, "the last commit sends the merged sync of the last record"


def test_checkpoint_and_sync_bytes() -> None:
    """Checkpoint.serializeValue: INT16 version 0, INT64 upstream, INT64 downstream, STRING metadata;
    OffsetSync: STRING topic + INT32 partition -> INT64, INT64."""
    cp = java.Checkpoint("g", "A.t", 1, 10, 12, "m")
    assert cp.value() == b"\x00\x00" + (10).to_bytes(8, "big") + (12).to_bytes(8, "big") + b"\x00\x01m"
    assert java.Checkpoint.decode(cp.key(), cp.value()) == cp
    sync = java.OffsetSync("t", 2, 7, 8)
    assert sync.key() == b"\x00\x01t\x00\x00\x00\x02"
    with pytest.raises(ValueError):
        java.OffsetSync.decode(sync.key() + b"x", sync.value())


def test_project_encodings_equal_java_bytes() -> None:
    """The project's offsets key, offset sync and checkpoint bytes equal the independent codec's."""
    from connectors.mirror.formats import Checkpoint, OffsetSync
    from connectors.mirror.source_task import source_partition
    from pyconnect.storage.offset_store import offset_record

    key, value = offset_record("MirrorSourceConnector", source_partition("A", "orders", 3), {"offset": 41})
    assert key == java.offset_key(java.SOURCE_CONNECTOR, java.source_partition("A", "orders", 3))
    assert value == java.offset_value(41)
    ours = OffsetSync("orders", 3, 41, 40)
    assert (ours.key(), ours.value()) == (java.OffsetSync("orders", 3, 41, 40).key(),
                                          java.OffsetSync("orders", 3, 41, 40).value())
    cp = Checkpoint("g", "A.orders", 3, 41, 40, "meta")
    assert (cp.key(), cp.value()) == (java.Checkpoint("g", "A.orders", 3, 41, 40, "meta").key(),
                                      java.Checkpoint("g", "A.orders", 3, 41, 40, "meta").value())
