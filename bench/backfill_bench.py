"""Spark backfill (local[N]) vs one streaming MirrorSource task over the same backlog, in one run.

    python bench/backfill_bench.py [--records 1000000] [--size 512] [--partitions 8] [--master local[2]]

Fills one topic on broker A, then copies it to broker B three ways: the raw pipe
(../shared/bench/rawpipe.py, the ceiling of one Python loop), one MirrorSourceTask driven by the real
SourceTaskRunner, and the backfill batch task (plan, Spark job with one Spark task per partition,
hand-over). The backfill rate counts the whole run, Spark start-up included; the copy-phase rate
(start-up excluded) is printed too. Both copiers' busy CPU (every process on the machine: brokers,
JVM, Python workers) is measured over their copy windows, which gives the ceiling of this machine:
no copier that needs as much CPU per record as the streaming task can go faster than
cores / (CPU per record). Results are added to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from cpu_meter import CpuWindow  # noqa: E402
from mirror_source_bench import CONSUMER, PRODUCER, add_row, fill, mirror_task, raw_pipe  # noqa: E402

from connectors.mirror.backfill_task import MirrorBackfillTask  # noqa: E402
from pyconnect.runtime.batch_runner import BatchContext  # noqa: E402
from pyconnect.runtime.source_runner import ConnectorOffsetReader  # noqa: E402
from pyconnect.storage.log import MemoryLog, MemoryTopic  # noqa: E402
from pyconnect.storage.offset_store import OffsetStore  # noqa: E402
from pyconnect.testing.brokers import start_tansu  # noqa: E402


def backfill(src: str, dst: str, topic: str, partitions: int, master: str,
             copy_cpu: CpuWindow) -> tuple[float, float, int]:
    """(records/s over the whole run, records/s of the copy phase, records copied); `copy_cpu`
    measures the copy phase."""
    remote = f"A_{topic}"  # another separator than the streaming run's "A.": a fresh remote topic
    admin = AdminClient({"bootstrap.servers": dst})
    for fut in admin.create_topics([NewTopic(remote, partitions, 1)]).values():
        fut.result(30)
    config = {
        "connector.class": "MirrorSourceConnector", "source.cluster.alias": "A", "target.cluster.alias": "B",
        "source.cluster.bootstrap.servers": src, "target.cluster.bootstrap.servers": dst,
        "replication.policy.separator": "_", "spark.master": master, "spark.ui.enabled": "false",
        "backfill.assigned.partitions": ",".join(f"{topic}-{p}" for p in range(partitions)),
        "offset-syncs.topic.replication.factor": "1",
        **{f"backfill.consumer.{k}": v for k, v in CONSUMER.items()},
        **{f"backfill.producer.{k}": v for k, v in PRODUCER.items()},
    }
    offsets = OffsetStore(MemoryLog(MemoryTopic(25)))
    offsets.start()
    progress: list[tuple[float, int]] = []

    def seen(p: dict[str, object]) -> None:
        copied = int(p["records_copied"])  # type: ignore[call-overload]
        if copied and not any(n for _, n in progress):
            copy_cpu.start()  # the first progress tick with data on B
        progress.append((time.perf_counter(), copied))

    task = MirrorBackfillTask()
    task.initialize(BatchContext(ConnectorOffsetReader(offsets, "bench"), config, offsets, "bench", seen, 30.0))
    task.start(config)
    started = time.perf_counter()
    task.run()
    elapsed = time.perf_counter() - started
    copy_cpu.stop()
    copied = progress[-1][1]
    at_first = next((n for _, n in progress if n > 0), 0)  # records already on B at the first tick
    copy_rate = (copied - at_first) / max(copy_cpu.wall, 1e-3)
    return copied / elapsed, copy_rate, copied - at_first


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--partitions", type=int, default=8)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--out", default=str(REPO / "docs" / "benchmarks.md"))
    args = ap.parse_args()
    a, b = start_tansu("A"), start_tansu("B")
    try:
        raw = raw_pipe(a.bootstrap, b.bootstrap, min(args.records, 300_000), args.size, args.partitions)
        topic = "backlog"
        fill(a.bootstrap, topic, args.records, args.size, args.partitions)
        stream_cpu, copy_cpu = CpuWindow(), CpuWindow()
        streaming = mirror_task(a.bootstrap, b.bootstrap, topic, args.records, args.partitions, stream_cpu)
        total_rate, copy_rate, copy_records = backfill(a.bootstrap, b.bootstrap, topic, args.partitions,
                                                       args.master, copy_cpu)
    finally:
        a.stop()
        b.stop()
    cores = os.cpu_count() or 1
    ratio = total_rate / streaming
    stream_us, copy_us = stream_cpu.micros_per(args.records), copy_cpu.micros_per(copy_records)
    ceiling = cores / (stream_us / 1e6)  # records/s if every core did the streaming task's work per record
    print(f"raw pipe {raw:,.0f} rec/s; one MirrorSource task {streaming:,.0f} rec/s "
          f"({stream_cpu.cores:.2f} of {cores} cores busy, {stream_us:.1f} us CPU/record); backfill {args.master} "
          f"{total_rate:,.0f} rec/s over the whole run, copy phase {copy_rate:,.0f} rec/s "
          f"({copy_cpu.cores:.2f} cores busy, {copy_us:.1f} us CPU/record); backfill/streaming {ratio:.2f} "
          f"(copy phase {copy_rate / streaming:.2f}); this machine's ceiling at the streaming task's CPU/record: "
          f"{ceiling:,.0f} rec/s = {ceiling / streaming:.2f}x streaming")
    line = (f"| {time.strftime('%Y-%m-%d')} | {args.records:,} x {args.size} B, {args.partitions} partitions | "
            f"{raw:,.0f} | {streaming:,.0f} ({stream_cpu.cores:.2f} cores, {stream_us:.1f} us/rec) | "
            f"{args.master}: {total_rate:,.0f} whole run; {copy_rate:,.0f} copy phase ({copy_cpu.cores:.2f} cores, "
            f"{copy_us:.1f} us/rec) | **{ratio:.2f}** (copy phase {copy_rate / streaming:.2f}) | "
            f"{ceiling:,.0f} = {ceiling / streaming:.2f}x |")
    out = Path(args.out)
    if out.exists():
        out.write_text(add_row(out.read_text(), "| date | data | raw pipe rec/s | streaming rec/s", line))


if __name__ == "__main__":
    main()
