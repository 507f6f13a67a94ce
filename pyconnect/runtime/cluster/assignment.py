"""The pure assignment function: who runs which connector and task.

Sticky and balanced, like Connect's incremental cooperative assignor but without the delay:
every unit stays where it runs unless its worker is gone or holds more than its fair share;
connectors and tasks are balanced separately so that each worker ends with floor or ceil of
its share of each.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pyconnect.api.task_id import TaskId


@dataclass(frozen=True)
class WorkerAssignment:
    connectors: frozenset[str] = field(default_factory=frozenset)
    tasks: frozenset[TaskId] = field(default_factory=frozenset)


Unit = TypeVar("Unit", str, TaskId)


def _key(unit: Any) -> tuple[str, int]:
    # Connectors and tasks sort alike: by name, then by task number (a connector counts as -1).
    return (unit.connector, unit.task) if isinstance(unit, TaskId) else (unit, -1)


def balance(workers: Sequence[str], units: Iterable[Unit], previous: Mapping[Unit, str]) -> dict[str, set[Unit]]:
    """Place units on workers: keep previous owners where possible, then even out the counts.

    `previous` maps unit -> worker it ran on. Deterministic for equal inputs.
    """
    units = sorted(set(units), key=_key)
    result: dict[str, set[Unit]] = {w: set() for w in workers}
    if not workers:
        return result
    pool: list[Unit] = []
    for unit in units:
        owner = previous.get(unit)
        if owner in result:
            result[owner].add(unit)
        else:
            pool.append(unit)
    base, extra = divmod(len(units), len(workers))
    # Workers already holding the most keep the larger quotas, which minimises movement.
    by_load = sorted(workers, key=lambda w: (-len(result[w]), w))
    quota = {w: base + (1 if i < extra else 0) for i, w in enumerate(by_load)}
    for w in by_load:
        held = sorted(result[w], key=_key)
        for unit in held[quota[w]:]:
            result[w].discard(unit)
            pool.append(unit)
    for unit in sorted(pool, key=_key):
        target = min(workers, key=lambda w: (len(result[w]) - quota[w], len(result[w]), w))
        result[target].add(unit)
    return result


def assign(workers: Sequence[str], connectors: Iterable[str], tasks: Iterable[TaskId],
           previous: Mapping[str, WorkerAssignment]) -> dict[str, WorkerAssignment]:
    """Assign every connector and task to one of `workers`."""
    prev_connectors = {c: w for w, a in previous.items() for c in a.connectors}
    prev_tasks = {t: w for w, a in previous.items() for t in a.tasks}
    ordered = sorted(workers)
    by_connector = balance(ordered, connectors, prev_connectors)
    by_task = balance(ordered, tasks, prev_tasks)
    return {w: WorkerAssignment(frozenset(by_connector[w]), frozenset(by_task[w])) for w in ordered}
