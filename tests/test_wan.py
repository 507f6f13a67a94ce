"""One MirrorSource task with DEFAULT settings pulling from a source 50 ms away (100 ms RTT).

`fetch.sessions=auto` (the default) measures the round trip to the source (pyconnect/kafka/round_trip.py)
and opens one fetch session per 12.5 ms of it (connectors/mirror/session_sizing.py): 8-9 here, one on the LAN;
it connects them before it reports RUNNING.
The goal is issue-defined (Kafka has no such test); the placement follows MM2's recommendation (Apache
Kafka docs, connect/mirror: run MirrorMaker next to the target, consume across the link).

The source broker sits behind tests/harness/wan_proxy.py; the task (the real MirrorSourceTask under
the real SourceTaskRunner, as bench/mirror_source_bench.py drives it) copies a 20,000-record backlog
with the proxy's delay at 0 and at 50 ms each way, twice each, alternating: the better delayed rate (steady
clock, see FLOOR) must be >= FLOOR (0.7x, the issue's figure) the better no-delay rate, and the copy must be
byte-identical (key, value, headers, timestamp, partition and order). A task with ONE far partition reads it ahead with
several sessions (connectors/mirror/read_ahead.py): its copy must be exact too, across transaction gaps in
the offsets.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer

from connectors.mirror.session_sizing import LAN_RTT
from connectors.mirror.source_task import MirrorSourceTask
from pyconnect.kafka.round_trip import round_trip
from pyconnect.storage.log import MemoryLog, MemoryTopic
from pyconnect.storage.offset_store import OffsetStore
from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic, read_partitions
from tests.harness.mirror import task_runner, wait_running
from tests.harness.wan_proxy import FarBroker, start_far_tansu

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from mirror_source_bench import mirror_task  # noqa: E402

RECORDS, SIZE, PARTITIONS, ONE_WAY_MS = 20_000, 1000, 4, 50
# The issue asks for >= 0.7x. The rates are the bench's steady clock (from the first tenth of the records
# committed to the last, offsets committed every 20 ms): the clock from RUNNING counted a LAN copy's wait for its
# idempotent producer's id (librdkafka asks on a 500 ms timer, 0.5-1 s after the producer is created) and hid a
# far one's in its start-up, so on that clock a far copy read 2.98x the near one and the test could not fail.
# Measured with default settings, quiet machine: 0.95x and 1.10x; with one session (`fetch.sessions=1`, the
# default before "auto") 0.31x and 0.34x, which fail.
FLOOR = 0.7


@pytest.fixture
def far_source() -> Iterator[FarBroker]:
    far = start_far_tansu("wan-source", 0)
    yield far
    far.stop()


def fill(bootstrap: str, topic: str) -> None:
    """RECORDS distinct 1 KB records with keys and headers, round-robin over the partitions."""
    create_topic(bootstrap, topic, PARTITIONS)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(RECORDS):
        value = i.to_bytes(4, "big") + os.urandom(SIZE - 4)
        producer.produce(topic, value, key=b"k%d" % i, partition=i % PARTITIONS, headers=[("h", b"%d" % i)])
        if i % 1000 == 0:
            producer.poll(0)
    assert producer.flush(60) == 0


def copy_rate(far: FarBroker, target: Broker, topic: str, one_way_ms: float) -> float:
    """Records/s (steady clock) of one default-settings task copying `topic`'s backlog with the given one-way
    delay."""
    far.proxy.set_delay(0)  # filling is not what is measured
    fill(far.bootstrap, topic)
    far.proxy.set_delay(one_way_ms)
    timings: dict[str, float] = {}
    mirror_task(far.bootstrap, target.bootstrap, topic, RECORDS, PARTITIONS, consumer={}, producer={},
                timings=timings, flush_interval=0.02)
    return timings["steady"]


def test_far_source_keeps_its_rate_and_bytes(far_source: FarBroker, broker_b: Broker, unique: str) -> None:
    # Two copies each way, alternating, and the better of each: a burst of load from elsewhere on the
    # machine during one short copy would otherwise decide the ratio.
    pairs = [(copy_rate(far_source, broker_b, f"near{i}{unique}", 0),
              copy_rate(far_source, broker_b, f"far{i}{unique}", ONE_WAY_MS)) for i in range(2)]
    near, far = max(p[0] for p in pairs), max(p[1] for p in pairs)
    far_source.proxy.set_delay(0)
    source = read_partitions(far_source.bootstrap, f"far1{unique}", RECORDS)
    copied = read_partitions(broker_b.bootstrap, f"A.far1{unique}", RECORDS)
    for p in range(PARTITIONS):
        assert len(source[p]) == RECORDS // PARTITIONS
        assert [r[1:] for r in copied[p]] == [r[1:] for r in source[p]], f"partition {p} differs"
    print(f"no delay {near * SIZE / 1e6:.1f} MB/s, {2 * ONE_WAY_MS} ms RTT {far * SIZE / 1e6:.1f} MB/s "
          f"({far / near:.2f}x)")
    assert far >= FLOOR * near, f"{far:,.0f} rec/s at {2 * ONE_WAY_MS} ms RTT against {near:,.0f} without delay"


def test_round_trip_probe_reads_the_link(far_source: FarBroker, broker_b: Broker, unique: str) -> None:
    """What "auto" sizes from: the proxy's 100 ms round trip, and under LAN_RTT for a broker on loopback."""
    topic = f"rtt{unique}"
    create_topic(far_source.bootstrap, topic, 1)
    far_source.proxy.set_delay(ONE_WAY_MS)
    far = round_trip({"bootstrap.servers": far_source.bootstrap}, topic)
    far_source.proxy.set_delay(0)
    create_topic(broker_b.bootstrap, topic, 1)
    near = round_trip({"bootstrap.servers": broker_b.bootstrap}, topic)
    assert far is not None and near is not None
    print(f"round trip: far {far * 1000:.1f} ms, near {near * 1000:.1f} ms")
    assert 2 * ONE_WAY_MS / 1000 <= far < 2 * ONE_WAY_MS / 1000 + 0.05
    assert near < LAN_RTT


ONE_PARTITION_RECORDS, TRANSACTION = 30_000, 1_000


def fill_in_transactions(bootstrap: str, topic: str) -> None:
    """ONE_PARTITION_RECORDS distinct 1 KB records in transactions of TRANSACTION: each commit marker is an
    offset no consumer returns, so the partition's offsets have a gap after every transaction."""
    create_topic(bootstrap, topic, 1)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "transactional.id": f"fill-{topic}"})
    producer.init_transactions(30)
    for start in range(0, ONE_PARTITION_RECORDS, TRANSACTION):
        producer.begin_transaction()
        for i in range(start, start + TRANSACTION):
            value = i.to_bytes(4, "big") + os.urandom(SIZE - 4)
            producer.produce(topic, value, key=b"k%d" % i, partition=0, headers=[("h", b"%d" % i)])
        producer.commit_transaction(30)


def test_one_far_partition_is_read_ahead_and_copied_exactly(far_source: FarBroker, broker_b: Broker, unique: str,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    """One partition 100 ms away: `fetch.sessions=auto` opens 4-5 sessions, more than the partitions, so the
    partition is read by several sessions at staggered offset ranges (connectors/mirror/read_ahead.py) and
    stitched back. The copy must be the source, record for record (key, value, headers, timestamp, in
    order, no gap, no duplicate) although the source's offsets have a gap after every transaction, and the
    bytes read past the ranges' ends must stay small. What the copy must equal is what MM2's task hands on:
    connect/mirror/.../MirrorSourceTask.java polls ONE consumer, which returns a partition's records in offset
    order and skips transaction markers (read_committed); read-ahead is this project's own way to get there."""
    caplog.set_level(logging.INFO, logger="connectors.mirror.read_ahead_sessions")
    topic = f"ahead{unique}"
    fill_in_transactions(far_source.bootstrap, topic)
    far_source.proxy.set_delay(ONE_WAY_MS)
    rate = mirror_task(far_source.bootstrap, broker_b.bootstrap, topic, ONE_PARTITION_RECORDS, 1, consumer={},
                       producer={})
    far_source.proxy.set_delay(0)
    source = read_partitions(far_source.bootstrap, topic, ONE_PARTITION_RECORDS)[0]
    copied = read_partitions(broker_b.bootstrap, f"A.{topic}", ONE_PARTITION_RECORDS)[0]
    assert len(source) == ONE_PARTITION_RECORDS and source[-1][0] > ONE_PARTITION_RECORDS  # gaps: the markers
    assert [r[0] for r in copied] == list(range(ONE_PARTITION_RECORDS))
    assert [r[1:] for r in copied] == [r[1:] for r in source]
    summary = [r.getMessage() for r in caplog.records if r.getMessage().startswith("read-ahead of")]
    assert summary, "the partition was not read ahead"
    match = re.search(r"with (\d+) sessions: ([\d.]+) MB read, ([\d.]+) MB", summary[0])
    assert match is not None
    sessions, read, wasted = int(match[1]), float(match[2]), float(match[3])
    print(f"one partition at {2 * ONE_WAY_MS} ms RTT: {rate * SIZE / 1e6:.1f} MB/s with {sessions} sessions, "
          f"{read:.1f} MB read, {wasted:.1f} MB past range ends")
    assert sessions >= 4
    assert wasted <= 0.25 * read


def run_until(far: FarBroker, target: Broker, topic: str, offsets: OffsetStore, done: int, timeout: float) -> None:
    """One default-settings task (the real runner) copying `topic`-0 until its committed source offset is at
    least `done`, then stopped (the task's stop closes its read-ahead sessions with ranges still buffered)."""
    runner = task_runner("wan", MirrorSourceTask(), far.bootstrap, target.bootstrap, [f"{topic}-0"], offsets)
    runner.start()
    deadline = time.monotonic() + timeout
    try:
        while (offsets.get("wan", {"cluster": "A", "partition": 0, "topic": topic}) or {"offset": -1})["offset"] < done:
            assert runner.state != "FAILED" and time.monotonic() < deadline, f"task {runner.state} before {done}"
            time.sleep(0.01)  # polling the committed offset under the deadline
    finally:
        runner.stop()
        assert runner.join(30)


def test_a_task_stopped_while_reading_ahead_resumes_with_no_gap(far_source: FarBroker, broker_b: Broker,
                                                                unique: str) -> None:
    """Stopped mid-copy with ranges read ahead but not delivered, a task restarted from its committed offset
    copies the rest: the target holds every source record, in order, and re-copies at most what was not yet
    committed (Connect's at-least-once restart, WorkerSourceTask's offset commit after the producer's ack)."""
    topic = f"stop{unique}"
    fill_in_transactions(far_source.bootstrap, topic)
    create_topic(broker_b.bootstrap, f"A.{topic}", 1)
    source = read_partitions(far_source.bootstrap, topic, ONE_PARTITION_RECORDS)[0]
    far_source.proxy.set_delay(ONE_WAY_MS)
    offsets = OffsetStore(MemoryLog(MemoryTopic(25)))
    offsets.start()
    run_until(far_source, broker_b, topic, offsets, source[ONE_PARTITION_RECORDS // 4][0], 60)
    run_until(far_source, broker_b, topic, offsets, source[-1][0], 60)
    far_source.proxy.set_delay(0)
    copied = read_partitions(broker_b.bootstrap, f"A.{topic}", ONE_PARTITION_RECORDS)[0]
    indexes = [int(r[3][0][1]) for r in copied]  # header h: the record's index in the source
    restart = next((i for i in range(1, len(indexes)) if indexes[i] <= indexes[i - 1]), len(indexes))
    assert indexes[:restart] == list(range(restart)), "the first task's copy has a gap or a duplicate"
    resumed = indexes[restart:]
    assert resumed == list(range(resumed[0], ONE_PARTITION_RECORDS)) if resumed else restart == ONE_PARTITION_RECORDS
    assert not resumed or resumed[0] >= ONE_PARTITION_RECORDS // 4 - 10_000  # re-copied at most a poll's batch
    assert [r[1:] for r in copied[restart:]] == [r[1:] for r in source[ONE_PARTITION_RECORDS - len(resumed):]]
    print(f"{len(copied)} records copied across a stop, {restart - (resumed[0] if resumed else restart)} twice")


class FirstRecord(MirrorSourceTask):
    """The real task, noting when its first poll returned records."""

    first: float | None = None

    def poll_runs(self) -> list[Any] | None:
        runs = super().poll_runs()
        if runs and self.first is None:
            self.first = time.monotonic()
        return runs


def test_a_far_task_starting_from_the_beginning_fetches_at_once(far_source: FarBroker, broker_b: Broker,
                                                               unique: str) -> None:
    """A first start (no committed offset: the sessions start at BEGINNING) 50 ms away: the first records
    reach the task within 0.25 s of RUNNING. A partition assigned at a logical offset before its consumer knew
    the leader waited for librdkafka's offset-query retry timer (500 ms) although the leader was known a round
    trip later: the first records came 0.42 s after RUNNING; fetch_pool.FetchPool.connect now assigns such a
    partition once the leader is known (25 ms after RUNNING, measured)."""
    topic, one_way_ms = f"first{unique}", 25
    far_source.proxy.set_delay(0)
    fill(far_source.bootstrap, topic)
    far_source.proxy.set_delay(one_way_ms)
    offsets = OffsetStore(MemoryLog(MemoryTopic(25)))
    offsets.start()
    task = FirstRecord()
    runner = task_runner("first", task, far_source.bootstrap, broker_b.bootstrap,
                         [f"{topic}-{p}" for p in range(PARTITIONS)], offsets)
    runner.start()
    deadline = time.monotonic() + 30
    try:
        wait_running(runner, deadline)
        running = time.monotonic()
        while task.first is None:
            assert runner.state != "FAILED" and time.monotonic() < deadline, f"task {runner.state}"
            time.sleep(0.001)  # polling for the first records under the deadline
    finally:
        runner.stop()
        assert runner.join(30)
    print(f"first records {(task.first - running) * 1000:.0f} ms after RUNNING ({2 * one_way_ms} ms RTT)")
    assert task.first - running < 0.25
