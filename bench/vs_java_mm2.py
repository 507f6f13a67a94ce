"""replikafka's dedicated MirrorMaker head to head with Java MirrorMaker 2 4.3.1's, on the same brokers.

    python bench/vs_java_mm2.py [--rounds 2] [--rows throughput,cpu,startup,tasks2,latency,syncs,failover]
                                [--sizes 100,1000,10000] [--records 200000,60000,6000]
                                [--rates 1000,10000] [--latency-seconds 10] [--trickle 2000]
                                [--bootstrap-a HOST:PORT --bootstrap-b HOST:PORT] [--json FILE]

Two Apache Kafka 4.3.1 single-node KRaft clusters, A and B (pyconnect.testing.kafka_jvm; or the two given),
and for each measurement one fresh flow A->B copying one topic of 4 partitions, in one mm2.properties that both
programs read unchanged: Java's `MirrorMaker` with a production JVM's flags (bench/vs_java/replicators.py) and
`replikafka mirror-maker`, one after the other, never together. Every round runs each measurement for both,
the order alternating between rounds (Java first in odd rounds), so drift on the machine hits both. Printed:
a markdown table of the medians over the rounds, both figures and the ratio ours/Java per row.

Rows (bench/vs_java/rows.py says how each is measured): records/s and MB/s of one task per record size;
CPU seconds per million records and peak RSS of the replicator's processes; seconds from launch to the first
record on the target; the 1 KB throughput with tasks.max=2; send-to-target latency p50/p99 at each paced
rate; offset-sync records per replicated record over 200 partitions of light traffic; the seconds a two-process
dedicated cluster copies nothing after kill -9 of the process doing the copying (bench/vs_java/failover.py).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from vs_java.failover import failover  # noqa: E402
from vs_java.replicators import KINDS, LABEL  # noqa: E402
from vs_java.rows import Bench, latency, offset_syncs, throughput  # noqa: E402

from pyconnect.testing.kafka_jvm import KafkaBroker, start_kafka_jvm  # noqa: E402

ALL_ROWS = ("throughput", "cpu", "startup", "tasks2", "latency", "syncs", "failover")
# figures[row label][kind] = one value per round; HIGHER[row label]: whether a larger value is better
Figures = dict[str, dict[str, list[float]]]


def size_label(size: int) -> str:
    return f"{size // 1000} KB" if size >= 1000 and size % 1000 == 0 else f"{size} B"


class Recorder:
    """Collects each row's figure per replicator and round, and what the table says of each row."""

    def __init__(self) -> None:
        self.figures: Figures = {}
        self.units: dict[str, str] = {}
        self.better: dict[str, str] = {}  # "higher" or "lower"
        self.failures: list[str] = []

    def add(self, row: str, kind: str, value: float, unit: str, better: str) -> None:
        self.figures.setdefault(row, {k: [] for k in KINDS})[kind].append(value)
        self.units[row], self.better[row] = unit, better

    def medians(self, row: str) -> dict[str, float | None]:
        return {k: statistics.median(v) if v else None for k, v in self.figures[row].items()}


def run_throughput(bench: Bench, kind: str, args: argparse.Namespace, rec: Recorder) -> None:
    rows = set(args.rows)
    for size, n in zip(args.sizes, args.records, strict=True):
        if rows & {"throughput", "cpu", "startup"}:
            t = throughput(bench, kind, n, size)
            label = size_label(size)
            print(f"  {LABEL[kind]}: {label} x {n:,}: {t.records_per_s:,.0f} rec/s, {t.mb_per_s:.1f} MB/s, "
                  f"{t.cpu_per_million:.1f} CPU s/M, RSS {t.rss_mb:.0f} MB, first record {t.first_record_s:.1f} s",
                  flush=True)
            rec.add(f"1. records/s, {label}, 1 task", kind, t.records_per_s, "rec/s", "higher")
            rec.add(f"1. MB/s, {label}, 1 task", kind, t.mb_per_s, "MB/s", "higher")
            rec.add(f"2. CPU s per million records, {label}", kind, t.cpu_per_million, "s", "lower")
            rec.add(f"2. peak RSS, {label} run", kind, t.rss_mb, "MB", "lower")
            rec.add(f"3. launch to first record on target, {label} run", kind, t.first_record_s, "s", "lower")
    if "tasks2" in rows:
        size = 1000
        n = dict(zip(args.sizes, args.records, strict=True)).get(size, args.records[0])
        t = throughput(bench, kind, n, size, tasks=2)
        print(f"  {LABEL[kind]}: 1 KB x {n:,}, tasks.max=2: {t.records_per_s:,.0f} rec/s, {t.mb_per_s:.1f} MB/s",
              flush=True)
        rec.add("4. records/s, 1 KB, tasks.max=2", kind, t.records_per_s, "rec/s", "higher")
        rec.add("4. MB/s, 1 KB, tasks.max=2", kind, t.mb_per_s, "MB/s", "higher")


def run_others(bench: Bench, kind: str, args: argparse.Namespace, rec: Recorder) -> None:
    if "latency" in args.rows:
        for rate in args.rates:
            lat = latency(bench, kind, rate, args.latency_seconds)
            print(f"  {LABEL[kind]}: {rate:,} rec/s: latency p50 {lat.p50_ms:.1f} ms, p99 {lat.p99_ms:.1f} ms "
                  f"({lat.records:,} of {lat.expected:,} records)", flush=True)
            rec.add(f"5. latency p50 at {rate:,} rec/s", kind, lat.p50_ms, "ms", "lower")
            rec.add(f"5. latency p99 at {rate:,} rec/s", kind, lat.p99_ms, "ms", "lower")
    if "syncs" in args.rows:
        s = offset_syncs(bench, kind, args.trickle)
        print(f"  {LABEL[kind]}: {s.syncs:,} offset syncs for {s.records:,} records ({s.per_record:.3f} a record)",
              flush=True)
        rec.add("6. offset syncs per record, 200 partitions", kind, s.per_record, "", "lower")
    if "failover" in args.rows:
        f = failover(bench, kind)
        print(f"  {LABEL[kind]}: kill -9 of the copying process of two: the first record sent after it arrived "
              f"{f.seconds:.1f} s later (latency before: {f.before_ms:.1f} ms)", flush=True)
        rec.add("7. kill -9 to copying again, two-process dedicated cluster", kind, f.seconds, "s", "lower")


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    text = f"{value:,.0f}" if value >= 1000 else f"{value:.3g}" if value < 10 else f"{value:.1f}"
    return f"{text} {unit}".strip()


def table(rec: Recorder, rounds: int) -> str:
    lines = [f"| row | {LABEL['java']} | {LABEL['ours']} | ours/Java | better |", "|---|---|---|---|---|"]
    for row in sorted(rec.figures, key=lambda r: r.split(".", 1)[0]):
        med = rec.medians(row)
        java, ours = med["java"], med["ours"]
        ratio = f"{ours / java:.2f}" if java and ours is not None else "-"
        lines.append(f"| {row} | {fmt(java, rec.units[row])} | {fmt(ours, rec.units[row])} | {ratio} | "
                     f"{rec.better[row]} |")
    lines.append(f"\nMedians of {rounds} round(s) each; {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC.")
    lines += [f"- failed: {failure}" for failure in rec.failures]
    return "\n".join(lines)


def guarded(step: Callable[[Bench, str, argparse.Namespace, Recorder], None], bench: Bench, kind: str,
            args: argparse.Namespace, rec: Recorder) -> None:
    """Run one step; a failed measurement is printed and left out of the table (the rest still runs)."""
    try:
        step(bench, kind, args, rec)
    except (RuntimeError, TimeoutError, AssertionError) as exc:
        rec.failures.append(f"{LABEL[kind]}, {step.__name__}: {exc}")
        print(f"  FAILED {rec.failures[-1]}", flush=True)


def run(bench: Bench, args: argparse.Namespace) -> Recorder:
    rec = Recorder()
    steps: list[Callable[[Bench, str, argparse.Namespace, Recorder], None]] = [run_throughput, run_others]
    for r in range(args.rounds):
        order = KINDS if r % 2 == 0 else tuple(reversed(KINDS))
        for step in steps:
            for kind in order:
                print(f"round {r + 1}, {LABEL[kind]} ({step.__name__})", flush=True)
                guarded(step, bench, kind, args, rec)
    return rec


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--rows", default=",".join(ALL_ROWS), help=f"comma-separated, of {', '.join(ALL_ROWS)}")
    ap.add_argument("--sizes", default="100,1000,10000", help="record sizes (bytes) of rows 1-3")
    ap.add_argument("--records", default="200000,60000,6000", help="backlog per size, same order")
    ap.add_argument("--rates", default="1000,10000", help="paced rates of the latency row, records/s")
    ap.add_argument("--latency-seconds", type=float, default=10.0)
    ap.add_argument("--trickle", type=int, default=2000, help="records of the offset-sync row after the start")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds one measurement may take")
    ap.add_argument("--bootstrap-a", help="use this cluster as A instead of starting one")
    ap.add_argument("--bootstrap-b", help="use this cluster as B instead of starting one")
    ap.add_argument("--workdir", help="directory of the runs' files and logs (default: a new temporary one, kept)")
    ap.add_argument("--json", help="also write the figures (every round) to this file")
    args = ap.parse_args(argv)
    args.rows = [r for r in args.rows.split(",") if r]
    if bad := [r for r in args.rows if r not in ALL_ROWS]:
        ap.error(f"--rows: unknown row {bad[0]!r}; choose from {', '.join(ALL_ROWS)}")
    try:
        args.sizes = [int(s) for s in args.sizes.split(",")]
        args.records = [int(s) for s in args.records.split(",")]
        args.rates = [int(s) for s in args.rates.split(",")]
    except ValueError as exc:
        ap.error(f"--sizes, --records and --rates take comma-separated integers ({exc})")
    if len(args.sizes) != len(args.records):
        ap.error("--records needs one count per --sizes entry")
    if bool(args.bootstrap_a) != bool(args.bootstrap_b):
        ap.error("--bootstrap-a and --bootstrap-b go together")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    brokers: list[KafkaBroker] = []
    try:
        if args.bootstrap_a:
            a, b = args.bootstrap_a, args.bootstrap_b
        else:
            brokers = [start_kafka_jvm("vs-java-A", version="4"), start_kafka_jvm("vs-java-B", version="4")]
            a, b = brokers[0].bootstrap, brokers[1].bootstrap
        print(f"clusters: A {a}, B {b} (Apache Kafka 4.3.1, single-node KRaft)", flush=True)
        work = Path(args.workdir or tempfile.mkdtemp(prefix="vs-java-mm2-"))
        print(f"logs and mm2.properties of every run: {work}", flush=True)
        rec = run(Bench(a, b, work, timeout=args.timeout), args)
    finally:
        for broker in reversed(brokers):
            broker.stop()
    print("\n" + table(rec, args.rounds), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"rounds": args.rounds, "figures": rec.figures, "failures": rec.failures,
                                               "medians": {row: rec.medians(row) for row in rec.figures}}, indent=1))


if __name__ == "__main__":
    main()
