"""What a runner holds of the assignment it was started under: a lease that says whether that assignment
still holds, and a status reporter that writes the runner's states as that assignment's owner.

Invariants:
- Both are bound at the runner's start to the membership's lapse count (and the reporter to the assignment's
  generation). Once the worker has been out of its cluster for a session timeout (a lapse), is out of sync,
  or is fenced, the lease answers False for good and the reporter writes nothing: the runner's work may run
  elsewhere by then, and a status from it would pass a stale owner for the current one.
- A failure or shutdown status is written with Connect's putSafe: never over a newer owner's status.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from pyconnect.api.states import State
from pyconnect.storage.status_store import Status, StatusStore

log = logging.getLogger(__name__)

Lease = Callable[[], bool]


class StatusReport(Protocol):
    """What a connector or task runner calls with each new state."""

    def __call__(self, state: State, trace: str | None, progress: dict[str, Any] | None = None) -> None: ...


class MembershipState(Protocol):
    """The few facts of the worker's membership that a lease rests on."""

    @property
    def lapses(self) -> int: ...

    @property
    def fenced(self) -> str | None: ...

    def in_sync(self) -> bool: ...


def _holds(membership: MembershipState, lapses: int) -> bool:
    return membership.lapses == lapses and membership.in_sync() and membership.fenced is None


def assignment_lease(membership: MembershipState) -> Lease:
    """Whether the assignment a task starts under now still holds: the worker has been in its cluster
    throughout (no session timeout out of it since). Cheap: the task's loop asks before every batch."""
    lapses = membership.lapses

    def holds() -> bool:
        return _holds(membership, lapses)
    return holds


def status_reporter(membership: MembershipState, statuses: StatusStore, worker_id: str, generation: int,
                    connector: str, task: int | None) -> StatusReport:
    """Writes the states of `connector` (or of its task `task`) as this worker's under `generation`, the
    assignment the runner was started under (not the worker's latest: a runner that outlived its assignment,
    a frozen worker's, must not pass for the current owner)."""
    lapses = membership.lapses

    def report(state: State, trace: str | None, progress: dict[str, Any] | None = None) -> None:
        if membership.lapses != lapses or not membership.in_sync() or membership.fenced:
            # This worker has been (or is) out of its cluster for a session timeout: its runners are being
            # stopped and their work may run elsewhere; a status from them would be stale.
            log.info("not reporting %s for %s%s: the worker lost its assignment", state, connector,
                     "" if task is None else f"-{task}")
            return
        status = Status(state, worker_id, generation, trace, progress)
        # Connect's putSafe for failures and shutdowns: never over a newer owner's status.
        safe = state in (State.FAILED, State.UNASSIGNED)
        if task is None:
            statuses.put_connector(connector, status, safe)
        else:
            statuses.put_task(connector, task, status, safe)
    return report
