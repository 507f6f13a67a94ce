"""The pure assignment function: who runs which connector and task.

Sticky and balanced, like Connect's incremental cooperative assignor but without the delay:
every unit stays where it runs unless its worker is gone or holds more than its fair share;
connectors and tasks are balanced separately so that each worker ends with floor or ceil of
its share of each.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class WorkerAssignment:
    connectors: frozenset[str] = field(default_factory=frozenset)
    tasks: frozenset[str] = field(default_factory=frozenset)


def task_sort_key(task_id: str) -> tuple[str, int]:
    name, _, index = task_id.rpartition("-")
    return (name, int(index)) if index.isdigit() else (task_id, -1)


def balance(workers: Sequence[str], units: Iterable[str], previous: Mapping[str, str]) -> dict[str, set[str]]:
    """Place units on workers: keep previous owners where possible, then even out the counts.

    `previous` maps unit -> worker it ran on. Deterministic for equal inputs.
    """
    units = sorted(set(units), key=task_sort_key)
    result: dict[str, set[str]] = {w: set() for w in workers}
    if not workers:
        return result
    pool: list[str] = []
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
        held = sorted(result[w], key=task_sort_key)
        for unit in held[quota[w]:]:
            result[w].discard(unit)
            pool.append(unit)
    for unit in sorted(pool, key=task_sort_key):
        target = min(workers, key=lambda w: (len(result[w]) - quota[w], len(result[w]), w))
        result[target].add(unit)
    return result


def assign(workers: Sequence[str], connectors: Iterable[str], tasks: Iterable[str],
           previous: Mapping[str, WorkerAssignment]) -> dict[str, WorkerAssignment]:
    """Assign every connector and task to one of `workers`."""
    prev_connectors = {c: w for w, a in previous.items() for c in a.connectors}
    prev_tasks = {t: w for w, a in previous.items() for t in a.tasks}
    ordered = sorted(workers)
    by_connector = balance(ordered, connectors, prev_connectors)
    by_task = balance(ordered, tasks, prev_tasks)
    return {w: WorkerAssignment(frozenset(by_connector[w]), frozenset(by_task[w])) for w in ordered}
