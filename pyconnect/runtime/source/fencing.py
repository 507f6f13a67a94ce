"""Zombie fencing for exactly-once source tasks, done by the leader (Connect's DistributedHerder).

A connector's task configs are "newer than its last fencing" from the `commit-<name>` record that
publishes them until a `tasks-fencing-<name>` record follows (ConfigSnapshot.pending_fencing). While
they are, no task of the new generation starts (`TaskPreflight.before_init` waits). The leader closes
the gap: it fences the transactional ids of the previous generation (the task count of the last
record), then writes the record with the new count. As in Kafka, nothing is fenced for a connector
seen for the first time with exactly-once on, nor from one task to one task (the new task 0 fences
the old one itself when it registers the same id).

A task that merely moves (its worker died or left) keeps its id: its new owner's `init_transactions`
fences the old holder, so no leader round is needed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping

from pyconnect.api.task_id import TaskId
from pyconnect.kafka import transactions as kt
from pyconnect.storage.config_store import ConfigSnapshot, ConfigStore

log = logging.getLogger(__name__)


def transactional_id(group_id: str, task: TaskId) -> str:
    """Connect's Worker.taskTransactionalId: `<group.id>-<connector>-<task>`."""
    return f"{group_id}-{task.connector}-{task.task}"


def ids_to_fence(snapshot: ConfigSnapshot, group_id: str, name: str) -> list[str]:
    """The transactional ids the leader fences before `name`'s new task generation may start: those of
    the previous generation, unless there is none on record or it is one task followed by one task."""
    count = len(snapshot.task_configs.get(name, []))
    previous = snapshot.task_count_records.get(name)
    if previous is None or (previous == 1 and count == 1):
        return []
    return [transactional_id(group_id, TaskId(name, i)) for i in range(previous)]


def fence_pending(configs: ConfigStore, group_id: str, producer_conf: Mapping[str, str], timeout: float) -> None:
    """Leader duty: complete the fencing round of every connector whose task configs need one."""
    snapshot = configs.snapshot()
    for name in sorted(snapshot.pending_fencing & set(snapshot.connectors)):
        count = len(snapshot.task_configs.get(name, []))
        ids = ids_to_fence(snapshot, group_id, name)
        if ids:
            log.info("[%s] fencing out %d task producer(s) of the previous generation", name, len(ids))
            kt.fence(producer_conf, ids, timeout)
        if configs.snapshot().task_generations.get(name) != snapshot.task_generations.get(name):
            continue  # new task configs meanwhile: the next round fences for them
        configs.put_task_count_record(name, count)


class TaskPreflight:
    """One exactly-once task's checks around `init_transactions` (Connect's pre/post-producer checks)."""

    def __init__(self, task: TaskId, snapshot: Callable[[], ConfigSnapshot], owns: Callable[[TaskId], bool],
                 timeout: float) -> None:
        self._task, self._snapshot, self._owns, self._timeout = task, snapshot, owns, timeout
        self._generation = snapshot().task_generations.get(task.connector)

    def before_init(self) -> None:
        """Wait until the leader has fenced the generations before this task's."""
        deadline = time.monotonic() + self._timeout
        while self._task.connector in self._snapshot().pending_fencing:
            if time.monotonic() >= deadline:
                raise RuntimeError(f"Failed to perform round of zombie fencing for task {self._task}: the leader "
                                   f"did not fence the previous task generation within {self._timeout:.0f}s")
            time.sleep(0.1)

    def after_init(self) -> None:
        """The task must still be this worker's, with the configs it started with."""
        if self._snapshot().task_generations.get(self._task.connector) != self._generation:
            raise RuntimeError(f"Cannot start source task {self._task} with exactly-once support as the connector "
                               "has already generated a new set of task configs")
        if not self._owns(self._task):
            raise RuntimeError(f"Cannot start source task {self._task} as it has already been revoked from this "
                               "worker")
