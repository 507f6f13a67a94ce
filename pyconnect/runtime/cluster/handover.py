"""The leader's hand-over of connectors and tasks between workers: revoke first, assign after.

Invariant: a unit (a connector or a task) never has two owners that both run it, unless one of them
is dead. At-least-once delivery needs it: a task started on its new worker reads the committed
offsets, so while the old worker still runs the task (delivering, committing) the new one re-sends
what the old one sends after its last commit.

How the leader keeps it, as Kafka Connect's incremental cooperative rebalancing does:

1. Where the desired assignment (the pure, sticky `assign`) moves a unit away from a LIVE worker, the
   leader first publishes an assignment that gives the unit to nobody and names it in `revoked`
   under its old owner, with the generation of that assignment.
2. Each worker reconciles every assignment it accepts: it stops (and joins) everything outside its
   share, then reports that generation as `applied` in a heartbeat sent at once.
3. The leader places a revoked unit on its new owner only when nobody may still run it: the old
   owner's `applied` has reached the revoking generation, or the old owner is no longer live.

Exceptions, each because the old owner runs nothing any more, or must be treated as if it did not:
- The units of a dead worker (no heartbeat for `session.timeout.ms`) or a departed one (a leave
  record, written after its tasks stopped) move at once, so fail-over takes one session timeout.
- A live old owner that has not confirmed within the revocation timeout (`session.timeout.ms`) is
  treated as dead for that unit, so one stuck stop cannot hold a unit forever. By then it has been told
  to stop the unit for a whole session timeout: either it could not read the assignment, and then it
  stopped everything itself (self-fencing, see membership.py), or its stop outlasted the graceful
  shutdown bound (`task.shutdown.graceful.timeout.ms` + 5 s, 10 s by default) and was abandoned, as
  Connect abandons it.
- A worker of an earlier version never reports `applied`: its units move after that timeout.

Revocations travel in the assignment record, so a leader elected mid-hand-over carries on with them
(its timeouts start when it first sees them). A unit whose desired owner is again its old owner is
simply given back. A worker with several pending revocations has one entry, with the newest
revoking generation: confirming it confirms them all (a little later, never too early).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from pyconnect.api.task_id import TaskId
from pyconnect.runtime.clock import Clock
from pyconnect.runtime.cluster.assignment import WorkerAssignment, assign
from pyconnect.runtime.cluster.membership_records import Assignment, Revocation

log = logging.getLogger(__name__)

Unit = str | TaskId  # a connector by name, or a task


@dataclass(frozen=True)
class Plan:
    """What the leader publishes next: the placement, and the revocations still unconfirmed."""

    workers: dict[str, WorkerAssignment]
    revoked: dict[str, Revocation]

    def same_as(self, current: Assignment) -> bool:
        """True if publishing this would change nothing."""
        return self.workers == current.workers and self.revoked == current.revoked


def _units(share: WorkerAssignment | Revocation) -> set[Unit]:
    return {*share.connectors, *share.tasks}


def _share(units: Iterable[Unit]) -> tuple[frozenset[str], frozenset[TaskId]]:
    units = list(units)
    return (frozenset(u for u in units if isinstance(u, str)),
            frozenset(u for u in units if isinstance(u, TaskId)))


def plan(live: Mapping[str, int], current: Assignment | None, connectors: Iterable[str], tasks: Iterable[TaskId],
         generation: int, expired: Callable[[str, Unit], bool]) -> Plan:
    """The next assignment. `live` maps each live worker to the generation it has applied; `generation` is
    the one being published; `expired(worker, unit)` says a revocation is past its timeout."""
    owners = {u: w for w, share in (current.workers if current else {}).items() for u in _units(share)}
    pending = {u: (w, r.generation) for w, r in (current.revoked if current else {}).items() for u in _units(r)}
    # Sticky on who may still run a unit, revoked ones included: the target stays the same while a
    # hand-over waits (every worker's quota counts what it gives away).
    previous: dict[str, set[Unit]] = {}
    for unit, worker in [*owners.items(), *((u, w) for u, (w, _g) in pending.items())]:
        previous.setdefault(worker, set()).add(unit)
    desired = assign(sorted(live), connectors, tasks,
                     {w: WorkerAssignment(*_share(units)) for w, units in previous.items()})
    placed: dict[str, set[Unit]] = {w: set() for w in desired}
    kept: dict[str, tuple[set[Unit], int]] = {}  # worker -> (units still revoked, revoking generation)
    for target, share in desired.items():
        for unit in _units(share):
            owner, (revoked_from, since) = owners.get(unit), pending.get(unit, (None, 0))
            if owner is not None and owner != target and owner in live:
                units, _g = kept.setdefault(owner, (set(), generation))
                kept[owner] = (units | {unit}, generation)  # revoked now: confirming needs this generation
            elif (revoked_from is not None and revoked_from != target and revoked_from in live
                  and live[revoked_from] < since and not expired(revoked_from, unit)):
                units, newest = kept.setdefault(revoked_from, (set(), since))
                kept[revoked_from] = (units | {unit}, max(newest, since))
            else:
                placed[target].add(unit)
    return Plan({w: WorkerAssignment(*_share(units)) for w, units in placed.items()},
                {w: Revocation(*_share(units), gen) for w, (units, gen) in sorted(kept.items())})


class HandOver:
    """The leader's bookkeeping around `plan`: when it first saw each revocation, for the timeout."""

    def __init__(self, clock: Clock, timeout: float) -> None:
        self._clock = clock
        self.timeout = timeout
        self._since: dict[tuple[str, Unit], float] = {}

    def plan(self, live: Mapping[str, int], current: Assignment | None, connectors: Iterable[str],
             tasks: Iterable[TaskId], generation: int) -> Plan:
        """The next assignment (see `plan`), with revocations expiring `timeout` after this leader first saw
        them."""
        now = self._clock.monotonic()

        def expired(worker: str, unit: Unit) -> bool:
            if now - self._since.setdefault((worker, unit), now) < self.timeout:
                return False
            log.warning("worker %s did not confirm stopping %s within %.0f s: treated as dead for it",
                        worker, unit, self.timeout)
            return True

        result = plan(live, current, connectors, tasks, generation, expired)
        self._since = {(w, u): self._since.get((w, u), now) for w, r in result.revoked.items() for u in _units(r)}
        return result
