"""One measurement per call, for one replicator ("java" or "ours"): each starts the replicator on a fresh flow
(vs_java.replicators), measures, and stops it (SIGTERM) before returning.

- throughput: a pre-produced backlog; records/s from the first record on the target to the last (high
  watermarks polled every 10 ms); the replicator's CPU seconds over that window (its process tree, from /proc);
  its peak RSS (VmHWM, summed over its processes); the seconds from its launch to the first record on the target.
- latency: one record before the launch; once it is on the target, paced records from a child process (so no
  start-up backlog); the send-to-read latency on the target of the records sent from 5 s on, through the window.
- offset syncs: 200 partitions, one record each before the start, then a trickle; the records on the
  offset-syncs topic per replicated record once the count stayed the same for 5 s.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from vs_java.replicators import Flow, Replicator, launch, mm2_properties
from vs_java.traffic import LatencyReader, PacedProducer, Watermarks, fill, wait_total

LATENCY_WARMUP = 5.0  # seconds after the first copied record before latencies count
SYNC_PARTITIONS = 200


@dataclass
class Bench:
    """The two clusters, the working directory, and the run counter that names each run's flow."""

    a: str
    b: str
    directory: Path
    partitions: int = 4
    timeout: float = 300.0
    runs: int = 0

    def flow(self, kind: str) -> Flow:
        self.runs += 1
        return Flow(f"S{self.runs}", f"T{self.runs}", f"vs{self.runs}{kind}")

    def start(self, kind: str, flow: Flow, tasks: int = 1, extra: dict[str, str] | None = None) -> Replicator:
        run_dir = self.directory / f"run{self.runs}-{kind}"
        run_dir.mkdir(parents=True, exist_ok=True)
        props = mm2_properties(run_dir / "mm2.properties", flow, self.a, self.b, tasks, extra)
        return launch(kind, props, run_dir)


@dataclass
class Throughput:
    records_per_s: float
    mb_per_s: float
    cpu_per_million: float  # CPU seconds per million records, first to last record on the target
    rss_mb: float
    first_record_s: float  # launch to first record on the target


def throughput(bench: Bench, kind: str, n: int, size: int, tasks: int = 1) -> Throughput:
    flow = bench.flow(kind)
    fill(bench.a, flow.topic, n, size, bench.partitions)
    marks = Watermarks(bench.b, flow.remote, bench.partitions)
    replicator = bench.start(kind, flow, tasks)
    try:
        deadline = time.perf_counter() + bench.timeout

        def tick() -> None:
            replicator.check()
            replicator.sample_rss()

        first = wait_total(marks, 1, deadline, tick)
        cpu_first = replicator.cpu_seconds()
        last = wait_total(marks, n, deadline, tick)
        cpu = replicator.cpu_seconds() - cpu_first
        replicator.sample_rss()
    finally:
        replicator.stop()
        marks.close()
    copied = n - 1  # the first record's arrival starts the clock
    seconds = max(last - first, 1e-3)
    return Throughput(copied / seconds, copied * size / seconds / 1e6, cpu / copied * 1e6, replicator.rss_mb(),
                      first - replicator.launched)


@dataclass
class Latency:
    p50_ms: float
    p99_ms: float
    records: int
    expected: int


def latency(bench: Bench, kind: str, rate: float, seconds: float, size: int = 100) -> Latency:
    """One record before the launch; once it is on the target, records at `rate`/s: the latencies of those sent
    from LATENCY_WARMUP s later on, for `seconds`."""
    flow = bench.flow(kind)
    fill(bench.a, flow.topic, 1, size, bench.partitions)
    marks = Watermarks(bench.b, flow.remote, bench.partitions)
    replicator = bench.start(kind, flow)
    producer: PacedProducer | None = None
    reader: LatencyReader | None = None
    try:
        wait_total(marks, 1, time.perf_counter() + bench.timeout, replicator.check)
        reader = LatencyReader(bench.b, flow.remote, bench.partitions)
        producer = PacedProducer(bench.a, flow.topic, rate, size, bench.partitions)
        window_start = time.time() + LATENCY_WARMUP
        window_end = window_start + seconds
        while time.time() < window_end:
            reader.poll(0.2)
            replicator.check()
        producer.stop()
        expected = int(rate * seconds)
        drain_until = time.time() + 30.0
        while time.time() < drain_until and sum(1 for s, _ in reader.seen if window_start <= s < window_end) < expected:
            reader.poll(0.2)
    finally:
        if producer is not None:
            producer.stop()
        replicator.stop()
        marks.close()
        if reader is not None:
            reader.close()
    lat = sorted(ms for sent, ms in reader.seen if window_start <= sent < window_end)
    if len(lat) < 2:
        raise RuntimeError(f"{kind}: only {len(lat)} records of the window arrived")
    return Latency(statistics.median(lat), lat[min(len(lat) - 1, int(len(lat) * 0.99))], len(lat), expected)


@dataclass
class Syncs:
    syncs: int
    records: int

    @property
    def per_record(self) -> float:
        return self.syncs / self.records


def offset_syncs(bench: Bench, kind: str, trickle: int, rate: float = 200.0) -> Syncs:
    """One record per partition before the start, then `trickle` records at `rate`/s once the copy flows."""
    flow = bench.flow(kind)
    fill(bench.a, flow.topic, SYNC_PARTITIONS, 100, SYNC_PARTITIONS)
    marks = Watermarks(bench.b, flow.remote, SYNC_PARTITIONS)
    syncs = Watermarks(bench.a, flow.syncs_topic, 1)
    replicator = bench.start(kind, flow)
    try:
        deadline = time.perf_counter() + bench.timeout
        wait_total(marks, SYNC_PARTITIONS, deadline, replicator.check)
        producer = PacedProducer(bench.a, flow.topic, rate, 100, SYNC_PARTITIONS)
        try:
            wait_total(marks, SYNC_PARTITIONS + trickle, deadline, replicator.check)
        finally:
            producer.stop()
        count, stable_since = syncs.total() or 0, time.perf_counter()
        while time.perf_counter() - stable_since < 5.0 and time.perf_counter() < deadline:
            time.sleep(0.2)  # the poll interval of the wait for the sync count to settle
            now = syncs.total() or 0
            if now != count:
                count, stable_since = now, time.perf_counter()
            replicator.check()
        total = marks.total() or 0
    finally:
        replicator.stop()
        marks.close()
        syncs.close()
    return Syncs(count, total)
