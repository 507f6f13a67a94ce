"""Membership protocol over the in-memory log: election, failure detection and fencing."""

from __future__ import annotations

import time

import orjson

from pyconnect.runtime.assignment import WorkerAssignment
from pyconnect.runtime.membership import Membership
from pyconnect.storage.log import MemoryLog, MemoryTopic


def member(topic: MemoryTopic, wid: str, session_ms: int = 400) -> Membership:
    m = Membership(MemoryLog(topic), wid, f"http://{wid}", session_ms, 50)
    m.start()
    return m


def wait(predicate, timeout: float = 3.0) -> bool:  # type: ignore[no-untyped-def]
    """Poll `predicate` under a deadline (the sleep below is the poll interval, not a wait for an event)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)  # the poll interval under the deadline, not a wait for an event
    return False


def test_first_joined_becomes_leader_and_others_follow() -> None:
    topic = MemoryTopic()
    a, b, c = member(topic, "a"), member(topic, "b"), member(topic, "c")
    assert not b.maybe_claim() and not c.maybe_claim()  # not first in join order
    assert a.maybe_claim()
    assert a.is_leader() and b.leader == (a.worker_id, a.session) and c.leader == b.leader
    for m in (a, b, c):
        m.stop()


def test_only_first_claim_of_an_epoch_wins() -> None:
    topic = MemoryTopic()
    a, b = member(topic, "a"), member(topic, "b")
    log = MemoryLog(topic)
    log.send(b"claim-b", orjson.dumps({"worker": "b", "session": b.session, "leader_epoch": 1}))
    log.send(b"claim-a", orjson.dumps({"worker": "a", "session": a.session, "leader_epoch": 1}))
    assert b.is_leader() and not a.is_leader() and a.leader == ("b", b.session)
    a.stop()
    b.stop()


def test_dead_leader_is_detected_and_replaced() -> None:
    topic = MemoryTopic()
    a, b = member(topic, "a"), member(topic, "b")
    assert a.maybe_claim()
    a._stop.set()  # the leader's heartbeats stop, as after kill -9 (no leave record)
    started = time.monotonic()
    assert wait(lambda: b.sync() and (b.maybe_claim() or b.is_leader()))
    assert time.monotonic() - started >= 0.3, "must wait for the session timeout"
    assert b.leader_epoch == 2 and b.leader == ("b", b.session)
    b.stop()


def test_leave_record_triggers_immediate_election() -> None:
    topic = MemoryTopic()
    a, b = member(topic, "a", session_ms=60_000), member(topic, "b", session_ms=60_000)
    assert a.maybe_claim()
    a.stop()
    assert b.maybe_claim()


def test_stale_leader_assignment_is_fenced() -> None:
    topic = MemoryTopic()
    a, b = member(topic, "a"), member(topic, "b")
    assert a.maybe_claim()
    assert a.publish({"a": WorkerAssignment(frozenset(["c"]), frozenset(["c-0"]))})
    assert b.assignment is not None and b.assignment.of("a").tasks == {"c-0"}
    # b takes over (a looked dead); a, unaware, tries to publish with its old epoch.
    log = MemoryLog(topic)
    log.send(b"claim-b", orjson.dumps({"worker": "b", "session": b.session, "leader_epoch": 2}))
    log.send(b"assignment", orjson.dumps({"leader": "a", "leader_session": a.session, "leader_epoch": 1,
                                          "generation": 99, "assignment": {"a": {"tasks": ["c-1"]}}}))
    assert b.assignment.generation == 1 and b.assignment.of("a").tasks == {"c-0"}
    assert not a.publish({"a": WorkerAssignment()}), "a deposed leader may not publish"
    assert b.publish({"b": WorkerAssignment(frozenset(), frozenset(["c-0"]))})
    assert a.assignment is not None and a.assignment.of("b").tasks == {"c-0"} and a.assignment.generation == 2
    a.stop()
    b.stop()


def test_worker_that_cannot_read_is_out_of_sync() -> None:
    topic = MemoryTopic()
    a = member(topic, "a", session_ms=200)
    assert a.in_sync()
    assert wait(lambda: not a.in_sync(), 1.0), "self-fencing after a session timeout without a sync"
    a.sync()
    assert a.in_sync()
    a.stop()


def test_requests_wait_for_a_leader_instead_of_failing_while_joining() -> None:
    import threading
    topic = MemoryTopic()
    a, b = member(topic, "a"), member(topic, "b")
    assert not b.await_leader(0.05)  # nobody has claimed yet: a short wait times out
    result: list[bool] = []
    waiter = threading.Thread(target=lambda: result.append(b.await_leader(3.0)))
    waiter.start()
    time.sleep(0.05)  # let the waiter block first, so the claim is what wakes it
    assert a.maybe_claim()
    waiter.join(5)
    assert result == [True] and b.leader_url() == "http://a"
    a.stop()
    b.stop()
