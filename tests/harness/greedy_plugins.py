"""A source connector that returns `task.count` task configs whatever its `tasks.max` (a connector that
ignores maxTasks, as Kafka's ConnectWorkerIntegrationTest builds one for tasks.max.enforce); workers load it
by its Python path. Its tasks produce nothing."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from pyconnect.api import ConfigDef, SourceConnector, SourceRecord, SourceTask
from pyconnect.api.config import ConfigKey, ConfigType, Importance

PATH = "tests.harness.greedy_plugins:GreedySourceConnector"


class IdleTask(SourceTask):
    def start(self, config: Mapping[str, str]) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        time.sleep(0.1)  # a source with nothing to return waits a little, as a real one would
        return None

    def stop(self) -> None:
        pass


class GreedySourceConnector(SourceConnector):
    """`task.count` tasks, however many `tasks.max` allows."""

    def config_def(self) -> ConfigDef:
        return ConfigDef([ConfigKey("task.count", ConfigType.INT, 1, Importance.HIGH, "Task configs to return.")])

    def start(self, config: Any) -> None:
        self.count = int(config.get("task.count", "1"))

    def task_class(self) -> type[SourceTask]:
        return IdleTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{"task.index": str(i)} for i in range(self.count)]

    def stop(self) -> None:
        pass
