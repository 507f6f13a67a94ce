"""Header transforms: InsertHeader and DropHeaders (Connect's transforms of the same names)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.api.values_parse import parse_string
from pyconnect.transforms.record import ConnectRecord, Headers
from pyconnect.transforms.simple_config import non_empty_list, non_null, simple_config
from pyconnect.transforms.spi import Transformation


class InsertHeader(Transformation):
    """Adds a header whose value is a literal, typed as Connect's Values.parseString infers it."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("header", ConfigType.STRING, importance=Importance.HIGH, validator=non_null,
                  documentation="The name of the header."),
        ConfigKey("value.literal", ConfigType.STRING, importance=Importance.HIGH, validator=non_null,
                  documentation="The literal value that is to be set as the header value on all records."),
    ])

    def __init__(self) -> None:
        self._header = ""
        self._literal: tuple[Any, Any] = (None, None)

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        values = simple_config(self.CONFIG_DEF, config)
        self._header = values["header"]
        self._literal = parse_string(values["value.literal"])

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema, value = self._literal
        headers = record.headers.duplicate().add(self._header, value, schema)
        return record.new_record(headers=headers)


class DropHeaders(Transformation):
    """Removes every header with one of the configured names."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("headers", ConfigType.LIST, importance=Importance.HIGH, validator=non_empty_list,
                  documentation="The name of the headers to be removed."),
    ])

    def __init__(self) -> None:
        self._names: frozenset[str] = frozenset()

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        self._names = frozenset(simple_config(self.CONFIG_DEF, config)["headers"])

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        kept = Headers(h for h in record.headers if h.key not in self._names)
        return record.new_record(headers=kept)
