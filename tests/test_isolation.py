"""One bad connector must not hurt anything else (the worker's isolation rule, pyconnect/runtime/worker.py).

Two `replikafka distributed` workers with their default session and heartbeat settings run a healthy MirrorSource
flow A->B under steady traffic. Beside it a user adds three bad connectors: a MirrorSourceConnector whose source
cluster does not answer (the new user's mistake that used to knock its worker out of the cluster), a connector
whose start never returns and one whose task blocks forever in poll(). For 60 s:
- the healthy flow copies in every 10 s window;
- neither worker logs a membership loss, and REST answers within 2 s throughout;
- the unreachable one is FAILED within its timeout, its reason naming the cluster's alias and address;
- the status API answers for every connector that exists (the hanging one is UNASSIGNED, not 404) and never shows
  a task RUNNING on a worker outside the cluster.
Deleting the bad connectors stops the hanging task within its graceful timeout (abandoned, with one WARNING) and
delays nothing else.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from tests.harness.brokers import Broker, free_port
from tests.harness.connectors import status
from tests.harness.hanging_plugins import HANGING_POLL, HANGING_START
from tests.harness.kafka_io import PacedProducer, create_topic, fetched_ends
from tests.harness.mirror import mirror_source
from tests.harness.workers import WorkerProcess, wait_for

WATCH_S, WINDOW_S = 60.0, 10.0
MEMBERSHIP_LOSS = ("out of sync with its cluster", "lost this task's assignment", "has not been able to read")


def _copied(b: Broker, topic: str, timeout: float = 30.0) -> int:
    return sum(fetched_ends(b.bootstrap, topic, timeout).values())


def _running_elsewhere(workers: list[WorkerProcess]) -> list[str]:
    """Every task a worker's status API shows RUNNING on a worker that is not one of `workers`."""
    ids = {w.worker_id for w in workers}
    bad = []
    for w in workers:
        body = w.request("GET", "/connectors?expand=status").json()
        for name, info in body.items():
            bad += [f"{name}-{t['id']} on {t['worker_id']} (asked {w.worker_id})" for t in info["status"]["tasks"]
                    if t["state"] == "RUNNING" and t["worker_id"] not in ids]
    return bad


def _create_bad_connectors(w: WorkerProcess, a: Broker, b: Broker, dead: int) -> None:
    unreachable = mirror_source(a, b, {"topics": "orders", "source.cluster.bootstrap.servers": f"127.0.0.1:{dead}"})
    for name, config in (("badsrc", unreachable), ("hangstart", {"connector.class": HANGING_START}),
                         ("hangpoll", {"connector.class": HANGING_POLL, "tasks.max": "1"})):
        r = w.request("POST", "/connectors", {"name": name, "config": config})
        assert r.status_code == 201, r.text


def _watch(workers: list[WorkerProcess], b: Broker, target_topic: str, seen: dict[str, Any]) -> None:
    """The 60 s watch: the healthy flow's progress per window, REST latency, and what the status API shows."""
    w0 = workers[0]
    start = time.monotonic()
    window_end, last = start + WINDOW_S, _copied(b, target_topic)
    while time.monotonic() - start < WATCH_S:
        t0 = time.monotonic()
        st = status(w0, "badsrc")
        seen["rest_max_s"] = max(seen.get("rest_max_s", 0.0), time.monotonic() - t0)
        if st.get("connector", {}).get("state") == "FAILED" and "failed_after_s" not in seen:
            seen["failed_after_s"], seen["trace"] = time.monotonic() - start, st["connector"].get("trace", "")
        hang = w0.request("GET", "/connectors/hangstart/status")
        seen.setdefault("hangstart_codes", set()).add(hang.status_code)
        seen.setdefault("elsewhere", []).extend(_running_elsewhere(workers))
        if time.monotonic() >= window_end:
            now = _copied(b, target_topic)
            seen.setdefault("windows", []).append(now - last)
            last, window_end = now, window_end + WINDOW_S
        time.sleep(0.5)  # the watch's sampling period, not a synchronisation


def test_bad_connectors_beside_a_healthy_flow_hurt_nothing(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                           unique: str) -> None:
    workers = cluster_factory(on=broker_b).start(2)  # a Connect cluster writes to its own cluster: the target
    w0 = workers[0]
    topic = f"iso-{unique}"
    create_topic(broker.bootstrap, topic, 3)
    healthy = mirror_source(broker, broker_b, {"topics": topic, "tasks.max": "2"})
    assert w0.request("POST", "/connectors", {"name": "healthy", "config": healthy}).status_code == 201
    stop = threading.Event()
    producer = PacedProducer(broker.bootstrap, topic, 0, 10**9, 3, stop, burst=70)  # ~700 records/s
    producer.start()
    try:
        wait_for(lambda: _copied(broker_b, f"A.{topic}") > 0, 60, "the healthy flow copying")
        dead = free_port()
        _create_bad_connectors(w0, broker, broker_b, dead)
        seen: dict[str, Any] = {}
        _watch(workers, broker_b, f"A.{topic}", seen)
        print(f"copied per {WINDOW_S:.0f}s window: {seen['windows']}; badsrc FAILED after "
              f"{seen.get('failed_after_s')}s; slowest REST answer {seen['rest_max_s']:.2f}s")
        assert len(seen["windows"]) >= 5 and all(n > 0 for n in seen["windows"]), seen["windows"]
        assert seen.get("failed_after_s") is not None and seen["failed_after_s"] < 45, seen
        assert "cluster A" in seen["trace"] and f"127.0.0.1:{dead}" in seen["trace"], seen["trace"][-500:]
        assert seen["hangstart_codes"] == {200}, "a connector that exists always has a status"
        assert status(w0, "hangstart")["connector"]["state"] == "UNASSIGNED"
        assert status(w0, "hangpoll")["tasks"][0]["state"] == "RUNNING", "blocked in poll, but running"
        assert not seen["elsewhere"], seen["elsewhere"][:5]
        assert seen["rest_max_s"] < 2.0, seen["rest_max_s"]
        _delete_and_check(workers, broker_b, f"A.{topic}")
    finally:
        stop.set()
        producer.join(10)
    for w in workers:
        log = w.log_path.read_text(errors="replace")
        assert not [line for line in log.splitlines() if any(m in line for m in MEMBERSHIP_LOSS)], w.name
        assert w.process is not None and w.process.poll() is None


def _delete_and_check(workers: list[WorkerProcess], b: Broker, target_topic: str) -> None:
    w0 = workers[0]
    for name in ("badsrc", "hangstart", "hangpoll"):
        t0 = time.monotonic()
        assert w0.request("DELETE", f"/connectors/{name}").status_code == 204
        assert time.monotonic() - t0 < 5, f"DELETE {name} took {time.monotonic() - t0:.1f}s"
    before = _copied(b, target_topic)
    # Short looks: one that cannot finish is retried by wait_for, within its deadline.
    wait_for(lambda: _copied(b, target_topic, 10) > before, 60, "the healthy flow copying after the deletes")
    # The hanging task ignores stop: its worker abandons it after the graceful timeout (5 s + 5 s), once.
    wait_for(lambda: any("hangpoll-0] task did not stop within the graceful timeout; abandoned"
                         in w.log_path.read_text(errors="replace") for w in workers), 30, "the abandoned task")
    assert sorted(w0.request("GET", "/connectors").json()) == ["healthy"]
