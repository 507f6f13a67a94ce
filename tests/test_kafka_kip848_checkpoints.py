"""Checkpoints and group offset sync for a consumer group of Kafka 4's new protocol (KIP-848,
`group.protocol=consumer`), on two Apache Kafka 4.x clusters (pyconnect.testing.kafka_jvm; Tansu has no such
groups). MirrorCheckpointConnector must list the group, read its commits, translate them through the offset syncs
and commit them to the same group on the target while it has no members there; a KIP-848 consumer on the target
then goes on from there, and while it is a member its own commits are never overwritten.

Kafka's behaviour followed: MirrorCheckpointTask.syncGroupOffset writes only to groups absent or EMPTY on the
target (MirrorConnectorsIntegrationBaseTest.testReplication's group offset sync, with a consumer group of the new
protocol instead of a classic one).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, Message, TopicPartition
from confluent_kafka.admin import AdminClient

from pyconnect.testing.kafka_jvm import KafkaBroker
from tests.harness.checkpoints import checkpoint_config, latest_checkpoints
from tests.harness.connectors import all_running
from tests.harness.kafka_io import create_topic, produce_many, read_to_end
from tests.harness.kafka_pair import kafka_pair
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, wait_for

RECORDS, PARTITIONS, READ = 400, 2, 250


@pytest.fixture(scope="module")
def clusters() -> Iterator[tuple[KafkaBroker, KafkaBroker]]:
    with kafka_pair("kip848") as pair:
        yield pair


def new_protocol_consumer(bootstrap: str, group: str) -> Consumer:
    return Consumer({"bootstrap.servers": bootstrap, "group.id": group, "group.protocol": "consumer",
                     "enable.auto.commit": False, "auto.offset.reset": "earliest"})


def consume(consumer: Consumer, count: int, timeout: float = 60.0) -> list[Message]:
    """The next `count` records `consumer` (subscribed) receives, under a deadline."""
    got: list[Message] = []
    deadline = time.monotonic() + timeout
    while len(got) < count:
        assert time.monotonic() < deadline, f"consumed {len(got)} of {count}"
        got += [m for m in consumer.consume(count - len(got), 0.5) if m.error() is None]
    return got


def committed(bootstrap: str, group: str) -> dict[tuple[str, int], int]:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])
    result = next(iter(futures.values())).result(30)
    return {(tp.topic, tp.partition): tp.offset for tp in result.topic_partitions or [] if tp.offset >= 0}


def synced_as_checkpointed(b: KafkaBroker, group: str, remote: str) -> dict[tuple[str, int], int]:
    """The group's offsets on B once there is a checkpoint for every partition and they equal the latest ones'
    downstream offsets; else {} (for polling)."""
    checkpoints = latest_checkpoints(b.bootstrap)
    wanted = {(remote, p): checkpoints[(group, remote, p)].downstream_offset
              for p in range(PARTITIONS) if (group, remote, p) in checkpoints}
    return wanted if len(wanted) == PARTITIONS and committed(b.bootstrap, group) == wanted else {}


def group_type(bootstrap: str, group: str) -> str:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    listed = admin.list_consumer_groups().result(30)
    found = [g for g in listed.valid if g.group_id == group]
    return getattr(getattr(found[0], "type", None), "name", "?") if found else "absent"


def test_a_new_protocol_group_is_checkpointed_synced_and_resumed(clusters: tuple[KafkaBroker, KafkaBroker],
                                                                 tmp_path: Path, unique: str) -> None:
    """A KIP-848 group reads 250 of 400 records on A and commits; B gets its checkpoints and, the group being
    absent there, its translated offsets; a KIP-848 consumer of that group on B resumes at those offsets, and
    its own later commits stay (the sync leaves a group with members alone)."""
    a, b = clusters
    topic, group = f"orders-{unique}", f"g848-{unique}"
    create_topic(a.bootstrap, topic, PARTITIONS)
    produce_many(a.bootstrap, topic, RECORDS, PARTITIONS)
    source = new_protocol_consumer(a.bootstrap, group)
    source.subscribe([topic])
    consume(source, READ)
    source.commit(asynchronous=False)
    upstream = committed(a.bootstrap, group)
    kind = group_type(a.bootstrap, group)
    source.close()
    cluster = Cluster(b, tmp_path, f"kip848-{unique}")
    try:
        (w,) = cluster.start(1)
        began = time.monotonic()
        assert w.request("PUT", "/connectors/ms/config", mirror_source(a, b, {"topics": topic})).status_code == 201
        cp = checkpoint_config(a, b, topic, group, sync_group_offsets_enabled="true",
                               sync_group_offsets_interval_seconds="1")
        assert w.request("PUT", "/connectors/cp/config", cp).status_code == 201
        wait_for(lambda: len(read_to_end(b.bootstrap, f"A.{topic}")) >= RECORDS, 90, "every record copied to B")
        synced = wait_for(lambda: synced_as_checkpointed(b, group, f"A.{topic}"), 90,
                          "the group's checkpoints on B and its offsets synced to them")
        sync_s = time.monotonic() - began
        wait_for(lambda: all_running(w, "cp", 1), 30, "the checkpoint task RUNNING")
        resumed = resume_on_target(b, group, f"A.{topic}", synced)
    finally:
        cluster.close()
    print(f"\nKIP-848 GROUP (Kafka {a.version}, type {kind} on A): committed {upstream} on A; checkpoints and offsets "
          f"{synced} on B {sync_s:.1f} s after the flows started; a new-protocol consumer on B resumed at {resumed}")


def resume_on_target(b: KafkaBroker, group: str, remote: str, synced: dict[tuple[str, int], int]
                     ) -> dict[int, int]:
    """A KIP-848 consumer of `group` on B starts at the synced offsets; while it is a member its own commit
    (behind the checkpoints) is kept through several sync intervals. Returns each partition's first offset read."""
    consumer = new_protocol_consumer(b.bootstrap, group)
    consumer.subscribe([remote])
    try:
        left = sum(RECORDS // PARTITIONS - o for (_t, _p), o in synced.items())
        records = consume(consumer, left)
        first = {p: min(m.offset() or 0 for m in records if m.partition() == p) for p in range(PARTITIONS)
                 if synced[(remote, p)] < RECORDS // PARTITIONS}  # a partition read to its end has nothing left
        assert first == {p: synced[(remote, p)] for p in first}, (first, synced)
        # Behind the checkpoints, so that only the rule about members (not "never backwards") keeps it.
        mine = {(remote, p): synced[(remote, p)] - 10 for p in range(PARTITIONS)}
        consumer.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in mine.items()], asynchronous=False)
        deadline = time.monotonic() + 4  # four sync intervals with a member in the group
        while time.monotonic() < deadline:
            assert committed(b.bootstrap, group) == mine, "the sync overwrote a group with members"
            consumer.poll(0.5)
        return first
    finally:
        consumer.close()
