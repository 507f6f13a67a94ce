"""A worker cut off from Kafka past the session timeout (SIGSTOP the worker process, then SIGCONT).

Its tasks run elsewhere meanwhile; once resumed, it writes nothing for the tasks whose lease expired (the runner
checks the lease before every batch and every commit), so duplicates stay within the new owner's re-send of the
last offset-flush interval, and nothing is lost. It rejoins without a restart.

Measured before the lease check: frozen 25 s at 800 rec/s with a 1 s flush interval, 0 lost but 2,500
duplicates of 6,000: a resumed sequence task catches up on the 25 s it "missed" in one burst, and the
frozen worker's producer sent it all before the worker noticed it had been replaced."""

from __future__ import annotations

import signal
import time
from collections import Counter
from typing import Any

from tests.harness.connectors import all_running, sequence_connector, status
from tests.harness.kafka_io import read_to_end
from tests.harness.workers import wait_for

RATE, FLUSH_S, FROZEN_S = 400.0, 1.0, 25.0


def test_frozen_worker_writes_nothing_after_its_lease_expired(cluster_factory: Any, unique: str) -> None:
    cluster = cluster_factory(extra={"session.timeout.ms": "6000", "heartbeat.interval.ms": "1000",
                                     "offset.flush.interval.ms": str(int(FLUSH_S * 1000))})
    w0, w1 = cluster.start(2)
    topic, tasks, count = f"frz-{unique}", 2, 16_000
    assert w0.request("POST", "/connectors", sequence_connector("seq", topic, tasks, count, RATE)).status_code == 201
    st = wait_for(lambda: all_running(w0, "seq", tasks), 60, "both tasks RUNNING")
    owners = Counter(t["worker_id"] for t in st["tasks"])
    victim, survivor = (w1, w0) if owners[w1.worker_id] >= owners[w0.worker_id] else (w0, w1)
    moved = owners[victim.worker_id]
    time.sleep(3)  # traffic flows (the point is a worker frozen mid-stream)
    assert victim.process is not None
    victim.process.send_signal(signal.SIGSTOP)
    try:
        wait_for(lambda: all_running(survivor, "seq", tasks, on={survivor.worker_id}), 40,
                 "the frozen worker's tasks running on the survivor")
        time.sleep(max(0.0, FROZEN_S - 12))
    finally:
        victim.process.send_signal(signal.SIGCONT)
    # It rejoins without a restart: the same process answers and takes work again.
    wait_for(lambda: victim.request("GET", "/").status_code == 200, 30, "the resumed worker's REST")
    wait_for(lambda: all_running(survivor, "seq", tasks), 60, "both tasks RUNNING after the resume")
    expected = {f"{t}:{n}" for t in range(tasks) for n in range(count)}

    def values() -> Counter[str]:
        return Counter(value.decode() for _p, _o, _k, value in read_to_end(cluster.broker.bootstrap, topic) if value)
    # Every value, not a count: the re-sent duplicates make the count reach `tasks * count` while the tasks are
    # still writing the last values (under load they fell 2,500 short at that moment).
    try:
        seen = wait_for(lambda: (lambda found: found if expected <= set(found) else None)(values()), 120,
                        "every record")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; lost: {len(expected - set(values()))}") from exc
    duplicates = sum(n - 1 for n in seen.values())
    # The new owner re-sends what the frozen one sent after its last commit: about one flush interval of the
    # moved tasks' traffic (two, with the commit's own latency).
    window = int(moved * RATE * 2 * FLUSH_S)
    print(f"frozen {FROZEN_S:.0f}s at {RATE * tasks:.0f} rec/s, {moved} task(s) moved: {duplicates} duplicate(s), "
          f"window {window}")
    assert duplicates <= window, duplicates
    log = victim.log_path.read_text()
    assert "lost this task's assignment" in log or "out of sync with its cluster" in log, log[-2000:]
    assert victim.process.poll() is None, "no restart"
    # Back in the cluster: the balanced assignment gives it a task again.
    wait_for(lambda: any(t["worker_id"] == victim.worker_id and t["state"] == "RUNNING"
                         for t in status(survivor, "seq")["tasks"]), 60, "a task on the resumed worker")
