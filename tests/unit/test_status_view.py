"""What the status API shows of status records (pyconnect/runtime/herder/status_view.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pyconnect.api.states import State
from pyconnect.api.task_id import TaskId
from pyconnect.runtime.cluster.assignment import WorkerAssignment
from pyconnect.runtime.cluster.membership_records import Assignment
from pyconnect.runtime.herder.status_view import not_yet_reported, seen
from pyconnect.storage.status_store import Status

WORKERS = ["w1", "w2", "w3"]


@given(st.sampled_from(list(State)), st.sampled_from(WORKERS), st.sets(st.sampled_from(WORKERS)))
def test_nothing_shows_running_or_paused_on_a_worker_outside_the_cluster(state: State, worker: str,
                                                                         live: set[str]) -> None:
    shown = seen(Status(state, worker, 3, "trace"), live)
    if worker in live:
        assert shown == Status(state, worker, 3, "trace"), "a live worker's status is shown as written"
    else:
        assert shown.state not in (State.RUNNING, State.PAUSED)
        assert shown.state == (State.UNASSIGNED if state in (State.RUNNING, State.PAUSED) else state)
        assert shown.worker_id == worker and shown.trace == "trace"


def test_a_status_that_names_no_worker_is_shown_as_written() -> None:
    assert seen(Status(State.RUNNING, None, 1), set()).state == State.RUNNING


def test_a_connector_without_a_status_is_unassigned_on_its_assigned_worker() -> None:
    assignment = Assignment("w1", "s", "http://w1", 1, 7, {"w1": WorkerAssignment(), "w2": WorkerAssignment(
        frozenset({"c"}), frozenset({TaskId("c", 0)}))})
    assert not_yet_reported("c", assignment) == Status(State.UNASSIGNED, "w2", 7)
    assert not_yet_reported("other", assignment) == Status(State.UNASSIGNED, "", 7)
    assert not_yet_reported("c", None) == Status(State.UNASSIGNED, "", -1)
