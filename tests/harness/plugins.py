"""Plugins for REST tests that only validate configs: workers load them by Python path (never started)."""

from __future__ import annotations

from typing import Any

from pyconnect.api import ConfigDef, ConfigKey, ConfigType, Importance, SourceConnector, SourceTask


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


class SecretSourceConnector(ValidateOnlyConnector):
    """A plugin with a PASSWORD key and defaults of each shape; workers load it by its Python path."""

    PATH = "tests.harness.plugins:SecretSourceConnector"
    CONFIG = ConfigDef([
        ConfigKey("secret", ConfigType.PASSWORD, importance=Importance.HIGH, documentation="A password."),
        ConfigKey("fallback.secret", ConfigType.PASSWORD, "p", Importance.LOW),
        ConfigKey("level", ConfigType.STRING, "info", Importance.LOW),
        ConfigKey("ratio", ConfigType.DOUBLE, 1e-4, Importance.LOW),
        ConfigKey("hosts", ConfigType.LIST, ["a", "b"], Importance.LOW),
        ConfigKey("flag", ConfigType.BOOLEAN, False, Importance.LOW),
    ])
