"""The transform and predicate SPI (Connect's Transformation and Predicate), and the key/value split
most transforms share (Connect's `$Key` / `$Value` inner classes)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef
from pyconnect.api.data import Schema
from pyconnect.api.plugin_version import plugin_version, project_version
from pyconnect.transforms.record import ConnectRecord

#: The project's distribution version: what the built-in transforms and predicates report.
VERSION = project_version()


class Transformation(ABC):
    """A single message transform: configured once, then applied to each record in turn.

    `apply` returns the transformed record (a new one; records are immutable) or None to drop the
    record. A transform is used by one task thread at a time."""

    def version(self) -> str:
        """The version of the distribution providing the transform: the project's for the built-ins
        (Connect: the Kafka version)."""
        return plugin_version(type(self))

    @abstractmethod
    def config_def(self) -> ConfigDef:
        """The keys this transform accepts, as they appear under `transforms.<alias>.`."""

    @abstractmethod
    def configure(self, config: Mapping[str, Any]) -> None:
        """Read the keys (already stripped of their `transforms.<alias>.` prefix); raise
        ConfigException on invalid ones."""

    @abstractmethod
    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        """The transformed record, or None to drop it."""

    def close(self) -> None:  # noqa: B027 - optional hook, as Connect's default close()
        """Release what `configure` acquired."""


class Predicate(ABC):
    """A condition on a record, deciding whether a transform applies (Connect's Predicate)."""

    def version(self) -> str:
        """The version of the distribution providing the predicate (the project's for the built-ins)."""
        return plugin_version(type(self))

    @abstractmethod
    def config_def(self) -> ConfigDef:
        """The keys this predicate accepts, as they appear under `predicates.<alias>.`."""

    @abstractmethod
    def configure(self, config: Mapping[str, Any]) -> None:
        """Read the keys (stripped of their `predicates.<alias>.` prefix); raise ConfigException."""

    @abstractmethod
    def test(self, record: ConnectRecord) -> bool:
        """Whether the record matches."""

    def close(self) -> None:  # noqa: B027 - optional hook, as Connect's default close()
        """Release what `configure` acquired."""


class KeyOrValue(ABC):
    """Which side of the record a `$Key`/`$Value` transform works on. Mixed into a transform's two
    concrete classes, so the transform's logic is written once against `operating_*`/`updated`."""

    @staticmethod
    @abstractmethod
    def operating_schema(record: ConnectRecord) -> Schema | None: ...

    @staticmethod
    @abstractmethod
    def operating_value(record: ConnectRecord) -> Any: ...

    @staticmethod
    @abstractmethod
    def updated(record: ConnectRecord, schema: Schema | None, value: Any) -> ConnectRecord: ...


class OnKey(KeyOrValue):
    """Operate on the record key."""

    @staticmethod
    def operating_schema(record: ConnectRecord) -> Schema | None:
        return record.key_schema

    @staticmethod
    def operating_value(record: ConnectRecord) -> Any:
        return record.key

    @staticmethod
    def updated(record: ConnectRecord, schema: Schema | None, value: Any) -> ConnectRecord:
        return record.new_record(key_schema=schema, key=value)


class OnValue(KeyOrValue):
    """Operate on the record value."""

    @staticmethod
    def operating_schema(record: ConnectRecord) -> Schema | None:
        return record.value_schema

    @staticmethod
    def operating_value(record: ConnectRecord) -> Any:
        return record.value

    @staticmethod
    def updated(record: ConnectRecord, schema: Schema | None, value: Any) -> ConnectRecord:
        return record.new_record(value_schema=schema, value=value)
