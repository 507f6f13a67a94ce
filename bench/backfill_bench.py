"""Spark backfill (local[N] or a standalone cluster) vs one streaming MirrorSource task over the same
backlog, in one run.

    python bench/backfill_bench.py [--records 1000000] [--size 512] [--partitions 8] [--master local[2]]
                                   [--cluster CORES] [--skip-raw]

Fills one topic on broker A, then copies it to broker B three ways: the raw pipe
(../shared/bench/rawpipe.py, the ceiling of one Python loop), one MirrorSourceTask driven by the real
SourceTaskRunner, and the backfill batch task (plan, Spark job with one Spark task per partition,
hand-over). The backfill rate counts the whole run, Spark start-up included; the copy-phase rate
(start-up excluded) is printed too. Both copiers' busy CPU (every process on the machine: brokers,
JVM, Python workers) is measured over their copy windows, which gives the ceiling of this machine:
no copier that needs as much CPU per record as the streaming task can go faster than
cores / (CPU per record). The CPU counted is that of the copiers' process trees only (this process,
which runs the task and the Spark driver, local Spark's JVM and Python workers, both brokers, and with
`--cluster` the standalone master and worker with their executors), so other work on a shared
machine does not count. The figure compared is CPU per record of the copy phase against the
streaming task (issue 18's goal: <= 1.1x). Rows are added to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from cpu_meter import CpuWindow  # noqa: E402
from mirror_source_bench import CONSUMER, PRODUCER, add_row, fill, mirror_task, raw_pipe  # noqa: E402

from connectors.mirror.backfill_task import MirrorBackfillTask  # noqa: E402
from pyconnect.runtime.source.batch_runner import BatchContext  # noqa: E402
from pyconnect.runtime.source.runner import ConnectorOffsetReader  # noqa: E402
from pyconnect.storage.log import MemoryLog, MemoryTopic  # noqa: E402
from pyconnect.storage.offset_store import OffsetStore  # noqa: E402
from pyconnect.testing.brokers import start_tansu  # noqa: E402
from tests.harness.spark_standalone import SparkCluster, start_spark_cluster  # noqa: E402


def backfill(src: str, dst: str, topic: str, partitions: int, spark: dict[str, str],
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
        "replication.policy.separator": "_", "spark.ui.enabled": "false", **spark,
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
    ap.add_argument("--cluster", type=int, default=0, metavar="CORES",
                    help="run on a Spark standalone cluster (a master and one worker of CORES cores, started here)")
    ap.add_argument("--skip-raw", action="store_true", help="skip the raw pipe")
    ap.add_argument("--out", default=str(REPO / "docs" / "benchmarks.md"))
    args = ap.parse_args()
    a, b = start_tansu("A"), start_tansu("B")
    spark: SparkCluster | None = None

    def roots() -> list[int]:  # the copiers' process trees: this process (task, driver, local Spark), brokers, cluster
        return [os.getpid(), *(x.process.pid for x in (a, b) if x.process),
                *(p.pid for p in (spark.processes if spark else []))]
    try:
        if args.cluster:
            spark = start_spark_cluster(Path(tempfile.mkdtemp(prefix="bench-spark-")), args.cluster, "2g")
        settings = {"spark.master": args.master} if spark is None else {
            **spark.driver_settings(), "spark.cores.max": str(args.cluster),
            "spark.executor.cores": str(args.cluster), "spark.executor.memory": "1g"}
        raw = 0.0 if args.skip_raw else raw_pipe(a.bootstrap, b.bootstrap, min(args.records, 300_000), args.size,
                                                  args.partitions)
        topic = "backlog"
        fill(a.bootstrap, topic, args.records, args.size, args.partitions)
        stream_cpu, copy_cpu = CpuWindow(roots), CpuWindow(roots)
        streaming = mirror_task(a.bootstrap, b.bootstrap, topic, args.records, args.partitions, stream_cpu)
        total_rate, copy_rate, copy_records = backfill(a.bootstrap, b.bootstrap, topic, args.partitions,
                                                       settings, copy_cpu)
    finally:
        if spark is not None:
            spark.stop()
        a.stop()
        b.stop()
    report(args, settings["spark.master"], raw, streaming, stream_cpu, total_rate, copy_rate, copy_records, copy_cpu)


def report(args: argparse.Namespace, master: str, raw: float, streaming: float, stream_cpu: CpuWindow,
           total_rate: float, copy_rate: float, copy_records: int, copy_cpu: CpuWindow) -> None:
    cores = os.cpu_count() or 1
    ratio = total_rate / streaming
    stream_us, copy_us = stream_cpu.micros_per(args.records), copy_cpu.micros_per(copy_records)
    where = f"standalone cluster ({args.cluster} executor cores)" if args.cluster else master
    print(f"raw pipe {raw:,.0f} rec/s; one MirrorSource task {streaming:,.0f} rec/s "
          f"({stream_cpu.cores:.2f} of {cores} cores busy, {stream_us:.2f} us CPU/record); backfill on {where} "
          f"{total_rate:,.0f} rec/s over the whole run, copy phase {copy_rate:,.0f} rec/s "
          f"({copy_cpu.cores:.2f} cores busy, {copy_us:.2f} us CPU/record); backfill/streaming {ratio:.2f} "
          f"(copy phase {copy_rate / streaming:.2f}); CPU per record, copy phase / streaming: "
          f"{copy_us / stream_us:.2f} (goal <= 1.1)")
    print(f"CPU us/record by process: streaming {stream_cpu.split(args.records)}; "
          f"copy phase {copy_cpu.split(copy_records)}")
    line = (f"| {time.strftime('%Y-%m-%d %H:%M')} | {args.records:,} x {args.size} B, {args.partitions} partitions "
            f"| {where} | {streaming:,.0f} rec/s, {stream_cpu.cores:.2f} cores, **{stream_us:.2f}** us/rec "
            f"| {copy_rate:,.0f} rec/s, {copy_cpu.cores:.2f} cores, **{copy_us:.2f}** us/rec "
            f"| **{copy_us / stream_us:.2f}** | {total_rate:,.0f} rec/s |")
    out = Path(args.out)
    if out.exists():
        out.write_text(add_row(out.read_text(), "| date | backlog | Spark | streaming task (CPU/record)", line))


if __name__ == "__main__":
    main()
