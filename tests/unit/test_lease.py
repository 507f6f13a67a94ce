"""A runner's lease and status reporter (pyconnect/runtime/cluster/lease.py) over a real membership on the
in-memory log and a real status store, on a FakeClock.

Connect's counterpart: a worker that lost its group membership stops its tasks before it takes work again,
and a status written on a failure or shutdown goes through KafkaStatusBackingStore.putSafe (never over a
newer owner's status).
"""

from __future__ import annotations

from pyconnect.api.states import State
from pyconnect.runtime.cluster.lease import assignment_lease, status_reporter
from pyconnect.runtime.cluster.membership import Membership
from pyconnect.storage.log import MemoryLog, MemoryTopic
from pyconnect.storage.status_store import Status, StatusStore
from tests.harness.clock import FakeClock
from tests.unit.test_membership import cut_off, member


def _store() -> StatusStore:
    store = StatusStore(MemoryLog(MemoryTopic(5)))
    store.start()
    return store


def _lapse(clock: FakeClock, m: Membership) -> None:
    """A session timeout without reading the membership topic, then back in sync: one lapse."""
    cut_off(m)
    clock.advance(m.session_timeout + 0.01)
    assert not m.in_sync()
    cut_off(m, False)
    assert m.sync()


def test_a_lease_holds_until_the_worker_lapses_and_never_again() -> None:
    clock = FakeClock()
    m = member(MemoryTopic(), clock, "a", session_ms=200)
    lease = assignment_lease(m)
    assert lease()
    cut_off(m)
    clock.advance(0.21)  # out of sync: the lease says no at once, before the worker is back
    assert not m.in_sync() and not lease()
    cut_off(m, False)
    assert m.sync() and m.in_sync() and m.lapses == 1
    assert not lease(), "back in sync, but the assignment it was taken under may have run elsewhere"
    assert assignment_lease(m)(), "a lease taken after the lapse holds"
    m.stop()


def test_the_reporter_writes_as_the_assignment_it_started_under_until_a_lapse() -> None:
    clock, statuses = FakeClock(), _store()
    m = member(MemoryTopic(), clock, "a", session_ms=200)
    connector = status_reporter(m, statuses, "a", 7, "c", None)
    task = status_reporter(m, statuses, "a", 7, "c", 0)
    connector(State.RUNNING, None)
    task(State.RUNNING, None, {"records": 3})
    assert statuses.connector("c") == Status(State.RUNNING, "a", 7)
    assert statuses.task("c", 0) == Status(State.RUNNING, "a", 7, None, {"records": 3})
    _lapse(clock, m)
    task(State.FAILED, "boom")
    connector(State.UNASSIGNED, None)
    assert statuses.task("c", 0) == Status(State.RUNNING, "a", 7, None, {"records": 3}), "a stale runner wrote"
    assert statuses.connector("c") == Status(State.RUNNING, "a", 7)
    m.stop()


def test_a_failure_is_never_written_over_a_newer_owners_status() -> None:
    clock, statuses = FakeClock(), _store()
    m = member(MemoryTopic(), clock, "a")
    statuses.put_task("c", 0, Status(State.RUNNING, "b", 9))  # the task's newer owner
    status_reporter(m, statuses, "a", 7, "c", 0)(State.FAILED, "late")
    assert statuses.task("c", 0) == Status(State.RUNNING, "b", 9)
    status_reporter(m, statuses, "a", 10, "c", 0)(State.FAILED, "now")
    assert statuses.task("c", 0) == Status(State.FAILED, "a", 10, "now")
    m.stop()
