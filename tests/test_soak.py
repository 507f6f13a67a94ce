"""Soak (slow; `bash scripts/test.sh -m slow`): MirrorSource on a three-worker cluster for
`PYCONNECT_SOAK_SECONDS` (default 300) while records keep arriving and the workers are restarted in
turn, alternately with SIGTERM and kill -9.

What must hold at the end: no record lost, every partition's records in their source order (first
copies; a re-sent window repeats a suffix), duplicates only from the kills and at most their
uncommitted windows, and the connector and all its tasks RUNNING.
"""

from __future__ import annotations

import collections
import os
import threading
import time
from typing import Any

import pytest

from tests.harness.brokers import Broker
from tests.harness.connectors import all_running
from tests.harness.kafka_io import committed_records, create_topic, keep_producing, read_all, read_to_end
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, wait_for

pytestmark = pytest.mark.slow

SOAK_SECONDS = float(os.environ.get("PYCONNECT_SOAK_SECONDS", "300"))
CYCLE_SECONDS = 40.0  # one restart per cycle
PARTITIONS, TASKS = 8, 4


@pytest.mark.timeout(int(SOAK_SECONDS) + 900)
def test_soak_restarts_while_streaming(cluster_factory: Any, broker: Broker, broker_b: Broker, unique: str) -> None:
    topic = f"soak{unique}"
    create_topic(broker.bootstrap, topic, PARTITIONS)
    cluster: Cluster = cluster_factory(on=broker_b, extra={"producer.batch.num.messages": "10000",
                                                           "producer.linger.ms": "5"})
    workers = cluster.start(3)
    config = mirror_source(broker, broker_b, {"topics": topic, "tasks.max": str(TASKS)})
    assert workers[0].request("POST", "/connectors", {"name": "soak", "config": config}).status_code == 201
    wait_for(lambda: all_running(workers[0], "soak", TASKS), 60, "soak connector running")

    stop = threading.Event()
    producer = keep_producing(broker.bootstrap, topic, 0, 10**9, PARTITIONS, stop)
    events: list[str] = []
    kill_window = 0  # records on B at each kill that were not committed: the most a kill may duplicate
    started = time.monotonic()
    try:
        turn = 0
        while time.monotonic() - started < SOAK_SECONDS:
            due = started + min((turn + 1) * CYCLE_SECONDS, SOAK_SECONDS)  # the schedule, not a sync
            wait_for(lambda due=due: time.monotonic() >= due, CYCLE_SECONDS + 5, "next cycle", 0.5)
            if time.monotonic() - started >= SOAK_SECONDS:
                break
            victim = workers[turn % len(workers)]
            if turn % 2:
                before = committed_records(broker_b.bootstrap, f"{cluster.group}-offsets", "soak", topic)
                victim.kill()
                on_b = len(read_to_end(broker_b.bootstrap, f"A.{topic}", timeout=120))
                kill_window += max(0, on_b - before)
                events.append(f"kill -9 {victim.name} ({on_b - before} uncommitted)")
            else:
                assert victim.terminate() == 0, victim.log_tail()
                events.append(f"SIGTERM {victim.name}")
            replacement = cluster.add_worker(port=victim.port).wait_ready()
            workers[turn % len(workers)] = replacement
            live = next(w for w in workers if w.process is not None and w.process.poll() is None)
            t0 = time.monotonic()
            wait_for(lambda live=live: all_running(live, "soak", TASKS), 60,
                     f"all tasks running after {events[-1]}")
            events[-1] += f", tasks running again {time.monotonic() - t0:.1f}s after the restart"
            turn += 1
    finally:
        stop.set()
        producer.join(60)
    total = producer.produced
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
    elapsed = time.monotonic() - started
    print(f"\nSOAK: {total:,} records in {elapsed:.0f}s, {len(events)} restarts: " + "; ".join(events)
          + f". Duplicates {duplicates} (uncommitted at the kills: {kill_window}).")
    assert duplicates <= kill_window
    assert all(all_running(w, "soak", TASKS) for w in workers)
