"""One MirrorSource task with DEFAULT settings across a WAN stand-in: rate per round-trip time and placement.

    python bench/wan_bench.py [--rtts 0,50,100,200] [--partitions 1,4] [--placements source,target]
                              [--records 200000] [--size 1000] [--rounds 1] [--producer KEY=VALUE ...]

The brokers are Tansu, or Apache Kafka with `REPLIKAFKA_TEST_BROKER=kafka` (bench_brokers.py; every row names its
broker). The far cluster sits behind tests/harness/wan_proxy.py (every byte delayed RTT/2 each way):
- `source` far: the task pulls across the link (MM2's recommended placement: run it near the target);
- `target` far: the task pushes across the link.
For each placement and partition count, one pair of brokers; per RTT a fresh topic is filled with the
proxy's delay at 0 (filling is not measured), then the delay is set and one MirrorSourceTask, driven by
the real SourceTaskRunner with no client setting of the bench's own, copies the backlog. Two clocks, both
printed: mirror_source_bench.py's (task RUNNING to every record's offset committed), and one from the
runner's start (the task's start-up counted too: its round-trip probe and, on a far link, its sessions'
connections, which it opens before it reports RUNNING). A third clock, "steady", runs from the first tenth of the
records committed to the last: the clients' own start-up stays out of it, on both sides of the ratio (librdkafka's
idempotent producer asks for its producer id on a 500 ms timer, 0.5-1 s after it is created: a LAN task reaches
RUNNING 0.12 s after the runner starts and waits for it after RUNNING, a far one reaches RUNNING later, its probe and
connections having hidden it, so the clock from RUNNING flatters the far runs). Printed: MB/s,
the ratio to the same placement's 0 ms rate (a 0 ms run precedes each delayed run; their median is the 0 ms rate),
and the largest RSS of this process (psutil), which must stay <= 500 MB
(topics are filled from a child process, so the RSS is the task's and the bench's own).
The process treats its memory as a worker process does (pyconnect/kafka/native_memory.py): at most 2 malloc
arenas, set at start as the replikafka command does, and a collection and trim after each task stopped, as
a worker does after stopping tasks. After each task the RSS peak so far and the RSS once released are printed.
`--producer KEY=VALUE` (repeatable) gives the task's producer a setting, as a worker's `producer.KEY` would: for
an A/B of one knob against the defaults; without it the task runs with none of the bench's own.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import psutil  # noqa: E402
from bench_brokers import broker_label, start_far  # noqa: E402
from mirror_source_bench import fill, mirror_task  # noqa: E402

from pyconnect.kafka.native_memory import limit_arenas, release  # noqa: E402
from pyconnect.testing.brokers import Broker, start_broker  # noqa: E402
from tests.harness.wan_proxy import FarBroker  # noqa: E402

SPAWN = multiprocessing.get_context("spawn")
CLOCKS = ("from RUNNING", "with start-up", "steady")


class Rss:
    """The largest resident set size of this process seen so far, in MB."""

    def __init__(self) -> None:
        self.process, self.peak = psutil.Process(), 0.0

    def __call__(self) -> None:
        self.peak = max(self.peak, self.now())

    def now(self) -> float:
        """The resident set size now, in MB."""
        return float(self.process.memory_info().rss / 1e6)


def one_setup(placement: str, partitions: int, rtts: list[int], args: argparse.Namespace,
              rss: Rss) -> dict[int, tuple[float, float, float, float]]:
    """MB/s per RTT for one placement and partition count, on a fresh pair of brokers. Each delayed run
    is preceded by a 0 ms run (alternating, so machine noise hits both); the 0 ms figures are their medians.
    Per RTT: (MB/s from RUNNING, MB/s from the runner's start, MB/s steady, seconds of start-up)."""
    far = start_far(f"far-{placement}")
    try:
        near: Broker = start_broker(f"near-{placement}", 1)
    except BaseException:
        far.stop()
        raise
    args.broker = broker_label(near)
    src, dst = (far, near) if placement == "source" else (near, far)
    runs: dict[int, list[tuple[float, float, float, float]]] = {}
    order = [r for rtt in rtts if rtt for r in (0, rtt)] or [0]
    try:
        for i, rtt in enumerate(order):
            n = args.records
            topic = f"wan{placement}{partitions}r{rtt}n{i}"
            far.proxy.set_delay(0)
            filler = SPAWN.Process(target=fill, args=(src.bootstrap, topic, n, args.size, partitions))
            filler.start()  # in a process of its own: its producer's buffers are not the task's RSS
            filler.join()
            assert filler.exitcode == 0, f"filling {topic} failed"
            far.proxy.set_delay(rtt / 2)
            timings: dict[str, float] = {}
            rate = mirror_task(src.bootstrap, dst.bootstrap, topic, n, partitions, consumer={}, producer=args.producer,
                               sample=rss, timings=timings)
            mb = args.size / 1e6
            runs.setdefault(rtt, []).append((rate * mb, timings["from launch"] * mb, timings["steady"] * mb,
                                             timings["start-up"]))
            release()  # what a worker does once tasks stopped
            print(f"{placement} far, {partitions} partition(s), RTT {rtt:3d} ms: {rate * mb:6.1f} MB/s from RUNNING, "
                  f"{timings['from launch'] * mb:6.1f} MB/s with its {timings['start-up']:.2f} s of start-up, "
                  f"{timings['steady'] * mb:6.1f} MB/s steady; "
                  f"RSS peak {rss.peak:.0f} MB, {rss.now():.0f} MB after the task", flush=True)
    finally:
        stop(far, near)
    return {rtt: (statistics.median(r[0] for r in rates), statistics.median(r[1] for r in rates),
                  statistics.median(r[2] for r in rates), statistics.median(r[3] for r in rates))
            for rtt, rates in runs.items()}


def stop(far: FarBroker, near: Broker) -> None:
    far.stop()
    near.stop()


def table(results: dict[tuple[str, int], dict[int, tuple[float, float, float, float]]], rtts: list[int],
          args: argparse.Namespace) -> str:
    """A markdown table: one row per placement, partition count and clock; MB/s and ratio per RTT."""
    head = "| broker | placement | partitions | clock | " + " | ".join(f"RTT {r} ms" for r in rtts) + " |"
    rows = [head, "|" + "---|" * (len(rtts) + 4)]
    for (placement, partitions), rates in results.items():
        for k, clock in enumerate(CLOCKS):
            base = rates[0][k] if 0 in rates else None
            cells = [f"{rates[r][k]:.1f} MB/s" + (f" ({rates[r][k] / base:.2f}x)" if base and r else "") for r in rtts]
            rows.append(f"| {args.broker} | {placement} far | {partitions} | {clock} | " + " | ".join(cells) + " |")
        cells = [f"{rates[r][3]:.2f} s" for r in rtts]
        rows.append(f"| {args.broker} | {placement} far | {partitions} | start-up | " + " | ".join(cells) + " |")
    settings = ", ".join(f"producer {k}={v}" for k, v in args.producer.items()) or "default settings"
    rows.append(f"\n{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, {args.records:,} records of {args.size} B "
                f"at every RTT, one MirrorSource task, {settings}; 0 ms: the median of the "
                f"0 ms runs alternated with the delayed ones.")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rtts", default="0,50,100,200")
    ap.add_argument("--partitions", default="1,4")
    ap.add_argument("--placements", default="source,target")
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--producer", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args()
    if bad := [s for s in args.producer if "=" not in s]:
        ap.error(f"--producer takes KEY=VALUE, not {bad[0]!r}")
    args.producer = dict(s.split("=", 1) for s in args.producer)
    rtts = [int(r) for r in args.rtts.split(",")]
    limit_arenas()  # as the replikafka command does, before any client exists
    rss = Rss()
    for r in range(args.rounds):
        results: dict[tuple[str, int], dict[int, tuple[float, float, float, float]]] = {}
        for placement in args.placements.split(","):
            for partitions in (int(p) for p in args.partitions.split(",")):
                results[(placement, partitions)] = one_setup(placement, partitions, rtts, args, rss)
        print(f"\nround {r + 1}, RSS peak {rss.peak:.0f} MB\n" + table(results, rtts, args),
              flush=True)
    print(f"{args.rounds * len(results) * max(1, 2 * sum(1 for r in rtts if r))} tasks: RSS peak {rss.peak:.0f} MB, "
          f"{rss.now():.0f} MB at the end", flush=True)
    assert rss.peak <= 500, f"RSS {rss.peak:.0f} MB over 500 MB"


if __name__ == "__main__":
    main()
