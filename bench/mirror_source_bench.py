"""One MirrorSource task vs the raw consume->produce pipe, on the same two local brokers, in one run.

    python bench/mirror_source_bench.py [--records 300000] [--size 512] [--partitions 4] [--rounds 3]
                                        [--provenance]

Each round runs ../shared/bench/rawpipe.py (the bare confluent-kafka loop: the ceiling) and then
one MirrorSourceTask driven by the real SourceTaskRunner (idempotent producer, run-level delivery
tracking, offset commits, offset syncs, metrics) over a topic of the same shape. The brokers are the test
harness's (bench_brokers.py): Tansu, or Apache Kafka with `REPLIKAFKA_TEST_BROKER=kafka`; the row names
which. Rounds alternate so
that broker drift affects both; the medians and their ratio are printed and added to
docs/benchmarks.md. `--provenance` adds a third run per round: the task with
`provenance.headers.enabled=true` (every record stamped with a provenance header), and prints its
rate and its cost per record against the plain task of the same round.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_brokers import broker_label, start_pair  # noqa: E402
from confluent_kafka import KafkaError, KafkaException, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from cpu_meter import CpuWindow  # noqa: E402

from connectors.mirror.source_task import MirrorSourceTask  # noqa: E402
from pyconnect.converters.builtin import byte_array  # noqa: E402
from pyconnect.runtime.source.offset_stores import ConnectorOffsetStores  # noqa: E402
from pyconnect.runtime.source.runner import RunnerSettings, SourceTaskRunner  # noqa: E402
from pyconnect.storage.log import MemoryLog, MemoryTopic  # noqa: E402
from pyconnect.storage.offset_store import OffsetStore  # noqa: E402

RAWPIPE = REPO.parent / "shared" / "bench" / "rawpipe.py"
PRODUCER = {"linger.ms": "5", "batch.size": "1000000", "queue.buffering.max.messages": "1000000",
            "queue.buffering.max.kbytes": "1048576"}
CONSUMER = {"fetch.max.bytes": "52428800", "max.partition.fetch.bytes": "10485760"}


def raw_pipe(src: str, dst: str, n: int, size: int, partitions: int) -> float:
    out = subprocess.run([sys.executable, str(RAWPIPE), src, dst, str(n), str(size), str(partitions)],
                         capture_output=True, text=True, check=True, timeout=600).stdout
    match = re.search(r"^pipe: ([\d,]+) rec/s", out, re.M)
    assert match, out
    return float(match.group(1).replace(",", ""))


def fill(bootstrap: str, topic: str, n: int, size: int, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for fut in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        fut.result(30)
    payload = bytes(range(256)) * (size // 256 + 1)
    producer = Producer({"bootstrap.servers": bootstrap, **PRODUCER})
    for i in range(n):
        while True:
            try:
                producer.produce(topic, payload[:size], key=b"k%d" % (i % 1000), partition=i % partitions)
                break
            except BufferError:
                producer.poll(0.01)
        if i % 10000 == 0:
            producer.poll(0)
    assert producer.flush(120) == 0


def create_task_topics(src: str, dst: str, topic: str, partitions: int) -> None:
    """The remote topic on `dst`, and the offset-syncs topic on `src` with one partition if it is missing: the
    connector creates it before its tasks run; a task run alone (as here) would have its sync producer
    auto-create it with the broker's default partitions, which a connector on the same broker later refuses
    (tests share brokers)."""
    target_admin = AdminClient({"bootstrap.servers": dst})  # held: its futures fail once it is collected
    for fut in target_admin.create_topics([NewTopic(f"A.{topic}", partitions, 1)]).values():
        fut.result(30)
    source_admin = AdminClient({"bootstrap.servers": src})
    for fut in source_admin.create_topics([NewTopic("mm2-offset-syncs.B.internal", 1, 1)]).values():
        try:
            fut.result(30)
        except KafkaException as exc:
            if exc.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise


def wait_committed(offsets: OffsetStore, runner: SourceTaskRunner, topic: str, n: int, partitions: int,
                   sample: Callable[[], None] | None) -> tuple[tuple[float, int] | None, float]:
    """Waits until every record is acknowledged and its offset committed; returns when at least a tenth of them
    were first seen committed and how many were then (None if the first look saw them all), and when all were."""
    partition = {p: {"cluster": "A", "partition": p, "topic": topic} for p in range(partitions)}
    tenth: tuple[float, int] | None = None
    while True:
        done = sum((offsets.get("bench", partition[p]) or {"offset": -1})["offset"] + 1 for p in range(partitions))
        if done >= n:
            return tenth, time.perf_counter()
        if tenth is None and done * 10 >= n:
            tenth = (time.perf_counter(), done)
        if runner.state == "FAILED":
            raise RuntimeError("mirror task failed")
        if sample is not None:
            sample()
        time.sleep(0.01)


def mirror_task(src: str, dst: str, topic: str, n: int, partitions: int, cpu: CpuWindow | None = None,
                extra: dict[str, str] | None = None, consumer: dict[str, str] | None = None,
                producer: dict[str, str] | None = None, sample: Callable[[], None] | None = None,
                timings: dict[str, float] | None = None, flush_interval: float = 0.1) -> float:
    """Records/s of one task copying the `n`-record backlog; `cpu`, if given, measures the same window;
    `extra`: more connector settings; `consumer`/`producer`: the clients' settings (None: this bench's
    CONSUMER/PRODUCER; {}: the defaults); `sample` is called while waiting (e.g. to read the RSS); `timings`,
    if given, gets "start-up" (seconds from the runner's start to RUNNING), "from launch" (records/s with
    the start-up counted too) and "steady" (records/s from the first tenth committed to the last: what the
    clients' start-up, e.g. the idempotent producer's id, 0.5-1 s after it is created, does not touch; what
    was committed when a tenth was first seen is left out of it); `flush_interval`: seconds between offset
    commits (the steady clock's resolution)."""
    create_task_topics(src, dst, topic, partitions)
    config = {
        "connector.class": "MirrorSourceConnector", "source.cluster.alias": "A", "target.cluster.alias": "B",
        "source.cluster.bootstrap.servers": src, "target.cluster.bootstrap.servers": dst,
        "task.assigned.partitions": ",".join(f"{topic}-{p}" for p in range(partitions)),
        **{f"source.consumer.{k}": v for k, v in (CONSUMER if consumer is None else consumer).items()},
        **(extra or {}),
    }
    offsets = OffsetStore(MemoryLog(MemoryTopic(25)))
    offsets.start()
    producer_conf = {"bootstrap.servers": dst, **(PRODUCER if producer is None else producer)}
    settings = RunnerSettings(producer_conf, byte_array, byte_array, flush_interval, 5.0, 10.0)
    runner = SourceTaskRunner("bench", 0, MirrorSourceTask(), config, ConnectorOffsetStores(offsets), settings,
                              lambda s, t: print(t) if t else None)
    launched = time.perf_counter()
    runner.start()
    # The clock starts where rawpipe.py's does: clients created and partitions assigned (the task is
    # RUNNING once its start() returned), so both rates measure the copy, not client start-up.
    while runner.state != "RUNNING":
        if runner.state == "FAILED" or time.perf_counter() - launched > 60:
            raise RuntimeError(f"mirror task did not start: {runner.state}")
        time.sleep(0.001)
    started = time.perf_counter()
    if cpu is not None:
        cpu.start()
    print(f"task start-up {started - launched:.2f}s (not timed)", flush=True)
    tenth, ended = wait_committed(offsets, runner, topic, n, partitions, sample)
    elapsed = ended - started
    if timings is not None:
        timings["start-up"] = started - launched
        timings["from launch"] = n / (ended - launched)
        since, done = tenth or (started, 0)  # offsets are committed in steps (every 0.1 s): what was then
        timings["steady"] = (n - done) / max(1e-3, ended - since)
    if cpu is not None:
        cpu.stop()
    runner.stop()
    runner.join(30)
    return n / elapsed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=300_000)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=str(REPO / "docs" / "benchmarks.md"))
    ap.add_argument("--provenance", action="store_true", help="also run the task with provenance headers on")
    args = ap.parse_args()
    raw, mirror, stamped = [], [], []
    label = ""
    for r in range(args.rounds):
        a, b = start_pair(f"ms{r}")
        label = broker_label(a)
        try:
            raw.append(raw_pipe(a.bootstrap, b.bootstrap, args.records, args.size, args.partitions))
            topic = f"bench{r}"
            fill(a.bootstrap, topic, args.records, args.size, args.partitions)
            mirror.append(mirror_task(a.bootstrap, b.bootstrap, topic, args.records, args.partitions))
            if args.provenance:
                fill(a.bootstrap, f"p{topic}", args.records, args.size, args.partitions)
                stamped.append(mirror_task(a.bootstrap, b.bootstrap, f"p{topic}", args.records, args.partitions,
                                           extra={"provenance.headers.enabled": "true"}))
        finally:
            a.stop()
            b.stop()
        print(f"round {r + 1}: raw pipe {raw[-1]:,.0f} rec/s, MirrorSource task {mirror[-1]:,.0f} rec/s "
              f"({mirror[-1] / raw[-1]:.2f})", flush=True)
        if stamped:
            print(f"round {r + 1}: with provenance headers {stamped[-1]:,.0f} rec/s ({stamped[-1] / mirror[-1]:.2f} "
                  f"of the plain task, +{1e6 / stamped[-1] - 1e6 / mirror[-1]:.2f} us a record)", flush=True)
    raw_m, mirror_m = statistics.median(raw), statistics.median(mirror)
    ratio = mirror_m / raw_m
    mb = args.size / 1e6
    line = (f"| {label} | {time.strftime('%Y-%m-%d')} | {args.records:,} x {args.size} B, {args.partitions} "
            f"partitions, {args.rounds} rounds | {raw_m:,.0f} rec/s ({raw_m * mb:.1f} MB/s) | {mirror_m:,.0f} rec/s "
            f"({mirror_m * mb:.1f} MB/s) | **{ratio:.2f}** |")
    print(f"{label}: median raw pipe {raw_m:,.0f} rec/s, median MirrorSource {mirror_m:,.0f} rec/s, ratio {ratio:.2f}")
    if stamped:
        stamped_m = statistics.median(stamped)
        print(f"median with provenance headers {stamped_m:,.0f} rec/s, {stamped_m / mirror_m:.2f} of MirrorSource, "
              f"+{1e6 / stamped_m - 1e6 / mirror_m:.2f} us a record")
    out = Path(args.out)
    if out.is_file():
        header = "| broker | date | data | raw pipe (median) | one MirrorSource task"
        out.write_text(add_row(out.read_text(), header, line))


def add_row(doc: str, header: str, row: str) -> str:
    """`doc` with `row` appended to the table that starts with `header` (or at the end)."""
    lines = doc.splitlines()
    at = next((i for i, text in enumerate(lines) if text.startswith(header)), None)
    if at is None:
        return doc.rstrip("\n") + "\n" + row + "\n"
    end = at
    while end + 1 < len(lines) and lines[end + 1].startswith("|"):
        end += 1
    return "\n".join([*lines[: end + 1], row, *lines[end + 1:]]) + "\n"


if __name__ == "__main__":
    main()
