"""Message runs: the run-level offset-sync writer emits what the per-record one does, and run
acknowledgements commit only what Kafka holds."""

from __future__ import annotations

import random
from collections.abc import Mapping

import pytest
from confluent_kafka import KafkaError, KafkaException

from connectors.mirror.formats import OffsetSync
from connectors.mirror.offset_sync_writer import OffsetSyncWriter
from pyconnect.api.connector import MessageRunTask
from pyconnect.api.records import MessageRun, SourceRecord
from pyconnect.converters.builtin import byte_array
from pyconnect.runtime.source.delivery import DeliveryFailed, RunDelivery, StopRequested
from pyconnect.runtime.source.run_acks import RunAcks
from pyconnect.runtime.source.runner import RunnerSettings, SourceTaskRunner
from pyconnect.storage.log import MemoryLog, MemoryTopic
from pyconnect.storage.offset_store import OffsetStore
from tests.harness.messages import FakeMessage, at


class _Err:
    def str(self) -> str:
        return "Broker: Topic authorization failed"


def _writer(max_lag: int) -> tuple[OffsetSyncWriter, list[tuple[int, int]]]:
    sent: list[tuple[int, int]] = []

    def send(s: OffsetSync) -> None:
        sent.append((s.upstream_offset, s.downstream_offset))
    return OffsetSyncWriter(send, max_lag), sent


def test_run_writer_emits_the_same_syncs_as_the_record_writer() -> None:
    rng = random.Random(7)
    for trial in range(300):
        max_lag = rng.choice([1, 3, 10, 100])
        per_record, by_record = _writer(max_lag)
        per_run, by_run = _writer(max_lag)
        up, down = rng.randrange(0, 50), rng.randrange(0, 50)
        for _ in range(rng.randrange(1, 12)):
            n = rng.randrange(1, 60)
            ups = []
            for _ in range(n):
                ups.append(up)
                up += 1 if rng.random() > 0.05 * (trial % 3) else rng.randrange(2, 5)  # gaps in some trials
            if rng.random() < 0.15:
                down += rng.randrange(1, 9)  # a restart's duplicates or a new remote partition
            for i, u in enumerate(ups):
                per_record.record("t", 0, u, down + i)
            per_run.record_run("t", 0, [at(u) for u in ups], down, down + n - 1)
            down += n
            if rng.random() < 0.2:
                per_record.flush_pending()
                per_run.flush_pending()
            assert by_run == by_record, (trial, by_run, by_record)
        per_record.flush_pending()
        per_run.flush_pending()
        assert by_run == by_record


def test_interleaved_run_syncs_never_point_past_a_record() -> None:
    w, sent = _writer(max_lag=100)
    # 5 records (upstream 10..14) landed at 200..206: another producer wrote 2 records in between.
    w.record_run("t", 0, [at(u) for u in range(10, 15)], 200, 206)
    assert sent[0] == (10, 200) and sent[-1] == (14, 206)
    for u, d in sent:
        assert d <= 200 + (u - 10) + 2, "a sync may be low (re-read), never beyond where the record is"


def _run(sp: dict[str, int], first: int, n: int) -> MessageRun:
    return MessageRun(sp, "A.t", sp["partition"], [at(first + i) for i in range(n)])


def test_run_acks_commit_the_last_offset_of_each_acknowledged_run() -> None:
    seen: list[tuple[int, int, int]] = []
    failures: list[str] = []
    acks = RunAcks(lambda run, a, b: seen.append((run.messages[0].offset(), a, b)), failures.append)
    sp0, sp1 = {"partition": 0}, {"partition": 1}
    r1, r2, r3 = _run(sp0, 0, 3), _run(sp0, 3, 1), _run(sp1, 50, 2)
    c1, c2, c3 = acks.callback(r1), acks.callback(r2), acks.callback(r3)
    assert acks.in_flight() == 3
    c1(None, at(100))  # first message of r1: not complete yet
    assert acks.committable() == [] and seen == []
    c1(None, at(102))
    c3(None, at(7))
    c3(None, at(8))
    assert sorted(acks.committable(), key=str) == sorted([(sp0, {"offset": 2}), (sp1, {"offset": 51})], key=str)
    c2(None, at(103))  # a run of one message: one callback completes it
    assert acks.committable() == [(sp0, {"offset": 3})]
    assert seen == [(0, 100, 102), (50, 7, 8), (3, 103, 103)] and failures == [] and acks.in_flight() == 0


def test_run_acks_fail_on_missing_records_and_never_commit_past_a_failure() -> None:
    failures: list[str] = []
    acks = RunAcks(None, failures.append)
    sp = {"partition": 0}
    r1, r2, r3 = _run(sp, 0, 4), _run(sp, 4, 2), _run(sp, 6, 2)
    c1, c2, c3 = acks.callback(r1), acks.callback(r2), acks.callback(r3)
    c1(None, at(10))
    c1(None, at(12))  # 4 records in 3 offsets: one is missing
    assert "4 records were sent but only 3 offsets (10..12)" in failures[0]
    assert "source partition {'partition': 0}, offsets 0..3" in failures[0]
    c2(None, at(13))
    c2(None, at(14))
    assert acks.committable() == [], "nothing after the failed run is committed"
    c3(_Err(), None)
    assert "Topic authorization failed" in failures[-1] and acks.committable() == []


class _Full(FakeMessage):
    """A consumed message with every field the run producer copies."""

    def __init__(self, offset: int) -> None:
        super().__init__("t", 0, offset, b"v%d" % offset)

    def key(self) -> bytes:
        return b"k"

    def timestamp(self) -> tuple[int, int]:
        return (1, 1_000 + self.offset())

    def headers(self) -> list[tuple[str, bytes]]:
        return [("h", b"1")]


class _Runs(MessageRunTask):
    def start(self, config: Mapping[str, str]) -> None:
        self.runs = [MessageRun({"partition": 0}, "A.t", 0, [_Full(5), _Full(6)]),
                     MessageRun({"partition": 1}, "A.t", 1, [_Full(9)])]

    def poll_runs(self) -> list[MessageRun] | None:
        return self.runs

    def stop(self) -> None:
        pass


def test_message_run_task_poll_gives_the_same_records_one_by_one() -> None:
    task = _Runs()
    task.start({})
    records = task.poll()
    assert records == [
        SourceRecord({"partition": 0}, {"offset": 5}, "A.t", b"v5", b"k", 0, 1_005, [("h", b"1")]),
        SourceRecord({"partition": 0}, {"offset": 6}, "A.t", b"v6", b"k", 0, 1_006, [("h", b"1")]),
        SourceRecord({"partition": 1}, {"offset": 9}, "A.t", b"v9", b"k", 1, 1_009, [("h", b"1")]),
    ]


def test_a_run_cut_by_a_refused_record_commits_its_delivered_prefix() -> None:
    seen: list[tuple[int, int, int]] = []
    acks = RunAcks(lambda run, a, b: seen.append((len(run.messages), a, b)), lambda why: None)
    sp = {"partition": 0}
    run = _run(sp, 0, 4)  # message 3 is refused when produced: 0..2 were sent
    cb = acks.callback(run)
    cb(None, at(40))
    acks.cut(cb, 3)
    acks.settle_cut(delivered=False)  # the flush left records behind: nothing is known
    assert acks.committable() == [] and seen == []
    other = acks.callback(_run({"partition": 1}, 0, 2))
    acks.cut(other, 2)
    acks.cut(cb, 3)
    acks.settle_cut(delivered=True)
    assert acks.committable() == [(sp, {"offset": 2})], "the run whose first record was never acknowledged waits"
    # Only the first message's position is known (another producer may have written inside the prefix), so
    # no position is reported and no offset sync is written for the prefix.
    assert seen == []


class _Producer:
    """Records produce() calls; refuses the message with upstream offset `refuse`, or is always full."""

    def __init__(self, refuse: int = -1, full: bool = False) -> None:
        self.sent: list[tuple[int, bool]] = []  # (upstream offset as value, has callback)
        self.refuse, self.full = refuse, full

    def produce(self, topic: str, value: bytes, key: bytes, partition: int, callback: object, *rest: object) -> None:
        if self.full:
            raise BufferError()
        if value == b"v%d" % self.refuse:
            raise KafkaException(KafkaError(KafkaError.MSG_SIZE_TOO_LARGE))
        self.sent.append((int(value[1:]), callback is not None))

    def poll(self, timeout: float) -> int:
        return 0


def _runner(task: MessageRunTask) -> tuple[SourceTaskRunner, RunDelivery]:
    offsets = OffsetStore(MemoryLog(MemoryTopic(25)))
    settings = RunnerSettings({}, byte_array, byte_array, 1.0, 1.0, 1.0)
    runner = SourceTaskRunner("c", 0, task, {}, offsets, settings, lambda state, trace: None)
    delivery = runner._delivery
    assert isinstance(delivery, RunDelivery), "a MessageRunTask is delivered in runs"
    return runner, delivery


def test_runs_are_produced_with_callbacks_on_first_and_last_only() -> None:
    (_, delivery), producer = _runner(_Runs()), _Producer()
    sp = {"partition": 0}
    delivery.send(producer, [MessageRun(sp, "A.t", 0, [_Full(u) for u in range(5, 10)]),
                                 MessageRun(sp, "A.t", 0, [_Full(10)])])
    assert producer.sent == [(5, True), (6, False), (7, False), (8, False), (9, True), (10, True)]


def test_a_refused_record_fails_the_run_there_and_a_stop_interrupts_a_full_queue() -> None:
    (runner, delivery), producer = _runner(_Runs()), _Producer(refuse=7)
    sp = {"partition": 0}
    with pytest.raises(DeliveryFailed, match=r"offset \{'offset': 7\}, 2 bytes\): .*[Ss]ize"):
        delivery.send(producer, [MessageRun(sp, "A.t", 0, [_Full(u) for u in range(5, 10)])])
    assert producer.sent == [(5, True), (6, False)]
    acks = delivery.acks
    acks._cut[0][0](None, at(100))  # the first record's delivery report
    acks.settle_cut(delivered=True)
    assert acks.committable() == [(sp, {"offset": 6})], "5 and 6 were sent before the refused 7"
    full = _Producer(full=True)
    runner._stopping.set()
    with pytest.raises(StopRequested):
        delivery.send(full, [MessageRun(sp, "A.t", 0, [_Full(11)])])
