"""Hand-over (pyconnect/runtime/cluster/handover.py) over the in-memory membership topic, on a FakeClock.

The leader's side is `HandOver.plan` + `Membership.publish`, as `LeaderDuties._rebalance_if_needed`
calls them; a follower "applies" a generation by calling `report_applied`, as its reconcile does once it
has stopped what it lost. Members beat every 50 ms of fake time and time out after 400 ms.
"""

from __future__ import annotations

from collections.abc import Iterator

import orjson
import pytest

from pyconnect.api.task_id import TaskId
from pyconnect.runtime.cluster.handover import HandOver
from pyconnect.runtime.cluster.membership import Assignment, Membership
from pyconnect.runtime.cluster.membership_records import Revocation
from pyconnect.storage.log import MemoryLog, MemoryTopic
from tests.harness.clock import FakeClock

CONNECTORS = ["c1", "c2"]
TASKS = [TaskId(c, i) for c in CONNECTORS for i in range(3)]


class Cluster:
    """Members on one in-memory topic; the first one started leads."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock, self.topic = clock, MemoryTopic()
        self.members: dict[str, Membership] = {}

    def join(self, wid: str) -> Membership:
        m = Membership(MemoryLog(self.topic), wid, f"http://{wid}", 400, 50, clock=self.clock)
        m.start()
        self.clock.await_sleeper(f"membership-heartbeat-{wid}")
        self.clock.await_sleeper(f"membership-reader-{wid}")
        self.members[wid] = m
        return m

    def crash(self, wid: str) -> None:
        """As after kill -9: heartbeats stop, no leave record."""
        m = self.members.pop(wid)
        with m._changed:
            m._stopping = True
            m._changed.notify_all()
        assert m._threads
        for thread in m._threads:
            thread.join(5)

    def leave(self, wid: str) -> None:
        self.members.pop(wid).stop()


def rebalance(leader: Membership, handover: HandOver) -> Assignment:
    """One pass of the leader's `_rebalance_if_needed`: publish only what changes something."""
    live = {w: m.applied for w, m in leader.live_members().items()}
    current = leader.assignment
    plan = handover.plan(live, current, CONNECTORS, TASKS, leader.next_generation())
    if current is None or current.leader_epoch != leader.leader_epoch or not plan.same_as(current):
        assert leader.publish(plan.workers, plan.revoked)
    assert leader.assignment is not None
    return leader.assignment


def apply(m: Membership) -> None:
    """The follower's reconcile: it stops what it lost, then reports the generation."""
    assert m.assignment is not None
    m.report_applied(m.assignment.generation)


def owners(assignment: Assignment) -> dict[str | TaskId, list[str]]:
    """Unit -> the workers it is assigned to (never more than one)."""
    found: dict[str | TaskId, list[str]] = {}
    for worker, share in assignment.workers.items():
        units: list[str | TaskId] = [*share.connectors, *share.tasks]
        for unit in units:
            found.setdefault(unit, []).append(worker)
    assert all(len(ws) == 1 for ws in found.values()), found
    return found


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    c = Cluster(FakeClock())
    yield c
    for m in list(c.members.values()):
        m.stop()


def started_alone(cluster: Cluster) -> tuple[Membership, HandOver]:
    """Worker a leads and runs everything (nothing to hand over from nobody)."""
    a = cluster.join("a")
    assert a.maybe_claim()
    handover = HandOver(a.clock, a.session_timeout)
    first = rebalance(a, handover)
    assert first.revoked == {} and first.of("a").tasks == frozenset(TASKS)
    apply(a)
    return a, handover


def test_a_unit_moves_off_a_live_worker_only_after_it_confirms_the_stop(cluster: Cluster) -> None:
    a, handover = started_alone(cluster)
    b = cluster.join("b")
    revoking = rebalance(a, handover)
    moving = frozenset(TASKS) - revoking.of("a").tasks
    assert len(moving) == 3 and revoking.of("a").connectors == {"c1"}, "a keeps half of the work"
    assert revoking.of("b").tasks == frozenset() and revoking.of("b").connectors == frozenset(), \
        "nothing is placed on b while a may still run it"
    assert revoking.revoked == {"a": Revocation(frozenset({"c2"}), moving, revoking.generation)}
    assert b.assignment == revoking, "followers read the revocation too"

    cluster.clock.advance(0.2)  # a keeps beating but has not applied the revoking generation yet
    assert rebalance(a, handover) == revoking, "no new assignment while the old owner has not confirmed"

    apply(a)  # a stopped what it lost: its prompt heartbeat says so
    assert a.live_members()["a"].applied == revoking.generation
    placed = rebalance(a, handover)
    assert placed.generation == revoking.generation + 1 and placed.revoked == {}
    assert placed.of("b").tasks == moving and placed.of("b").connectors == {"c2"}, "the units go where planned"
    owners(placed)


def test_units_of_a_dead_or_departed_worker_move_at_once(cluster: Cluster) -> None:
    a, handover = started_alone(cluster)
    cluster.join("b")
    cluster.join("c")
    rebalance(a, handover)
    apply(a)
    spread = rebalance(a, handover)
    assert spread.revoked == {} and all(spread.of(w).tasks for w in "abc")
    of_b, of_c = spread.of("b").tasks, spread.of("c").tasks

    cluster.crash("b")
    cluster.clock.advance(0.45)  # past b's session timeout; a and c keep beating
    after_crash = rebalance(a, handover)
    assert after_crash.revoked == {} and "b" not in after_crash.workers, "a dead owner confirms nothing"
    assert of_b <= after_crash.of("a").tasks | after_crash.of("c").tasks

    cluster.leave("c")  # a leave record: c stopped its tasks before writing it
    after_leave = rebalance(a, handover)
    assert after_leave.revoked == {} and after_leave.of("a").tasks == frozenset(TASKS), "no session timeout to wait"
    assert of_c <= after_leave.of("a").tasks


def test_an_owner_that_does_not_confirm_is_treated_as_dead_for_the_unit_after_a_session_timeout(
        cluster: Cluster) -> None:
    a, handover = started_alone(cluster)
    cluster.join("b")
    revoking = rebalance(a, handover)
    assert revoking.revoked["a"].tasks, "a's share is revoked"
    # a never applies the revocation (a stop that hangs), but it stays live: its heartbeats go on.
    cluster.clock.advance(0.35)
    assert rebalance(a, handover) == revoking, "still inside the revocation timeout"
    cluster.clock.advance(0.1)
    assert "a" in a.live_members() and a.live_members()["a"].applied < revoking.generation
    moved = rebalance(a, handover)
    assert moved.revoked == {} and moved.of("b").tasks == revoking.revoked["a"].tasks
    owners(moved)


def test_a_dead_old_owner_ends_its_pending_revocation_at_once(cluster: Cluster) -> None:
    a, handover = started_alone(cluster)
    b = cluster.join("b")
    rebalance(a, handover)
    apply(a)
    spread = rebalance(a, handover)
    cluster.join("c")
    revoking = rebalance(a, handover)
    assert set(revoking.revoked) == {"a", "b"}, "both give a share to c"
    apply(a)
    assert b.assignment is not None
    cluster.crash("b")
    cluster.clock.advance(0.45)
    moved = rebalance(a, handover)
    assert moved.revoked == {} and spread.of("b").tasks <= moved.of("a").tasks | moved.of("c").tasks
    owners(moved)


def test_a_leader_elected_mid_hand_over_keeps_the_revocation(cluster: Cluster) -> None:
    a, handover = started_alone(cluster)
    b = cluster.join("b")
    cluster.join("c")
    rebalance(a, handover)
    apply(a)
    assert not rebalance(a, handover).revoked
    cluster.join("d")
    revoking = rebalance(a, handover)
    assert revoking.revoked and "d" not in revoking.revoked, "d's share comes from the others"
    # b takes over before any confirmation (a looked dead to it); a is still a member.
    MemoryLog(cluster.topic).send(b"claim-b", orjson.dumps({"worker": "b", "session": b.session, "leader_epoch": 2}))
    assert b.is_leader() and not a.is_leader()
    successor = HandOver(b.clock, b.session_timeout)
    carried = rebalance(b, successor)
    assert carried.leader_epoch == 2 and carried.revoked == revoking.revoked, \
        "the revocations, read from the record, still wait for their old owners"
    assert carried.of("d") == revoking.of("d")
    for wid in revoking.revoked:
        apply(cluster.members[wid])
    done = rebalance(b, successor)
    assert done.revoked == {} and done.of("d").tasks == {t for r in revoking.revoked.values() for t in r.tasks}
    owners(done)
