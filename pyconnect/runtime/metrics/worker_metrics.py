"""One worker's metrics, read from its state when `/metrics` is scraped (no copies kept up to date).

Worker metrics under the names Strimzi's dashboards query (jmx-exporter style):
`kafka_connect_worker_{connector_count,task_count}`, `kafka_connect_connector_status`,
`kafka_connect_connector_task_status`; plus whatever the worker's running connectors and tasks registered on
their context (`context.metrics`). A worker with a scope (dedicated mode: a flow) adds its labels
(`source`, `target`) to every series, where a task's own labels do not already name them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from typing import Protocol

from prometheus_client.metrics_core import Metric

from pyconnect.api.metrics import MetricSample, MetricsProvider
from pyconnect.api.states import State
from pyconnect.api.task_id import TaskId
from pyconnect.storage.status_store import StatusStore

log = logging.getLogger(__name__)

STATES = ("running", "paused", "failed", "unassigned", "stopped", "restarting")


class TaskMetricsRegistry:
    """The `metrics` object of a task's context: the providers the task registered while it runs."""

    def __init__(self) -> None:
        # Replaced, never mutated: a scrape on another thread may be reading it.
        self._providers: tuple[MetricsProvider, ...] = ()

    def register(self, provider: MetricsProvider) -> None:
        """Read `provider()` at every scrape until the task stops."""
        self._providers = (*self._providers, provider)

    def close(self) -> None:
        """The task stopped: its series go."""
        self._providers = ()

    def samples(self) -> list[MetricSample]:
        """What the task's providers give now."""
        out: list[MetricSample] = []
        for provider in self._providers:
            try:
                out.extend(provider())
            except Exception:  # one broken provider must not take the whole scrape down
                log.warning("a task's metrics provider failed", exc_info=True)
        return out


class _Runner(Protocol):
    @property
    def state(self) -> str: ...


class WorkerState(Protocol):
    """What the collector reads of a worker."""

    @property
    def connectors(self) -> Mapping[str, _Runner]: ...

    @property
    def tasks(self) -> Mapping[TaskId, _Runner]: ...


class _Families:
    """Gauge families by name, in the order first seen."""

    def __init__(self) -> None:
        self.by_name: dict[str, Metric] = {}

    def add(self, name: str, documentation: str, labels: Mapping[str, str], value: float) -> None:
        family = self.by_name.get(name)
        if family is None:
            family = self.by_name[name] = Metric(name, documentation, "gauge")
        family.add_sample(name, dict(labels), value)


class WorkerCollector:
    """A prometheus-client custom collector over one worker (registered while the worker runs)."""

    def __init__(self, worker: WorkerState, labels: Mapping[str, str],
                 wanted: Callable[[str], bool] | None = None) -> None:
        """`wanted`: the names of the tasks' series to yield (all when None); a reader that uses a few of them
        (the console's history) skips building the rest, thousands of samples at 1,000 partitions."""
        self._worker = worker
        self._labels = dict(labels)
        self._wanted = wanted
        self._wanted_names: dict[str, bool] = {}  # `wanted`'s answer per name, asked once

    def describe(self) -> list[Metric]:
        # Every worker of a process yields the same names: describing none keeps the registry from
        # refusing the second worker's collector as a duplicate (the registry merges the families).
        return []

    def collect(self) -> Iterator[Metric]:
        """The worker's families as they are now (called by the registry at each scrape)."""
        # Copies (atomic under the GIL): the worker loop adds and removes runners during a scrape.
        connectors, tasks = dict(self._worker.connectors), dict(self._worker.tasks)
        # States read on both sides of the runners' series (see _settled): no scrape shows a running task
        # without its series, whether the task is starting or stopping while the scrape runs.
        before = {task_id: runner.state for task_id, runner in tasks.items()}
        registered = [sample for runner in (*connectors.values(), *tasks.values())
                      if isinstance(registry := getattr(runner, "metrics", None), TaskMetricsRegistry)
                      for sample in registry.samples()]
        task_states = {task_id: _settled(before[task_id], runner.state) for task_id, runner in tasks.items()}
        flow, families = self._labels, _Families()
        families.add("kafka_connect_worker_connector_count", "Connectors run by this worker.", flow, len(connectors))
        families.add("kafka_connect_worker_task_count", "Tasks run by this worker.", flow, len(task_states))
        for name, runner in connectors.items():
            state = runner.state.lower()
            for s in STATES:
                families.add("kafka_connect_connector_status", "1 for the connector's current state.",
                             {**flow, "connector": name, "status": s}, 1 if state == s else 0)
        for task_id, task_state in task_states.items():
            name, index = task_id.connector, str(task_id.task)
            state = task_state.lower()
            for s in STATES:
                families.add("kafka_connect_connector_task_status", "1 for the task's current state.",
                             {**flow, "connector": name, "task": index, "status": s}, 1 if state == s else 0)
        _task_counts(families, flow, connectors, task_states)
        _auto_restarts(families, flow, getattr(self._worker, "statuses", None), connectors)
        _assignment(families, flow, self._worker, connectors, task_states)
        for sample in registered:
            if self._wanted is not None and not self._is_wanted(sample.name):
                continue
            labels = {**sample.labels, **{k: v for k, v in flow.items() if k not in sample.labels}}
            families.add(sample.name, sample.documentation, labels, sample.value)
        yield from families.by_name.values()

    def _is_wanted(self, name: str) -> bool:
        known = self._wanted_names.get(name)
        if known is None:
            assert self._wanted is not None
            known = self._wanted_names[name] = self._wanted(name)
        return known


_LIVE = (State.RUNNING.value, State.PAUSED.value)


def _settled(before: str, after: str) -> str:
    """The state to report for a task read `before` and `after` its series were read. A task registers its
    series before its state first says RUNNING, and closes them after its state stopped saying RUNNING or
    PAUSED (TaskThread._stop_running). So the series read in between are complete when both reads say
    RUNNING or PAUSED; a task that went live during the scrape is reported as it was before, and one that
    stopped during it as it is after."""
    if after in _LIVE and before not in _LIVE:
        return before
    return after


def _task_counts(families: _Families, flow: Mapping[str, str], connectors: Mapping[str, _Runner],
                 tasks: Mapping[TaskId, str]) -> None:
    """Connect's per-connector task counts by state (`kafka_connect_worker_connector_<state>_task_count`),
    of the tasks this worker runs: summed over the workers, the cluster's."""
    states: dict[str, list[str]] = {name: [] for name in connectors}
    for task_id, state in tasks.items():
        states.setdefault(task_id.connector, []).append(state.lower())
    for name, found in states.items():
        labels = {**flow, "connector": name}
        families.add("kafka_connect_worker_connector_total_task_count", "Tasks of the connector run here.",
                     labels, len(found))
        for s in (*STATES, "destroyed"):
            families.add(f"kafka_connect_worker_connector_{s}_task_count", f"Tasks of the connector run here, {s}.",
                         labels, found.count(s))


def _auto_restarts(families: _Families, flow: Mapping[str, str], statuses: object,
                   connectors: Mapping[str, _Runner]) -> None:
    """Each connector's auto-restart count, by its owner (one series per connector in the cluster)."""
    if not isinstance(statuses, StatusStore):
        return
    for name in connectors:
        record = statuses.auto_restart(name)
        families.add("kafka_connect_connector_auto_restart_count",
                     "Restarts made by auto-restart since the connector last ran stably (Strimzi's autoRestart.count).",
                     {**flow, "connector": name}, record.count if record else 0)


def _assignment(families: _Families, flow: Mapping[str, str], worker: object, connectors: Mapping[str, _Runner],
                tasks: Mapping[TaskId, str]) -> None:
    """What the group assigned this worker (`kafka_connect_coordinator_assigned_*`), and whether it is
    still taking it up (`kafka_connect_worker_rebalance_rebalancing`: assigned and running differ)."""
    mine = getattr(worker, "my_assignment", None)
    if not callable(mine):
        return
    assigned = mine()
    families.add("kafka_connect_coordinator_assigned_connectors", "Connectors assigned to this worker.", flow,
                 len(assigned.connectors))
    families.add("kafka_connect_coordinator_assigned_tasks", "Tasks assigned to this worker.", flow,
                 len(assigned.tasks))
    settling = set(assigned.connectors) != set(connectors) or set(assigned.tasks) != set(tasks)
    families.add("kafka_connect_worker_rebalance_rebalancing", "1 while the worker takes up a new assignment.",
                 flow, 1 if settling else 0)
