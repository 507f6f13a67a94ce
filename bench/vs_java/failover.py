"""Row 7: how long a two-process dedicated MirrorMaker cluster stops copying when the process doing the copying
is killed with kill -9, for one replicator ("java" or "ours").

Two processes read the same flow from two files that differ only in `listeners`
(`dedicated.mode.enable.internal.rest = true`: Java's multi-node dedicated mode, KIP-710; replikafka serves it
always). Paced records (send time inside) flow through; once both processes have run for `settle` seconds, the
one that used more CPU over the last 5 s (the one holding MirrorSource's task: neither program says where a task
runs in a way both share) is killed with kill -9. The figure is the time from the kill to the arrival on the
target of the first record sent after it: the records sent meanwhile wait on the source until a survivor owns
the task. Every setting is each program's default: Java Connect keeps a lost worker's tasks unassigned for
`scheduled.rebalance.max.delay.ms` (5 minutes) in case it comes back; replikafka moves them after the session
timeout (10 s).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from vs_java.replicators import Replicator, launch, mm2_properties
from vs_java.rows import Bench
from vs_java.traffic import LatencyReader, PacedProducer, Watermarks, fill, wait_total

CPU_WINDOW = 5.0  # seconds of CPU use that pick the busy process


@dataclass
class Failover:
    seconds: float  # kill -9 to the first record sent after it arriving on the target
    before_ms: float  # median latency in the 5 s before the kill (the steady state)


def _busier(processes: list[Replicator], window: float, reader: LatencyReader) -> Replicator:
    start = [p.cpu_seconds() for p in processes]
    until = time.perf_counter() + window
    while time.perf_counter() < until:
        reader.poll(0.2)  # latencies stay measured through the window
    used = [p.cpu_seconds() - s for p, s in zip(processes, start, strict=True)]
    return processes[used.index(max(used))]


def failover(bench: Bench, kind: str, rate: float = 500.0, settle: float = 30.0, size: int = 100) -> Failover:
    flow = bench.flow(kind)
    fill(bench.a, flow.topic, 1, size, bench.partitions)
    marks = Watermarks(bench.b, flow.remote, bench.partitions)
    run_dir = bench.directory / f"run{bench.runs}-{kind}"
    run_dir.mkdir(parents=True, exist_ok=True)
    extra = {"dedicated.mode.enable.internal.rest": "true"}
    processes = [launch(kind, mm2_properties(run_dir / f"mm2-{i}.properties", flow, bench.a, bench.b, 1, extra),
                        run_dir, name=f"{kind}-{i}") for i in range(2)]
    producer: PacedProducer | None = None
    reader: LatencyReader | None = None
    try:
        deadline = time.perf_counter() + bench.timeout

        def tick() -> None:
            for p in processes:
                p.check()

        wait_total(marks, 1, deadline, tick)
        reader = LatencyReader(bench.b, flow.remote, bench.partitions)
        producer = PacedProducer(bench.a, flow.topic, rate, size, bench.partitions)
        settled = time.perf_counter() + settle
        while time.perf_counter() < settled:
            reader.poll(0.2)
            tick()
        victim = _busier(processes, CPU_WINDOW, reader)
        killed = time.time()
        victim.kill()
        survivor = next(p for p in processes if p is not victim)
        # Java holds a lost worker's tasks for 5 minutes: the wait after the kill gets at least 7
        deadline = time.perf_counter() + max(bench.timeout, 420.0)
        scanned = 0  # reader.seen only grows: each poll looks at what it added
        while time.perf_counter() < deadline:
            reader.poll(0.2)
            after = [sent + ms / 1000 for sent, ms in reader.seen[scanned:] if sent > killed]
            scanned = len(reader.seen)
            if after:
                steady = sorted(ms for sent, ms in reader.seen if killed - CPU_WINDOW <= sent < killed)
                return Failover(min(after) - killed, steady[len(steady) // 2] if steady else float("nan"))
            survivor.check()
        raise TimeoutError(f"{kind}: no record sent after the kill reached the target within the deadline")
    finally:
        if producer is not None:
            producer.stop()
        for p in processes:
            p.stop()
        marks.close()
        if reader is not None:
            reader.close()
