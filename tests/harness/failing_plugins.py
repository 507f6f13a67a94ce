"""A source connector whose task fails at every start: workers load it by its Python path.

For auto-restart tests of a connector that keeps failing (SequenceSourceConnector's `fail.at` is a
transient failure: a task restarted at the failure point carries on).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api import ConfigDef, SourceConnector, SourceRecord, SourceTask

PATH = "tests.harness.failing_plugins:AlwaysFailingSourceConnector"


class AlwaysFailingTask(SourceTask):
    def start(self, config: Mapping[str, str]) -> None:
        raise RuntimeError("this task fails at every start")

    def poll(self) -> list[SourceRecord] | None:
        return None

    def stop(self) -> None:
        pass


class AlwaysFailingSourceConnector(SourceConnector):
    """One task that never starts; the connector itself runs."""

    def config_def(self) -> ConfigDef:
        return ConfigDef([])

    def start(self, config: Any) -> None:
        pass

    def task_class(self) -> type[SourceTask]:
        return AlwaysFailingTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{}]

    def stop(self) -> None:
        pass
