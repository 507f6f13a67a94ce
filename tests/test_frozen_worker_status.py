"""A worker frozen (SIGSTOP) for longer than the session timeout: the status API tells the truth throughout.

- Once the frozen worker has been silent for a session timeout it is out of the cluster, and no status answer shows
  a task RUNNING on it (herder/status_view.py): its tasks read UNASSIGNED until their new owner reports them.
- The survivor reports them RUNNING on itself within a session timeout of the frozen worker being declared dead
  (so within two session timeouts of the freeze).
Connect keeps showing the frozen worker's RUNNING until the new owner writes its own status.
"""

from __future__ import annotations

import signal
import time
from typing import Any

from tests.harness.connectors import all_running, sequence_connector, status
from tests.harness.workers import wait_for

SESSION_S = 6.0


def test_a_frozen_workers_tasks_are_reported_on_the_survivor_within_a_session_timeout(cluster_factory: Any,
                                                                                       unique: str) -> None:
    cluster = cluster_factory(extra={"session.timeout.ms": str(int(SESSION_S * 1000)), "heartbeat.interval.ms": "1000"})
    w0, w1 = cluster.start(2)
    tasks = 4
    body = sequence_connector("seq", f"fz-{unique}", tasks, 10**9, 50)
    assert w0.request("POST", "/connectors", body).status_code == 201
    st = wait_for(lambda: all_running(w0, "seq", tasks), 60, "all tasks RUNNING")
    # Freeze the worker that does not lead, so that the survivor's own leader duties move the tasks.
    leader_id = w0.request("GET", "/").json().get("leader_id") or w0.worker_id
    victim, survivor = (w1, w0) if leader_id != w1.worker_id else (w0, w1)
    moved = [t["id"] for t in st["tasks"] if t["worker_id"] == victim.worker_id]
    assert moved, st
    assert victim.process is not None
    frozen_at = time.monotonic()
    victim.process.send_signal(signal.SIGSTOP)
    try:
        stale: list[str] = []
        while True:
            now = time.monotonic() - frozen_at
            shown = status(survivor, "seq")
            on_victim = [t["id"] for t in shown.get("tasks", []) if t["worker_id"] == victim.worker_id
                         and t["state"] == "RUNNING"]
            if now > SESSION_S + 1.5 and on_victim:  # silent a session timeout (+ one read) ago: out
                stale.append(f"{now:.1f}s: {on_victim}")
            if all_running(survivor, "seq", tasks, on={survivor.worker_id}):
                taken_over = now
                break
            assert now < 3 * SESSION_S, f"not taken over after {now:.1f}s: {shown}"
            time.sleep(0.2)  # the sampling period of the watch, not a synchronisation
    finally:
        victim.process.send_signal(signal.SIGCONT)
    print(f"session timeout {SESSION_S}s: {len(moved)} task(s) reported on the survivor {taken_over:.1f}s after "
          "the freeze")
    assert not stale, stale
    assert taken_over <= 2 * SESSION_S + 1.0, taken_over
