"""Spark backfill (local[N]) vs one streaming MirrorSource task over the same backlog, in one run.

    python bench/backfill_bench.py [--records 1000000] [--size 512] [--partitions 8] [--master local[2]]

Fills one topic on broker A, then copies it to broker B three ways: the raw pipe
(../shared/bench/rawpipe.py, the ceiling of one Python loop), one MirrorSourceTask driven by the real
SourceTaskRunner, and the backfill batch task (plan, Spark job with one Spark task per partition,
hand-over). The backfill rate counts the whole run, Spark start-up included; the copy-phase rate
(start-up excluded) is printed too. Results are appended to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from mirror_source_bench import CONSUMER, PRODUCER, fill, mirror_task, raw_pipe  # noqa: E402

from connectors.mirror.backfill_task import MirrorBackfillTask  # noqa: E402
from pyconnect.runtime.batch_runner import BatchContext  # noqa: E402
from pyconnect.runtime.source_runner import ConnectorOffsetReader  # noqa: E402
from pyconnect.storage.log import MemoryLog, MemoryTopic  # noqa: E402
from pyconnect.storage.offset_store import OffsetStore  # noqa: E402
from pyconnect.testing.brokers import start_tansu  # noqa: E402


def backfill(src: str, dst: str, topic: str, partitions: int, master: str) -> tuple[float, float, int]:
    """(records/s over the whole run, records/s of the copy phase, records copied)."""
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
        progress.append((time.perf_counter(), int(p["records_copied"])))  # type: ignore[call-overload]

    task = MirrorBackfillTask()
    task.initialize(BatchContext(ConnectorOffsetReader(offsets, "bench"), config, offsets, "bench", seen, 30.0))
    task.start(config)
    started = time.perf_counter()
    task.run()
    elapsed = time.perf_counter() - started
    copied = progress[-1][1]
    first_copy = next((ts for ts, n in progress if n > 0), started)  # first progress tick with data on B
    copy_phase = max(time.perf_counter() - first_copy, 1e-3)
    return copied / elapsed, copied / copy_phase, copied


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
        streaming = mirror_task(a.bootstrap, b.bootstrap, topic, args.records, args.partitions)
        total_rate, copy_rate, copied = backfill(a.bootstrap, b.bootstrap, topic, args.partitions, args.master)
    finally:
        a.stop()
        b.stop()
    ratio = total_rate / streaming
    print(f"raw pipe {raw:,.0f} rec/s; one MirrorSource task {streaming:,.0f} rec/s; backfill {args.master} "
          f"{total_rate:,.0f} rec/s over the whole run ({copied:,} records; copy phase {copy_rate:,.0f} rec/s); "
          f"backfill/streaming {ratio:.2f}")
    line = (f"| {time.strftime('%Y-%m-%d')} | {args.records:,} x {args.size} B, {args.partitions} partitions | "
            f"{raw:,.0f} rec/s | {streaming:,.0f} rec/s ({streaming / raw:.2f}) | {args.master}: {total_rate:,.0f} "
            f"rec/s whole run, {copy_rate:,.0f} rec/s copy phase ({total_rate / raw:.2f}) | **{ratio:.2f}** |")
    out = Path(args.out)
    if out.exists():
        out.write_text(out.read_text() + line + "\n")


if __name__ == "__main__":
    main()
