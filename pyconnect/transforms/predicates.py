"""The built-in predicates: TopicNameMatches, HasHeaderKey and RecordIsTombstone (Connect's
org.apache.kafka.connect.transforms.predicates)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.transforms.record import ConnectRecord
from pyconnect.transforms.simple_config import non_empty_string, regex, simple_config
from pyconnect.transforms.spi import Predicate


def _non_empty_regex(name: str, value: Any) -> str | None:
    return non_empty_string(name, value) or regex(name, value)


class TopicNameMatches(Predicate):
    """True for records whose whole topic name matches `pattern`."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("pattern", ConfigType.STRING, importance=Importance.MEDIUM, validator=_non_empty_regex,
                  documentation="A Java regular expression for matching against the name of a record's topic."),
    ])

    def __init__(self) -> None:
        self._pattern = re.compile("")

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        self._pattern = re.compile(simple_config(self.CONFIG_DEF, config)["pattern"])

    def test(self, record: ConnectRecord) -> bool:
        return record.topic is not None and self._pattern.fullmatch(record.topic) is not None


class HasHeaderKey(Predicate):
    """True for records with at least one header called `name`."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("name", ConfigType.STRING, importance=Importance.MEDIUM, validator=non_empty_string,
                  documentation="The header name."),
    ])

    def __init__(self) -> None:
        self._name = ""

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        self._name = simple_config(self.CONFIG_DEF, config)["name"]

    def test(self, record: ConnectRecord) -> bool:
        return any(h.key == self._name for h in record.headers)


class RecordIsTombstone(Predicate):
    """True for tombstones: records whose value is null."""

    def config_def(self) -> ConfigDef:
        return ConfigDef()

    def configure(self, config: Mapping[str, Any]) -> None:
        pass

    def test(self, record: ConnectRecord) -> bool:
        return record.value is None
