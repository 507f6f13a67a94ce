"""Plugins for REST tests that only validate configs: workers load them by Python path."""

from __future__ import annotations

from typing import Any

from pyconnect.api import ConfigDef, SourceConnector, SourceTask


class ValidateOnlyConnector(SourceConnector):
    """A source connector whose configs are only validated in the tests (it is never started)."""

    CONFIG = ConfigDef([])

    def config_def(self) -> ConfigDef:
        return self.CONFIG

    def start(self, config: Any) -> None:
        raise RuntimeError("only validated in these tests")

    def task_class(self) -> type[SourceTask]:
        raise RuntimeError("only validated in these tests")

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def stop(self) -> None:
        pass
