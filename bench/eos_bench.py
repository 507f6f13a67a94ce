"""Exactly-once vs at-least-once replication: one MirrorSource task, the same data, one run.

    python bench/eos_bench.py [--records 300000] [--size 512] [--partitions 4] [--rounds 5]
                              [--intervals 1000,100]

Each round starts two fresh brokers (Tansu, or Apache Kafka with `REPLIKAFKA_TEST_BROKER=kafka`:
bench_brokers.py), fills one source topic (`mirror_source_bench.fill`) and
copies that same backlog several times, each time into a remote topic of its own (a different
source cluster alias, so a different `<alias>.<topic>`), with one `MirrorSourceTask` under the real
`SourceTaskRunner`:

- at-least-once: `mirror_source_bench.mirror_task` as it is (idempotent producer, offsets flushed
  every 100 ms into an in-memory offset store: the fastest at-least-once set-up, so the ratio is
  conservative);
- EOS, `Boundary.POLL` (Connect's default and ours): one transaction per poll batch carrying the
  records and their source offsets;
- EOS, `Boundary.INTERVAL` for each of `--intervals` (ms).

The EOS runs write their offsets, inside the transactions, to a real offsets topic on the target
broker; the bench reads that topic with `isolation.level=read_committed` (a `KafkaLog`), so an EOS
copy is done only when its last transaction is committed and visible. Every clock starts when the
task is RUNNING (clients created, transactions initialised, partitions assigned) and stops when the
offset of every record is committed. After each copy the remote topic is read back with
`read_committed` and must hold exactly the records of the source, per partition, with their sizes:
a fast but incomplete copy fails the bench. For the EOS runs the bench also times the task thread
inside the transaction cycle (`TransactionalCommitter.commit`: flush, offsets, commit_transaction)
and in commit_transaction (EndTxn) alone, by wrapping both in this process. Modes are interleaved,
in a rotated order per round, so broker drift hits all of them; medians and ratios of medians
against at-least-once are printed.
Exits 1 if EOS with the default boundary (poll) is below 0.7x at-least-once.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_brokers import broker_label, start_pair  # noqa: E402
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from cpu_meter import CpuWindow  # noqa: E402
from mirror_source_bench import CONSUMER, PRODUCER, fill, mirror_task  # noqa: E402

from connectors.mirror.source_task import MirrorSourceTask  # noqa: E402
from pyconnect.api.records import MessageRun  # noqa: E402
from pyconnect.converters.builtin import byte_array  # noqa: E402
from pyconnect.kafka.topic_log import KafkaLog  # noqa: E402
from pyconnect.runtime.source import transactions  # noqa: E402
from pyconnect.runtime.source.offset_stores import ConnectorOffsetStores  # noqa: E402
from pyconnect.runtime.source.runner import RunnerSettings, SourceTaskRunner  # noqa: E402
from pyconnect.runtime.source.transactions import Boundary, TransactionalCommitter, TransactionSettings  # noqa: E402
from pyconnect.storage.offset_store import OffsetStore  # noqa: E402

GOAL = 0.7  # EOS with the default boundary >= 0.7x at-least-once
OFFSET_PARTITIONS = 5
# Tansu holds a Fetch for the whole fetch wait (500 ms by default) even when data is there.
READER = {"isolation.level": "read_committed", "fetch.wait.max.ms": "50"}


@dataclass(frozen=True)
class Mode:
    name: str
    alias: str  # source cluster alias: the remote topic is <alias>.<topic>
    boundary: Boundary | None = None  # None: at-least-once
    interval: float = 0.0


@dataclass(frozen=True)
class Copy:
    """One timed copy."""

    rate: float  # records/s
    cores: float  # busy cores of the whole machine over the copy
    transactions: int = 0  # EOS: committed transactions
    polls: int = 0  # EOS: non-empty poll batches
    cycle: float = 0.0  # EOS: task-thread seconds in the transaction cycle (flush, offsets, EndTxn)
    end_txn: float = 0.0  # EOS: of which in commit_transaction (EndTxn)
    elapsed: float = 0.0


@dataclass
class CommitClock:
    """Task-thread time in the transaction cycle: all of it (flush, offsets, EndTxn) and EndTxn alone."""

    cycle: float = 0.0
    end_txn: float = 0.0

    def install(self) -> None:
        """Wrap the committer's cycle and its commit_transaction call (this process only)."""
        cycle, end_txn = TransactionalCommitter.commit, transactions.kt.commit

        def timed_cycle(committer: TransactionalCommitter) -> None:
            began = time.perf_counter()
            try:
                cycle(committer)
            finally:
                self.cycle += time.perf_counter() - began

        def timed_end_txn(*args: Any) -> None:
            began = time.perf_counter()
            try:
                end_txn(*args)
            finally:
                self.end_txn += time.perf_counter() - began

        TransactionalCommitter.commit = timed_cycle  # type: ignore[method-assign]
        transactions.kt.commit = timed_end_txn  # type: ignore[assignment]


CLOCK = CommitClock()


class CountingTask(MirrorSourceTask):
    """The mirror task, counting its non-empty polls and its commits (one per EOS transaction)."""

    polls = 0
    records = 0
    commits = 0

    def poll_runs(self) -> list[MessageRun] | None:
        runs = super().poll_runs()
        if runs:
            self.polls += 1
            self.records += sum(len(run.messages) for run in runs)
        return runs

    def commit(self) -> None:
        super().commit()
        self.commits += 1


def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for fut in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        fut.result(30)


def eos_runner(src: str, dst: str, topic: str, partitions: int, mode: Mode
               ) -> tuple[SourceTaskRunner, CountingTask, OffsetStore]:
    """A transactional runner for one MirrorSource task and the read_committed view of its offsets."""
    assert mode.boundary is not None
    create_topic(dst, f"{mode.alias}.{topic}", partitions)
    offsets_topic = f"bench-offsets-{mode.alias}"
    create_topic(dst, offsets_topic, OFFSET_PARTITIONS)
    config = {
        "connector.class": "MirrorSourceConnector", "source.cluster.alias": mode.alias, "target.cluster.alias": "B",
        "source.cluster.bootstrap.servers": src, "target.cluster.bootstrap.servers": dst,
        "task.assigned.partitions": ",".join(f"{topic}-{p}" for p in range(partitions)),
        **{f"source.consumer.{k}": v for k, v in CONSUMER.items()},
    }
    offsets = OffsetStore(KafkaLog(offsets_topic, OFFSET_PARTITIONS, {"bootstrap.servers": dst},
                                   {"bootstrap.servers": dst, **READER}))
    offsets.start()
    eos = TransactionSettings(f"bench-{mode.alias}-0", mode.boundary, mode.interval, offsets_topic,
                              OFFSET_PARTITIONS, 30.0)
    settings = RunnerSettings({"bootstrap.servers": dst, **PRODUCER}, byte_array, byte_array, 0.1, 5.0, 10.0, eos)
    task = CountingTask()
    runner = SourceTaskRunner("bench", 0, task, config, ConnectorOffsetStores(offsets), settings,
                              lambda s, t: print(t) if t else None)
    return runner, task, offsets


def eos_task(src: str, dst: str, topic: str, n: int, partitions: int, mode: Mode) -> Copy:
    """Records/s of one exactly-once task copying the `n`-record backlog, timed as `mirror_task` times."""
    runner, task, offsets = eos_runner(src, dst, topic, partitions, mode)
    launched = time.perf_counter()
    runner.start()
    while runner.state != "RUNNING":  # init_transactions and client start-up are not timed
        if runner.state == "FAILED" or time.perf_counter() - launched > 60:
            raise RuntimeError(f"{mode.name}: task did not start: {runner.state}")
        time.sleep(0.001)
    started = time.perf_counter()
    cpu = CpuWindow()
    CLOCK.cycle = CLOCK.end_txn = 0.0
    partition = {p: {"cluster": mode.alias, "partition": p, "topic": topic} for p in range(partitions)}
    while True:  # done when every record's offset is committed, as a read_committed reader sees it
        done = sum((offsets.get("bench", partition[p]) or {"offset": -1})["offset"] + 1 for p in range(partitions))
        if done >= n:
            break
        if runner.state == "FAILED" or time.perf_counter() - started > 300:
            raise RuntimeError(f"{mode.name}: task failed or stalled at {done} of {n}")
        time.sleep(0.01)
    elapsed = time.perf_counter() - started
    cpu.stop()
    copy = Copy(n / elapsed, cpu.cores, task.commits, task.polls, CLOCK.cycle, CLOCK.end_txn, elapsed)
    runner.stop()
    runner.join(30)
    offsets.stop()
    return copy


def verify(bootstrap: str, topic: str, n: int, size: int, partitions: int) -> None:
    """Read `topic` whole with read_committed: exactly the source's records per partition, or raise."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"verify-{uuid.uuid4()}",
                         "enable.auto.commit": "false", "enable.partition.eof": "true", **READER, **CONSUMER})
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
    counts = dict.fromkeys(range(partitions), 0)
    at_end: set[int] = set()
    bad = 0
    deadline = time.monotonic() + 120
    try:
        while len(at_end) < partitions or sum(counts.values()) < n:
            if time.monotonic() > deadline:
                break
            for msg in consumer.consume(10000, 0.5):
                err = msg.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        at_end.add(msg.partition())
                        continue
                    raise RuntimeError(f"reading {topic}: {err}")
                at_end.discard(msg.partition())
                counts[msg.partition()] += 1
                bad += len(msg.value() or b"") != size
    finally:
        consumer.close()
    expected = {p: n // partitions + (p < n % partitions) for p in range(partitions)}  # fill(): i % partitions
    if counts != expected or bad:
        raise RuntimeError(f"{topic} is not a complete copy: {counts} (expected {expected}), {bad} wrong sizes")


def run_round(r: int, modes: list[Mode], args: argparse.Namespace, results: dict[str, list[Copy]]) -> None:
    """Fresh brokers, one source backlog, every mode copies it (rotated order), each copy verified."""
    a, b = start_pair(f"eos{r}")
    args.broker = broker_label(a)  # every round's brokers are of the run's one kind
    try:
        topic, n = "bench", args.records
        fill(a.bootstrap, topic, n, args.size, args.partitions)
        for mode in modes[r % len(modes):] + modes[: r % len(modes)]:
            if mode.boundary is None:
                cpu = CpuWindow()
                copy = Copy(mirror_task(a.bootstrap, b.bootstrap, topic, n, args.partitions, cpu), cpu.cores)
            else:
                copy = eos_task(a.bootstrap, b.bootstrap, topic, n, args.partitions, mode)
            verify(b.bootstrap, f"{mode.alias}.{topic}", n, args.size, args.partitions)
            results[mode.name].append(copy)
            extra = ""
            if copy.transactions:
                extra = (f", {copy.transactions} txns ({copy.polls} polls, {n / copy.transactions:,.0f} rec/txn), "
                         f"txn cycle {copy.cycle / copy.transactions * 1e3:.1f} ms/txn "
                         f"(EndTxn {copy.end_txn / copy.transactions * 1e3:.1f}) = {copy.cycle / copy.elapsed:.0%} "
                         "of the copy")
            print(f"round {r + 1}: {mode.name:<20} {copy.rate:>9,.0f} rec/s, {copy.cores:.2f} cores busy"
                  f"{extra}  [copy verified]", flush=True)
    finally:
        a.stop()
        b.stop()


def median(copies: list[Copy], attr: str) -> float:
    return statistics.median(getattr(c, attr) for c in copies)


def report(modes: list[Mode], results: dict[str, list[Copy]], args: argparse.Namespace) -> float:
    """Print the table of medians (also as markdown rows); returns the poll boundary's ratio."""
    base = [c.rate for c in results[modes[0].name]]
    mb = args.size / 1e6
    print(f"\n{args.broker}: {args.records:,} x {args.size} B, {args.partitions} partitions, {args.rounds} round(s); "
          "medians:")
    rows, poll_ratio = [], 0.0
    for mode in modes:
        copies = results[mode.name]
        rate, txns = median(copies, "rate"), round(median(copies, "transactions"))
        ratio = rate / statistics.median(base)
        if mode.boundary is Boundary.POLL:
            poll_ratio = ratio
        per_txn = f"{args.records / txns:,.0f}" if txns else "-"
        cycle = "-"
        if txns:
            ms = statistics.median(c.cycle / c.transactions * 1e3 for c in copies)
            end_ms = statistics.median(c.end_txn / c.transactions * 1e3 for c in copies)
            share = statistics.median(c.cycle / c.elapsed for c in copies)
            cycle = f"{ms:.1f} ms/txn (EndTxn {end_ms:.1f}), {share:.0%} of the copy"
        per_round = ", ".join(f"{c.rate / b:.2f}" for c, b in zip(copies, base, strict=True))
        rows.append(f"| {args.broker} | {mode.name} | {rate:,.0f} ({rate * mb:.1f} MB/s) | "
                    f"{median(copies, 'cores'):.2f} | {txns or '-'} | {per_txn} | {cycle} | **{ratio:.2f}** | "
                    f"{per_round} |")
    print("| broker | mode | rec/s | cores busy | transactions | records/txn | txn cycle (flush + offsets + EndTxn) "
          "| vs at-least-once | per round |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return poll_ratio


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=300_000)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--intervals", default="1000,100", help="Boundary.INTERVAL runs, in ms (comma-separated)")
    args = ap.parse_args()
    modes = [Mode("at-least-once", "A"), Mode("EOS poll (default)", "P", Boundary.POLL)]
    modes += [Mode(f"EOS interval {ms} ms", f"I{ms}", Boundary.INTERVAL, int(ms) / 1000)
              for ms in args.intervals.split(",") if ms.strip()]
    results: dict[str, list[Copy]] = {mode.name: [] for mode in modes}
    CLOCK.install()
    began = time.perf_counter()
    for r in range(args.rounds):
        run_round(r, modes, args, results)
    poll_ratio = report(modes, results, args)
    verdict = "meets" if poll_ratio >= GOAL else "is BELOW"
    print(f"\nEOS with the default boundary (poll) {verdict} the goal: {poll_ratio:.2f}x at-least-once "
          f"(goal >= {GOAL}x); whole run {time.perf_counter() - began:.0f} s")
    sys.exit(0 if poll_ratio >= GOAL else 1)


if __name__ == "__main__":
    main()
