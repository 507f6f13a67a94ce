"""Idle cost guard: a dedicated MirrorMaker process replicating caught-up partitions with no traffic
must stay cheap, whatever the partition count (no per-partition work in the idle loop).

The worker's CPU is its own process's cpu times (psutil) over a window, not the machine's."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from pyconnect.kafka.config import to_librdkafka
from pyconnect.testing.brokers import Broker
from tests.harness.own_broker import start_own_broker
from tests.harness.workers import wait_for
from tests.test_mirror_topologies import MirrorMakerProcess

IDLE_CORES_MAX = 0.1


@pytest.fixture
def pair() -> Iterator[tuple[Broker, Broker]]:
    """Two fresh brokers: the measurement sees only this mirror's topics and internal state."""
    a, b = start_own_broker("A"), start_own_broker("B")
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()


def mm2_properties(a: Broker, b: Broker) -> str:
    lines = ["clusters = A, B", f"A.bootstrap.servers = {a.bootstrap}", f"B.bootstrap.servers = {b.bootstrap}",
             "A->B.enabled = true", "A->B.topics = idle-.*", "refresh.topics.interval.seconds = 5"]
    lines += [f"{k} = 1" for k in ("replication.factor", "checkpoints.topic.replication.factor",
                                   "heartbeats.topic.replication.factor", "offset-syncs.topic.replication.factor",
                                   "offset.storage.replication.factor", "status.storage.replication.factor",
                                   "config.storage.replication.factor")]
    for alias, broker in (("A", a), ("B", b)):
        lines += [f"{alias}.{k} = {v}" for k, v in broker.client_overrides.items()]
        lines += [f"{alias}.{role}.{k} = {v}" for k, v in broker.client_overrides.items()
                  for role in ("producer", "consumer")]
    return "\n".join(lines) + "\n"


def seed(a: Broker, topics: list[str]) -> None:
    """Topics of 4 partitions with one record in each (every partition has replication state)."""
    admin = AdminClient({"bootstrap.servers": a.bootstrap})
    for i in range(0, len(topics), 100):
        for fut in admin.create_topics([NewTopic(t, 4, 1) for t in topics[i:i + 100]], request_timeout=120).values():
            fut.result(180)
    producer = Producer({"bootstrap.servers": a.bootstrap, **to_librdkafka(a.client_overrides, "producer")})
    for t in topics:
        for p in range(4):
            producer.produce(t, b"v", partition=p)
        producer.poll(0)
    assert producer.flush(120) == 0


def copied(b: Broker, topics: list[str], expect: int) -> bool:
    consumer = Consumer({"bootstrap.servers": b.bootstrap, "group.id": f"idle-{time.monotonic_ns()}",
                         **to_librdkafka(b.client_overrides, "consumer")})
    consumer.assign([TopicPartition(f"A.{t}", p, 0) for t in topics for p in range(4)])
    seen, deadline = 0, time.monotonic() + 5
    try:
        while seen < expect and time.monotonic() < deadline:
            seen += sum(1 for m in consumer.consume(10000, 0.2) if m.error() is None)
    finally:
        consumer.close()
    return seen >= expect


def idle_cores(pair: tuple[Broker, Broker], tmp_path: Path, topics: int, window: float) -> float:
    a, b = pair
    names = [f"idle-{i:04d}" for i in range(topics)]
    seed(a, names)
    path = tmp_path / "mm2.properties"
    path.write_text(mm2_properties(a, b))
    mm = MirrorMakerProcess(path, tmp_path / "mm.log")
    try:
        wait_for(lambda: copied(b, names, 4 * topics), 300, "every partition's record on B", interval=0.5)
        time.sleep(3)  # past the first commits and checkpoints of the start-up (not a synchronisation)
        proc = psutil.Process(mm.proc.pid)
        before, started = proc.cpu_times(), time.monotonic()
        time.sleep(window)  # the measurement window
        after, wall = proc.cpu_times(), time.monotonic() - started
        rss = proc.memory_info().rss / 2**20
        assert mm.proc.poll() is None, "the worker exited"
    finally:
        mm.stop()
    cores = (after.user + after.system - before.user - before.system) / wall
    print(f"\nIDLE: {4 * topics} partitions, worker {cores:.3f} cores over {wall:.0f} s, "
          f"RSS {rss:.0f} MB")
    return cores


def test_idle_worker_is_cheap_at_40_partitions(pair: tuple[Broker, Broker], tmp_path: Path) -> None:
    assert idle_cores(pair, tmp_path, 10, 10) <= IDLE_CORES_MAX


@pytest.mark.slow
def test_idle_worker_is_cheap_at_1000_partitions(pair: tuple[Broker, Broker], tmp_path: Path) -> None:
    assert idle_cores(pair, tmp_path, 250, 30) <= IDLE_CORES_MAX
