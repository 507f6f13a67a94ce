"""The runtime, not a user's config, decides what class runs a task."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from pyconnect.api import BatchTask, SourceTask
from pyconnect.api.states import State, TargetState
from pyconnect.plugins import PluginRegistry
from pyconnect.runtime.connector_runner import ConnectorRunner
from pyconnect.storage.config_store import ConfigStore
from pyconnect.storage.log import MemoryLog, MemoryTopic
from tests.harness.plugins import ValidateOnlyConnector


class _Task(SourceTask):
    def start(self, config: Mapping[str, str]) -> None: ...
    def poll(self) -> list[Any]: return []
    def stop(self) -> None: ...


class _Batch(BatchTask):
    def start(self, config: Mapping[str, str]) -> None: ...
    def run(self) -> None: ...
    def stop(self) -> None: ...


class _TwoKinds(ValidateOnlyConnector):
    """One batch task (marked by a key the connector sets) next to `max_tasks` source tasks."""

    def start(self, config: Any) -> None:
        self.raw = dict(config)

    def task_class(self) -> type[SourceTask]:
        return _Task

    def task_class_for(self, task_config: Mapping[str, str]) -> type[SourceTask] | type[BatchTask]:
        return _Batch if task_config.get("kind") == "batch" else _Task

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self.raw, "kind": "batch"}] + [{**self.raw, "kind": "stream"} for _ in range(max_tasks)]


def _published(config: dict[str, str]) -> list[dict[str, str]]:
    plugins = PluginRegistry()
    plugins.register("TwoKinds", _TwoKinds)
    store = ConfigStore(MemoryLog(MemoryTopic()))
    store.start()
    states: list[State] = []
    runner = ConnectorRunner("c", {"connector.class": "TwoKinds", "name": "c", **config}, plugins, store,
                             lambda state, _trace: states.append(state))
    runner.start(TargetState.STARTED)  # the connector starts on its own thread (connector_runner.py)
    deadline = time.monotonic() + 10
    while State.RUNNING not in states and time.monotonic() < deadline:
        time.sleep(0.01)  # the poll interval of a wait under a deadline
    runner.stop()
    assert runner.join(10)
    assert states[-1] == State.RUNNING, states
    return store.snapshot().task_configs["c"]


def test_task_class_is_written_after_the_connectors_keys_so_user_config_cannot_set_it() -> None:
    configs = _published({"tasks.max": "2", "task.class": "os:system"})
    assert [c["task.class"] for c in configs] == [f"{__name__}:_Batch", f"{__name__}:_Task", f"{__name__}:_Task"]


def test_batch_tasks_do_not_count_against_tasks_max() -> None:
    assert len(_published({"tasks.max": "1"})) == 2
