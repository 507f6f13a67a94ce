"""Take-over between a running Java MirrorMaker 2 and `replikafka mirror-maker` on the same mm2.properties, and
back: the state each leaves behind (source offsets in mm2-offsets.B.internal, offset syncs, checkpoints, the
group offsets synced to B) is the other's to continue from, written by the real Java program.

Three phases on two Apache Kafka 4.x nodes, A->B with checkpoints and group offset sync: Java MM2 copies the
first third of the records, replikafka (Java stopped) the second, Java again the third. Before each phase new
records are written and the consumer group commits on A at the topic's end. After each phase: every record is
on B (0 lost), no topic was copied again from the start (the copies beyond one per record, summed over the
phases, stay under one phase's records), and the group's offsets on B equal its offsets on A, never having
gone back between phases: at the end of B's copy, the translation of A's end.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, TopicPartition
from confluent_kafka.admin import AdminClient

from pyconnect.testing.kafka_jvm import KafkaBroker
from pyconnect.testing.parent_death import die_with_parent
from tests.harness.brokers import free_port
from tests.harness.java_peers import start_java_mirror_maker
from tests.harness.kafka_io import create_topic, produce_many, read_all
from tests.harness.kafka_pair import kafka_pair
from tests.harness.mirror import cluster_lines, mm2_settings
from tests.harness.workers import REPO, wait_for

PARTITIONS = 3
PER_PHASE = 300  # records written before each phase, spread over the partitions
PHASE_TIMEOUT = 180.0  # a JVM start, its herders' rebalances and the first copy on a loaded 2-core machine


@pytest.fixture(scope="module")
def clusters() -> Iterator[tuple[KafkaBroker, KafkaBroker]]:
    with kafka_pair("takeover", version="4") as pair:  # the Java peers are 4.x
        yield pair


def mm2_file(path: Path, a: KafkaBroker, b: KafkaBroker, topic: str, group: str) -> Path:
    """A->B for `topic` with checkpoints and group offset sync for `group` (every second), B->A off. An
    offset sync for every record: translations at the topic's end are then exact on both programs."""
    path.write_text(cluster_lines({"A": a, "B": b}) + mm2_settings({"A": a, "B": b}) + f"""
A->B.enabled = true
A->B.topics = {topic}
A->B.groups = {group}
B->A.enabled = false
A->B.sync.group.offsets.enabled = true
sync.group.offsets.interval.seconds = 1
refresh.groups.interval.seconds = 2
offset.lag.max = 0
listeners = http://127.0.0.1:{free_port()}
""")
    return path


def end_offsets(bootstrap: str, topic: str) -> dict[int, int]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "takeover-ends", "enable.auto.commit": False})
    try:
        return {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in range(PARTITIONS)}
    finally:
        consumer.close()


def commit_at_end(bootstrap: str, topic: str, group: str) -> None:
    """Commit `group`'s offsets on `topic` at each partition's end (a consumer that read everything)."""
    ends = end_offsets(bootstrap, topic)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        consumer.commit(offsets=[TopicPartition(topic, p, end) for p, end in ends.items()], asynchronous=False)
    finally:
        consumer.close()


def group_offsets(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    """`group`'s committed offsets on `topic` (partitions without one left out)."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    request = [ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p) for p in range(PARTITIONS)])]
    answer = admin.list_consumer_group_offsets(request)[group].result(30)
    return {tp.partition: tp.offset for tp in answer.topic_partitions if tp.offset >= 0}


class Replicator:
    """Start and stop one of the two programs on the file."""

    def __init__(self, name: str, start: Callable[[], Callable[[], object]]) -> None:
        self.name, self._start = name, start

    def __enter__(self) -> Replicator:
        self._stop = self._start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop()


def java(path: Path, directory: Path) -> Replicator:
    return Replicator("Java MM2", lambda: start_java_mirror_maker(path, directory).stop)


def ours(path: Path, directory: Path) -> Replicator:
    def start() -> Callable[[], object]:
        with open(directory / "replikafka-mm2.log", "ab") as log:  # noqa: PTH123 - the child keeps its own
            process = subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO,
                                       env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=log,
                                       stderr=subprocess.STDOUT, preexec_fn=die_with_parent())

        def stop() -> int:
            process.terminate()
            try:
                return process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
                return process.wait(10)
        return stop
    return Replicator("replikafka", start)


def copied(b: KafkaBroker, topic: str, want: int) -> Counter[bytes]:
    """How often each value is on B's copy of `topic` (read until `want` distinct values, or the deadline)."""
    def enough() -> Counter[bytes]:
        seen = Counter(value or b"" for _, _, _, value in read_all(b.bootstrap, f"A.{topic}", idle=1.0))
        return seen if len(seen) >= want else Counter()
    return wait_for(enough, PHASE_TIMEOUT, f"{want} distinct records on B", interval=1.0)


def synced_to_end(b: KafkaBroker, group: str, topic: str, who: str) -> dict[int, int]:
    """Wait until `group`'s offsets on B's copy of `topic` are at its end (the group committed at the end on A,
    and every record is copied: the end's translation, exact whatever the duplicates); those offsets."""
    def reached() -> dict[int, int]:
        offsets = group_offsets(b.bootstrap, group, f"A.{topic}")
        return offsets if offsets == end_offsets(b.bootstrap, f"A.{topic}") else {}
    return wait_for(reached, PHASE_TIMEOUT, f"{group}'s offsets on B at the end of A.{topic} under {who}",
                    interval=1.0)


def test_take_over_from_java_mm2_and_back(clusters: tuple[KafkaBroker, KafkaBroker], tmp_path: Path,
                                          unique: str) -> None:
    a, b = clusters
    topic, group = f"takeover-{unique}", f"takeover-group-{unique}"
    create_topic(a.bootstrap, topic, PARTITIONS)
    path = mm2_file(tmp_path / "mm2.properties", a, b, topic, group)
    history: list[dict[int, int]] = []
    for phase, replicator in enumerate((java(path, tmp_path), ours(path, tmp_path), java(path, tmp_path))):
        produce_many(a.bootstrap, topic, PER_PHASE, PARTITIONS, start=phase * PER_PHASE)
        commit_at_end(a.bootstrap, topic, group)
        began = time.monotonic()
        with replicator:
            values = copied(b, topic, (phase + 1) * PER_PHASE)
            copied_in = time.monotonic() - began
            synced = synced_to_end(b, group, topic, replicator.name)
        expected = {f"{topic}:{i}".encode() for i in range((phase + 1) * PER_PHASE)}
        assert set(values) == expected, f"{replicator.name}: lost {len(expected - set(values))} records"
        duplicates = sum(values.values()) - len(values)
        print(f"phase {phase + 1} ({replicator.name}): {len(values)} records on B {copied_in:.1f} s after the start, "
              f"{duplicates} duplicates in all, group offsets {synced}")
        assert duplicates < PER_PHASE, f"{replicator.name} copied the topic again: {duplicates} duplicates"
        assert not history or all(synced[p] >= history[-1][p] for p in synced), (history, synced)
        history.append(synced)
