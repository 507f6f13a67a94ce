from __future__ import annotations

from collections import Counter

from pyconnect.api.task_id import TaskId
from pyconnect.runtime.cluster.assignment import WorkerAssignment, assign, balance


def counts(result: dict[str, WorkerAssignment]) -> list[int]:
    return sorted(len(a.tasks) for a in result.values())


def tasks(name: str, n: int) -> list[TaskId]:
    return [TaskId(name, i) for i in range(n)]


def test_even_spread() -> None:
    result = assign(["w1", "w2", "w3"], ["c"], tasks("c", 6), {})
    assert counts(result) == [2, 2, 2]
    assert sum(len(a.connectors) for a in result.values()) == 1
    assert Counter(t for a in result.values() for t in a.tasks) == Counter(tasks("c", 6))


def test_dead_worker_tasks_move_and_others_stay() -> None:
    first = assign(["w1", "w2", "w3"], ["c"], tasks("c", 6), {})
    second = assign(["w1", "w3"], ["c"], tasks("c", 6), first)
    assert counts(second) == [3, 3]
    for w in ("w1", "w3"):
        assert first[w].tasks <= second[w].tasks, "surviving assignments must not move"


def test_new_worker_takes_only_its_share() -> None:
    first = assign(["w1", "w2"], ["c"], tasks("c", 6), {})
    second = assign(["w1", "w2", "w3"], ["c"], tasks("c", 6), first)
    assert counts(second) == [2, 2, 2]
    moved = sum(len(first[w].tasks - second[w].tasks) for w in ("w1", "w2"))
    assert moved == 2


def test_deterministic_and_handles_no_workers() -> None:
    a = assign(["b", "a"], ["x", "y"], tasks("x", 3) + tasks("y", 2), {})
    b = assign(["a", "b"], ["y", "x"], list(reversed(tasks("x", 3) + tasks("y", 2))), {})
    assert a == b
    assert balance([], ["u"], {}) == {}


def test_task_ids_sort_numerically() -> None:
    result = balance(["w"], tasks("c", 12), {})
    assert result["w"] == set(tasks("c", 12))
