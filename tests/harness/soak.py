"""A soak run shared by the soak tests: MirrorSource on a three-worker cluster while records keep arriving and
workers are stopped (SIGTERM or kill -9, as `action` says) on a schedule and replaced on the same port.

What must hold at the end: no record lost, every partition's records in their source order (first copies; a
re-sent window repeats a suffix), duplicates only from the kills and at most their uncommitted windows (the
records on the target that the killed worker had not committed when it died), and every task RUNNING."""

from __future__ import annotations

import collections
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from tests.harness.brokers import Broker
from tests.harness.connectors import all_running
from tests.harness.kafka_io import committed_records, create_topic, fetched_ends, keep_producing, read_all, read_to_end
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, WorkerProcess, wait_for

PARTITIONS, TASKS = 8, 4

#: What to do at restart number `turn`: ("kill", victim index) or ("term", victim index).
Action = Callable[[int], tuple[str, int]]


def alternate(turn: int) -> tuple[str, int]:
    """SIGTERM and kill -9 in turn, each worker in turn (the original soak)."""
    return ("kill" if turn % 2 else "term"), turn % 3


def random_kills(seed: int) -> Action:
    """kill -9 of a random worker every time (a seeded choice, printed, so a failure can be replayed)."""
    rng = random.Random(seed)
    return lambda _turn: ("kill", rng.randrange(3))


def run_soak(cluster_factory: Any, broker: Broker, broker_b: Broker, unique: str, seconds: float,
             cycle: float, action: Action, burst: int = 400) -> str:
    """The soak; returns its one-line summary (also printed)."""
    topic = f"soak{unique}"
    create_topic(broker.bootstrap, topic, PARTITIONS)
    cluster: Cluster = cluster_factory(on=broker_b, extra={"producer.batch.num.messages": "10000",
                                                           "producer.linger.ms": "5"})
    workers = cluster.start(3)
    config = mirror_source(broker, broker_b, {"topics": topic, "tasks.max": str(TASKS)})
    assert workers[0].request("POST", "/connectors", {"name": "soak", "config": config}).status_code == 201
    wait_for(lambda: all_running(workers[0], "soak", TASKS), 60, "soak connector running")
    stop = threading.Event()
    producer = keep_producing(broker.bootstrap, topic, 0, 10**9, PARTITIONS, stop, burst)
    events: list[str] = []
    kill_window = 0
    started = time.monotonic()
    try:
        turn = 0
        while time.monotonic() - started < seconds:
            due = started + min((turn + 1) * cycle, seconds)  # the schedule, not a sync
            wait_for(lambda due=due: time.monotonic() >= due, cycle + 5, "next cycle", 0.2)
            if time.monotonic() - started >= seconds:
                break
            kind, index = action(turn)
            at = time.monotonic() - started
            kill_window += _stop_one(workers, index, kind, broker_b, cluster, topic, events)
            events[-1] = f"at {at:.0f}s " + events[-1]
            workers[index] = cluster.add_worker(port=workers[index].port).wait_ready()
            live = workers[index]
            t0 = time.monotonic()
            wait_for(lambda live=live: all_running(live, "soak", TASKS), 90, f"all tasks running after {events[-1]}")
            events[-1] += f", tasks running again {time.monotonic() - t0:.1f}s after the restart"
            turn += 1
    finally:
        stop.set()
        producer.join(60)
    return _verify(producer.produced, broker_b, topic, events, kill_window, started, workers)


def _stop_one(workers: list[WorkerProcess], index: int, kind: str, broker_b: Broker, cluster: Cluster, topic: str,
              events: list[str]) -> int:
    """Stop worker `index`; the uncommitted window it leaves (0 for a SIGTERM)."""
    victim = workers[index]
    if kind == "kill":
        before = committed_records(broker_b.bootstrap, f"{cluster.group}-offsets", "soak", topic)
        victim.kill()
        # Offsets on B count records: a non-transactional mirror writes no control records.
        on_b = sum(fetched_ends(broker_b.bootstrap, f"A.{topic}", timeout=60).values())
        events.append(f"kill -9 {victim.name} ({on_b - before} uncommitted)")
        return max(0, on_b - before)
    assert victim.terminate() == 0, victim.log_tail()
    events.append(f"SIGTERM {victim.name}")
    return 0


def _verify(total: int, broker_b: Broker, topic: str, events: list[str], kill_window: int, started: float,
            workers: list[WorkerProcess]) -> str:
    assert total > 0 and len(events) >= 2, f"the soak did too little: {total} records, {events}"

    def missing() -> int:
        seen = {r[3] for r in read_to_end(broker_b.bootstrap, f"A.{topic}", timeout=120)}
        return sum(1 for i in range(total) if f"{topic}:{i}".encode() not in seen)

    wait_for(lambda: missing() == 0, 300, "every record copied", 2.0)
    records = read_all(broker_b.bootstrap, f"A.{topic}", idle=3.0, timeout=300)
    firsts: dict[int, list[int]] = collections.defaultdict(list)
    seen: set[bytes] = set()
    for partition, _offset, _key, value in records:  # per partition in offset order
        assert value is not None
        if value not in seen:
            seen.add(value)
            firsts[partition].append(int(value.rsplit(b":", 1)[1]))
    for partition, sequence in firsts.items():
        assert all(i % PARTITIONS == partition for i in sequence), f"records moved partition on B ({partition})"
        assert sequence == sorted(sequence), f"partition {partition} out of source order on B"
    duplicates = len(records) - len(seen)
    summary = (f"SOAK: {total:,} records in {time.monotonic() - started:.0f}s, {len(events)} restarts, 0 lost, "
               f"duplicates {duplicates} (uncommitted at the kills: {kill_window}): " + "; ".join(events))
    print("\n" + summary)
    assert duplicates <= kill_window
    assert all(all_running(w, "soak", TASKS) for w in workers)
    return summary
