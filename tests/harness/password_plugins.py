"""A source connector with a PASSWORD-typed key whose name no secret rule knows (`pin`); workers load it by its
Python path. Each task's config is the connector's (as MirrorSourceConnector's are); its tasks produce nothing."""

from __future__ import annotations

from collections.abc import Mapping

from pyconnect.api import ConfigDef, SourceConnector, SourceTask
from pyconnect.api.config import ConfigKey, ConfigType, Importance
from tests.harness.greedy_plugins import IdleTask

PATH = "tests.harness.password_plugins:PinSourceConnector"


class PinSourceConnector(SourceConnector):
    """`pin` is a PASSWORD; every other key is passed to the task as given."""

    def config_def(self) -> ConfigDef:
        return ConfigDef([ConfigKey("pin", ConfigType.PASSWORD, None, Importance.HIGH, "A secret by its type only.")])

    def start(self, config: Mapping[str, str]) -> None:
        self.config = dict(config)

    def task_class(self) -> type[SourceTask]:
        return IdleTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self.config)]

    def stop(self) -> None:
        pass
