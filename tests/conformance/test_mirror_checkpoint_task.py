"""Ported from Kafka's MirrorCheckpointTaskTest (translation and checkpoint cases), on the task's
decisions (connectors.mirror.group_checkpoints) without clients, as Kafka's test uses a fake store."""

from __future__ import annotations

import pytest

from connectors.mirror.formats import Checkpoint, OffsetSync
from connectors.mirror.group_checkpoints import GroupCheckpoints
from connectors.mirror.offset_sync_store import OffsetSyncStore
from connectors.mirror.policy import DefaultReplicationPolicy
from pyconnect.kafka.admin import Committed


def store_with(*syncs: tuple[str, int, int, int]) -> OffsetSyncStore:
    store = OffsetSyncStore()
    for topic, partition, up, down in syncs:
        store.add(OffsetSync(topic, partition, up, down))
    store.start()
    return store


def task(store: OffsetSyncStore | None = None, last: dict[str, dict[tuple[str, int], Checkpoint]] | None = None,
         source: str = "source1", target: str = "target2") -> GroupCheckpoints:
    return GroupCheckpoints(source, target, DefaultReplicationPolicy(), store or store_with(), last)


@pytest.mark.kafka("MirrorCheckpointTaskTest.testDownstreamTopicRenaming")
def test_downstream_topic_renaming() -> None:
    t = task()
    assert t.remote_topic("topic3") == "source1.topic3"
    assert t.remote_topic("target2.topic3") == "topic3", "a topic coming home gets its original name"
    assert t.remote_topic("source6.topic7") == "source1.source6.topic7"


@pytest.mark.kafka("MirrorCheckpointTaskTest.testCheckpoint")
def test_checkpoint() -> None:
    t = task(store_with(("topic1", 2, 3, 4), ("target2.topic5", 6, 7, 8)))
    cp1 = t.checkpoint("group9", "topic1", 2, Committed(10))
    assert cp1 == Checkpoint("group9", "source1.topic1", 2, 10, 5, "")
    record = t.record(cp1, "source1.checkpoints.internal", 123)
    assert record.source_partition["group"] == "group9" and record.timestamp == 123
    assert record.topic == "source1.checkpoints.internal" and record.partition == 0
    cp2 = t.checkpoint("group11", "target2.topic5", 6, Committed(12))
    assert cp2 == Checkpoint("group11", "topic5", 6, 12, 9, "")
    cp3 = t.checkpoint("group13", "target2.topic5", 6, Committed(7))
    assert cp3 == Checkpoint("group13", "topic5", 6, 7, 8, "")
    assert t.record(cp3, "x", 234).timestamp == 234


@pytest.mark.kafka("MirrorCheckpointTaskTest.testSyncOffset")
def test_sync_offset() -> None:
    t = task(last={
        "consumer1": {("topic1", 0): Checkpoint("consumer1", "topic1", 0, 200, 101, "metadata")},
        "consumer2": {("topic2", 0): Checkpoint("consumer2", "topic2", 0, 100, 51, "metadata")},
    })
    idle = {"consumer1": {("topic1", 0): Committed(100)}, "consumer2": {("topic2", 0): Committed(50)}}
    out = t.offsets_to_sync(idle)
    assert out["consumer1"][("topic1", 0)].offset == 101
    assert out["consumer2"][("topic2", 0)].offset == 51
    assert out["consumer1"][("topic1", 0)].metadata == "metadata", "the commit metadata travels along"


@pytest.mark.kafka("MirrorCheckpointTaskTest.testSyncOffsetForTargetGroupWithNullOffsetAndMetadata")
def test_sync_offset_for_target_group_with_null_offset_and_metadata() -> None:
    """Other clients (e.g. Sarama) may reset a target group's offset to -1: no committed offset."""
    t = task(last={"consumer": {("topic", 0): Checkpoint("consumer", "topic", 0, 200, 101, "metadata")}})
    out = t.offsets_to_sync({"consumer": {("topic", 0): None}})
    assert out["consumer"][("topic", 0)].offset == 101


@pytest.mark.kafka("MirrorCheckpointTaskTest.testNoCheckpointForTopicWithoutOffsetSyncs")
def test_no_checkpoint_for_topic_without_offset_syncs() -> None:
    t = task(store_with(("topic1", 0, 3, 4)))
    assert t.checkpoint("group9", "topic1", 1, Committed(10)) is None
    assert t.checkpoint("group9", "topic1", 0, Committed(10)) is not None


@pytest.mark.kafka("MirrorCheckpointTaskTest.testNoCheckpointForTopicWithNullOffsetAndMetadata")
def test_no_checkpoint_for_topic_with_null_offset_and_metadata() -> None:
    t = task(store_with(("topic1", 0, 1, 3)))
    assert t.checkpoint("g1", "topic1", 0, None) is None


@pytest.mark.kafka("MirrorCheckpointTaskTest.testCheckpointRecordsMonotonicIfStoreRewinds")
def test_checkpoint_records_monotonic_if_store_rewinds() -> None:
    """Java's store drops syncs and then translates the same offset lower; ours keeps them, so the
    lower translation is made by a store that has fewer syncs (as after a restart)."""
    tp, remote = ("topic1", 0), ("source1.topic1", 0)
    t = task(store_with(("topic1", 0, 11, 4), ("topic1", 0, 12, 5)))
    first = t.for_group("g1", {tp: Committed(13)})
    assert first[remote].downstream_offset == 6
    t.emitted(first)
    t.store = store_with(("topic1", 0, 11, 4), ("topic1", 0, 17, 10))
    assert t.store.translate("topic1", 0, 13) == 5, "the store translates the same offset lower"
    assert remote not in t.for_group("g1", {tp: Committed(13)}), "but no checkpoint goes backwards"
    assert remote in t.for_group("g1", {tp: Committed(12)}), "an upstream rewind is emitted"


@pytest.mark.kafka("MirrorCheckpointTaskTest.testCheckpointsTaskRestartUsesExistingCheckpoints")
def test_checkpoints_task_restart_uses_existing_checkpoints() -> None:
    t1p0, remote = ("t1", 0), ("source1.t1", 0)
    t = task(store_with(*(("t1", 0, i, i) for i in range(100, 301, 100))))
    checkpoints = t.for_group("group1", {t1p0: Committed(250)})
    assert checkpoints == {remote: Checkpoint("group1", "source1.t1", 0, 250, 201, "")}
    # Restarted with other syncs, and the checkpoints loaded from the checkpoints topic.
    restarted = task(store_with(*(("t1", 0, i, i) for i in range(175, 476, 100))), {"group1": checkpoints})
    assert restarted.store.translate("t1", 0, 250) == 176
    assert restarted.for_group("group1", {t1p0: Committed(250)}) == {}, "176 is behind the loaded 201"
    # Java's sparse store has dropped 275 here and answers 176 for 370; ours still has it: 276 > 201.
    assert restarted.for_group("group1", {t1p0: Committed(370)})[remote].downstream_offset == 276
    assert restarted.for_group("group1", {t1p0: Committed(400)}) == {
        remote: Checkpoint("group1", "source1.t1", 0, 400, 376, "")}


def test_checkpoints_carry_the_groups_commit_metadata() -> None:
    """A checkpoint carries the upstream commit's metadata, as Java's does."""
    t = task(store_with(("topic1", 0, 0, 0)))
    assert t.checkpoint("g", "topic1", 0, Committed(0, "app=orders")) == Checkpoint(
        "g", "source1.topic1", 0, 0, 0, "app=orders")
    decoded = Checkpoint.decode(*(lambda c: (c.key(), c.value()))(Checkpoint("g", "t", 0, 1, 2, "app=orders")))
    assert decoded.metadata == "app=orders"


def test_offsets_to_sync_skip_active_groups_and_never_move_backwards() -> None:
    cps = {g: {("t", 0): Checkpoint(g, "t", 0, 10, 10, "")} for g in ("absent", "idle-behind", "idle-ahead", "busy")}
    t = task(last=cps)
    out = t.offsets_to_sync({"idle-behind": {("t", 0): Committed(5)}, "idle-ahead": {("t", 0): Committed(20)}},
                            active=frozenset({"busy"}))
    assert set(out) == {"absent", "idle-behind"}
