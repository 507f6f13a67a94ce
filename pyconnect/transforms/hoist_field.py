"""HoistField: wraps the key or value in a struct or map under one field (Connect's HoistField$Key /
HoistField$Value)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.api.data import Schema, SchemaBuilder, Struct
from pyconnect.transforms.record import ConnectRecord
from pyconnect.transforms.simple_config import simple_config
from pyconnect.transforms.spi import KeyOrValue, OnKey, OnValue, Transformation


class HoistField(Transformation, KeyOrValue):
    """Shared logic; use HoistField$Key or HoistField$Value."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("field", ConfigType.STRING, importance=Importance.MEDIUM,
                  documentation="Field name for the single field that will be created in the resulting Struct or Map."),
    ])

    def __init__(self) -> None:
        self._field = ""
        self._schema_cache: dict[Schema, Schema] = {}

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        self._field = simple_config(self.CONFIG_DEF, config)["field"]
        self._schema_cache = {}

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            return self.updated(record, None, {self._field: value})
        hoisted = self._schema_cache.get(schema)
        if hoisted is None:
            hoisted = self._schema_cache[schema] = SchemaBuilder.struct().field(self._field, schema).build()
        return self.updated(record, hoisted, Struct(hoisted).put(self._field, value))


class HoistFieldKey(OnKey, HoistField):
    """HoistField on the record key (Connect's HoistField$Key)."""


class HoistFieldValue(OnValue, HoistField):
    """HoistField on the record value (Connect's HoistField$Value)."""
