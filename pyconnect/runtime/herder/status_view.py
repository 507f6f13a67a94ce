"""What the status API shows of a status record: what this worker's membership knows now, not only what was
last written.

Invariants:
- A status never shows a connector or task RUNNING or PAUSED on a worker that is not a live member of the
  cluster. Such a record was written by a worker that has died, frozen or been out of its cluster for a session
  timeout since; its unit shows UNASSIGNED (on that worker) until its new owner writes a status of its own (the
  leader moves the unit within a session timeout). Connect shows the stale RUNNING until then.
- A connector that exists always has a status: before its owner has written one (it is being assigned or
  started) it is UNASSIGNED, on the worker the current assignment gives it to, where Connect answers 404
  "No status found".
A status that names no worker (Java's workers may write none) is shown as written.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from pyconnect.api.states import State
from pyconnect.runtime.cluster.membership_records import Assignment
from pyconnect.storage.status_store import Status


def seen(status: Status, live: Collection[str]) -> Status:
    """`status` as the API shows it, given the worker ids that are live members now."""
    if status.state in (State.RUNNING, State.PAUSED) and status.worker_id and status.worker_id not in live:
        return replace(status, state=State.UNASSIGNED)
    return status


def not_yet_reported(name: str, assignment: Assignment | None) -> Status:
    """The status of an existing connector whose owner has not written one yet."""
    owner = ""
    generation = -1
    if assignment is not None:
        generation = assignment.generation
        owner = next((w for w, a in assignment.workers.items() if name in a.connectors), "")
    return Status(State.UNASSIGNED, owner, generation)
