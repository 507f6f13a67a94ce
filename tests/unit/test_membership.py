"""Membership protocol over the in-memory log: election, failure detection and fencing.

Time is a FakeClock: the tests move it on by hand, so nothing here waits through a real time window.
"""

from __future__ import annotations

import threading

import orjson
import pytest

from pyconnect.api.task_id import TaskId
from pyconnect.runtime.cluster.assignment import WorkerAssignment
from pyconnect.runtime.cluster.membership import Membership
from pyconnect.storage.log import MemoryLog, MemoryTopic
from tests.harness.clock import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


class CutOffLog(MemoryLog):
    """The in-memory log, whose reads fail while `cut_off` is set: a worker that cannot reach its cluster."""

    cut_off = False

    def read_to_end(self, timeout: float = 30.0) -> None:
        if self.cut_off:
            raise TimeoutError("the cluster does not answer")
        super().read_to_end(timeout)


def cut_off(m: Membership, cut: bool = True) -> None:
    """Make `m`'s reads of the membership topic fail (or work again)."""
    log_ = m._log
    assert isinstance(log_, CutOffLog)
    log_.cut_off = cut


def member(topic: MemoryTopic, clock: FakeClock, wid: str, session_ms: int = 400) -> Membership:
    """A started member beating every 50 ms of fake time and reading the topic every 25 ms (its heartbeat and
    reader threads already asleep on the clock)."""
    m = Membership(CutOffLog(topic), wid, f"http://{wid}", session_ms, 50, clock=clock)
    m.start()
    clock.await_sleeper(f"membership-heartbeat-{wid}")
    clock.await_sleeper(f"membership-reader-{wid}")
    return m


def crash(m: Membership) -> None:
    """As after kill -9: the member's heartbeats stop, and no leave record is written."""
    with m._changed:
        m._stopping = True
        m._changed.notify_all()
    assert m._threads
    for thread in m._threads:
        thread.join(5)
        assert not thread.is_alive()


def waiter(clock: FakeClock, m: Membership, timeout: float, name: str) -> tuple[threading.Thread, list[bool]]:
    """`m.await_leader(timeout)` on a thread named `name`, once it is waiting on the clock."""
    result: list[bool] = []
    thread = threading.Thread(target=lambda: result.append(m.await_leader(timeout)), name=name)
    thread.start()
    clock.await_sleeper(name)
    return thread, result


def test_first_joined_becomes_leader_and_others_follow(clock: FakeClock) -> None:
    topic = MemoryTopic()
    a, b, c = member(topic, clock, "a"), member(topic, clock, "b"), member(topic, clock, "c")
    assert not b.maybe_claim() and not c.maybe_claim()  # not first in join order
    assert a.maybe_claim()
    assert a.is_leader() and b.leader == (a.worker_id, a.session) and c.leader == b.leader
    for m in (a, b, c):
        m.stop()


def test_only_first_claim_of_an_epoch_wins(clock: FakeClock) -> None:
    topic = MemoryTopic()
    a, b = member(topic, clock, "a"), member(topic, clock, "b")
    log = MemoryLog(topic)
    log.send(b"claim-b", orjson.dumps({"worker": "b", "session": b.session, "leader_epoch": 1}))
    log.send(b"claim-a", orjson.dumps({"worker": "a", "session": a.session, "leader_epoch": 1}))
    assert b.is_leader() and not a.is_leader() and a.leader == ("b", b.session)
    a.stop()
    b.stop()


def test_dead_leader_is_detected_and_replaced(clock: FakeClock) -> None:
    topic = MemoryTopic()
    a, b = member(topic, clock, "a"), member(topic, clock, "b")
    assert a.maybe_claim()
    crash(a)
    clock.advance(0.35)  # b keeps beating; a's last heartbeat is 0.35 s old, inside the 0.4 s session
    assert b.sync() and not b.maybe_claim() and not b.is_leader(), "must wait for the session timeout"
    clock.advance(0.1)
    assert b.sync() and b.maybe_claim()
    assert b.leader_epoch == 2 and b.leader == ("b", b.session)
    b.stop()


def test_leave_record_triggers_immediate_election(clock: FakeClock) -> None:
    topic = MemoryTopic()
    a, b = member(topic, clock, "a", session_ms=60_000), member(topic, clock, "b", session_ms=60_000)
    assert a.maybe_claim()
    a.stop()
    assert b.maybe_claim()


def test_stale_leader_assignment_is_fenced(clock: FakeClock) -> None:
    topic = MemoryTopic()
    a, b = member(topic, clock, "a"), member(topic, clock, "b")
    assert a.maybe_claim()
    assert a.publish({"a": WorkerAssignment(frozenset(["c"]), frozenset([TaskId("c", 0)]))})
    assert b.assignment is not None and b.assignment.of("a").tasks == {TaskId("c", 0)}
    # b takes over (a looked dead); a, unaware, tries to publish with its old epoch.
    log = MemoryLog(topic)
    log.send(b"claim-b", orjson.dumps({"worker": "b", "session": b.session, "leader_epoch": 2}))
    log.send(b"assignment", orjson.dumps({"leader": "a", "leader_session": a.session, "leader_epoch": 1,
                                          "generation": 99, "assignment": {"a": {"tasks": ["c-1"]}}}))
    assert b.assignment.generation == 1 and b.assignment.of("a").tasks == {TaskId("c", 0)}
    assert not a.publish({"a": WorkerAssignment()}), "a deposed leader may not publish"
    assert b.publish({"b": WorkerAssignment(frozenset(), frozenset([TaskId("c", 0)]))})
    assert a.assignment is not None and a.assignment.of("b").tasks == {TaskId("c", 0)} and a.assignment.generation == 2
    a.stop()
    b.stop()


def test_worker_that_cannot_read_is_out_of_sync(clock: FakeClock) -> None:
    topic = MemoryTopic()
    a = member(topic, clock, "a", session_ms=200)
    assert a.in_sync()
    clock.advance(1.0)
    assert a.in_sync(), "its reader thread reads the topic on its own: in sync while the cluster answers"
    cut_off(a)
    clock.advance(0.17)
    assert a.in_sync(), "in sync until a whole session timeout has passed without a sync"
    clock.advance(0.04)
    assert not a.in_sync(), "self-fencing after a session timeout without a sync"
    cut_off(a, False)
    clock.advance(0.03)
    assert a.in_sync() and a.lapses == 1, "the reader thread is back in sync by itself, after a lapse"
    a.stop()


def test_requests_wait_for_a_leader_instead_of_failing_while_joining(clock: FakeClock) -> None:
    topic = MemoryTopic()
    a, b = member(topic, clock, "a"), member(topic, clock, "b")
    short, short_result = waiter(clock, b, 0.05, "short-wait")
    clock.advance(0.05)  # nobody has claimed yet: a short wait times out
    short.join(5)
    assert short_result == [False]
    # The waiter blocks first (it sleeps on the clock), so the claim is what wakes it.
    waiting, result = waiter(clock, b, 3.0, "waiter")
    assert a.maybe_claim()
    waiting.join(5)
    assert result == [True] and b.leader_url() == "http://a"
    a.stop()
    b.stop()
