"""replikafka's MirrorCheckpointConnector on the offset syncs Java's MirrorSourceConnector writes never skips a
record, on two Apache Kafka 4.x nodes.

Java's MirrorSourceConnector (in a Java Connect worker, A->B, offset.lag.max 100) copies a 3-partition topic
and writes the offset syncs; a replikafka worker runs our MirrorCheckpointConnector (checkpoints and group
offset sync every second) on them. Our task starts before Java's connector is created, so before the
offset-syncs topic exists: Kafka's checkpoint task waits up to 30 s for it (KafkaBasedLog), ours must too and
stay RUNNING. Traffic comes in bursts of varied sizes; right after each burst (before Java has synced its
tail) one group commits at A's end and another inside the burst, and the next burst waits for our first
checkpoint of the first; at the end one more group commits at the end. Every checkpoint ever written, and
every group offset synced to B, is at or below the group's true position on B (never a skip); the test prints
how many records each group would re-read after a fail-over.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, TopicPartition
from confluent_kafka.admin import AdminClient

from pyconnect.testing.kafka_jvm import KafkaBroker
from tests.harness.brokers import free_port
from tests.harness.checkpoints import checkpoint_config
from tests.harness.java_peers import JavaPeer, start_java_connect
from tests.harness.kafka_io import create_topic, produce_many, topic_names
from tests.harness.kafka_pair import kafka_pair
from tests.harness.mirror import mirror_source
from tests.harness.mm2_compat import Commits, Truth, checkpoint_records, commit_groups, latest_checkpoints, wait_copied
from tests.harness.workers import WorkerProcess, wait_for, worker_properties

TOPIC, REMOTE, PARTITIONS, SYNCS = "payments", "A.payments", 3, "mm2-offset-syncs.B.internal"
SEED = {"orj-seed": dict.fromkeys(range(PARTITIONS), 0)}  # committed at the start, before any record
BURSTS = (300, 3, 151, 1, 420, 60)  # records per burst, spread over the partitions
TIMEOUT = 150.0  # a JVM start, its herders' rebalances and the first copy on a loaded 2-core machine


@pytest.fixture(scope="module")
def clusters() -> Iterator[tuple[KafkaBroker, KafkaBroker]]:
    with kafka_pair("ours-reads-java", version="4") as pair:  # the Java peers are 4.x
        yield pair


BYTES = {"key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
         "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter"}


def start_workers(a: KafkaBroker, b: KafkaBroker, directory: Path) -> tuple[JavaPeer, WorkerProcess]:
    """A Java Connect worker and a replikafka worker on B. Our MirrorCheckpointConnector is created first, then
    Java's MirrorSourceConnector (offset.lag.max 100, the default): our task starts before the offset-syncs
    topic exists, as it may when the MM2 connectors are created together, and waits for Java to create it."""
    ours = WorkerProcess(directory, worker_properties(b, "ours-checkpoints", free_port()), "ours-checkpoints")
    ours.start()  # it starts while Java's worker does
    try:
        java = start_java_connect(b, directory / "java-connect", "java-source")
    except BaseException:
        ours.terminate()
        raise
    try:
        ours.wait_ready()
        config = checkpoint_config(a, b, TOPIC, "orj-.*", sync_group_offsets_enabled="true",
                                   sync_group_offsets_interval_seconds="1") | BYTES
        answer = ours.request("PUT", "/connectors/ours-checkpoint/config", config)
        assert answer.status_code in (200, 201), answer.text
        waiting = f"offset-syncs topic {SYNCS} does not exist on cluster A yet"  # our task's INFO line
        wait_for(lambda: waiting in ours.log_path.read_text(errors="replace"), 60,
                 "our checkpoint task waiting for the offset-syncs topic", interval=0.2)
        assert SYNCS not in topic_names(a.bootstrap), "the offset-syncs topic exists before Java's connector"
        answer = java.request("PUT", "/connectors/java-source/config",
                              mirror_source(a, b, {"topics": TOPIC, "tasks.max": "1", **BYTES}))
        assert answer.status_code in (200, 201), answer.text
        states = wait_for(lambda: (found := task_states(ours)) in (["RUNNING"], ["FAILED"]) and found, 90,
                          "our checkpoint task RUNNING or FAILED", interval=0.5)
        status = ours.request("GET", "/connectors/ours-checkpoint/status").text
        assert states == ["RUNNING"], f"our checkpoint task did not wait for the offset-syncs topic: {status}"
    except BaseException:
        ours.terminate()
        java.stop()
        raise
    return java, ours


def task_states(worker: WorkerProcess) -> list[str]:
    answer = worker.request("GET", "/connectors/ours-checkpoint/status")
    return [task["state"] for task in answer.json().get("tasks", [])] if answer.status_code == 200 else []


def ends(bootstrap: str) -> dict[int, int]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "orj-ends", "enable.auto.commit": False})
    try:
        return {p: consumer.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=10)[1] for p in range(PARTITIONS)}
    finally:
        consumer.close()


def bursts(a: KafkaBroker, b: KafkaBroker) -> Commits:
    """The traffic and the commits; each round waits for our first checkpoint of its end group."""
    rng, written, commits = random.Random(7), 0, dict(SEED)
    for round_, size in enumerate(BURSTS):
        before = ends(a.bootstrap)
        produce_many(a.bootstrap, TOPIC, size, PARTITIONS, start=written)
        written += size
        after = ends(a.bootstrap)
        inside = {p: rng.randrange(before[p], after[p]) for p in after if after[p] > before[p]}
        group = f"orj-burst{round_}-end"
        commits[group], commits[f"orj-burst{round_}-inside"] = after, inside
        commit_groups(a.bootstrap, TOPIC, {group: after, f"orj-burst{round_}-inside": inside})
        wait_for(lambda: any(key[0] == group for key in latest_checkpoints(b.bootstrap)), TIMEOUT,  # noqa: B023
                 f"our first checkpoint of {group}", interval=0.5)  # called before the loop moves on
    commits["orj-end"] = ends(a.bootstrap)
    commit_groups(a.bootstrap, TOPIC, {"orj-end": commits["orj-end"]})
    return commits


def synced_offsets(bootstrap: str, groups: list[str]) -> dict[str, dict[int, int]]:
    """The groups' committed offsets on B's copy (our group offset sync wrote them)."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    out = {}
    for group in groups:
        request = [ConsumerGroupTopicPartitions(group, [TopicPartition(REMOTE, p) for p in range(PARTITIONS)])]
        answer = admin.list_consumer_group_offsets(request)[group].result(30)
        out[group] = {tp.partition: tp.offset for tp in answer.topic_partitions if tp.offset >= 0}
    return out


def test_our_checkpoints_on_java_offset_syncs_never_skip(clusters: tuple[KafkaBroker, KafkaBroker],
                                                        tmp_path: Path) -> None:
    # Follows MirrorCheckpointTaskTest.testCheckpoint and OffsetSyncStoreTest.testConsistentlySpacedSyncs' rule
    # (a translation is never past the true position), end to end on Java MM2's own syncs.
    a, b = clusters
    create_topic(a.bootstrap, TOPIC, PARTITIONS)
    commit_groups(a.bootstrap, TOPIC, SEED)  # a group for our connector to give a task before any traffic
    began = time.monotonic()
    java, worker = start_workers(a, b, tmp_path)
    try:
        print(f"Java Connect and our worker started in {time.monotonic() - began:.1f} s")
        commits = bursts(a, b)
        print(f"bursts done at {time.monotonic() - began:.1f} s")
        copy = wait_copied(a.bootstrap, b.bootstrap, TOPIC, REMOTE, TIMEOUT)
        wanted = {(g, REMOTE, p) for g, offsets in commits.items() for p in offsets}
        wait_for(lambda: wanted <= latest_checkpoints(b.bootstrap).keys(), TIMEOUT,
                 "our checkpoints of every committed group and partition", interval=1.0)

        def all_synced() -> dict[str, dict[int, int]]:
            found = synced_offsets(b.bootstrap, list(commits))
            return found if all(found[g].keys() == o.keys() for g, o in commits.items()) else {}
        synced = wait_for(all_synced, TIMEOUT, "every group's offsets synced to B", interval=1.0)
        print(f"checkpoints and group offsets synced at {time.monotonic() - began:.1f} s")
        assert task_states(worker) == ["RUNNING"], worker.log_tail()
    finally:
        worker.terminate()
        java.stop()
    check_never_skips(commits, copy, b, synced)


def check_never_skips(commits: Commits, copy: Truth, b: KafkaBroker, synced: dict[str, dict[int, int]]) -> None:
    every = checkpoint_records(b.bootstrap)
    first: dict[tuple[str, int], int] = {}  # (group, partition) -> re-reads at its first checkpoint
    last: dict[tuple[str, int], int] = {}  # ... at its last one
    for cp in every:  # in the order written: a burst group's first checkpoint is the one right after its burst
        true = copy.position(cp.partition, cp.upstream_offset)
        assert cp.downstream_offset <= true, f"{cp} skips {cp.downstream_offset - true} record(s): true {true}"
        assert cp.upstream_offset == commits[cp.group][cp.partition], cp
        first.setdefault((cp.group, cp.partition), true - cp.downstream_offset)
        last[(cp.group, cp.partition)] = true - cp.downstream_offset
    for group, offsets in synced.items():
        for p, offset in offsets.items():
            assert offset <= copy.position(p, commits[group][p]), (group, p, offset, commits[group][p])
    print(f"{len(every)} checkpoints written, none past the true position ({sum(copy.upstream_ends.values())} "
          f"records copied); group offsets synced to B: {synced}")
    for name, rereads in (("first", first), ("last", last)):
        for kind in ("-end", "-inside"):
            values = [n for (group, _p), n in rereads.items() if group.endswith(kind)]
            print(f"re-reads at each partition's {name} checkpoint, groups committed at a burst's "
                  f"{kind[1:]}: {sum(values)} in all, at most {max(values)}, per partition {values}")
