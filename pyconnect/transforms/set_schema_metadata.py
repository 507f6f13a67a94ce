"""SetSchemaMetadata: sets the name and/or version of the key's or value's schema (Connect's
SetSchemaMetadata$Key / SetSchemaMetadata$Value).

Invariant: a Struct value is rebuilt on the new schema (same fields, same positions), so the record's
schema and its value's schema are always the same object; other values pass unchanged."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigException, ConfigKey, ConfigType, Importance
from pyconnect.api.data import Schema, Struct
from pyconnect.transforms.record import ConnectRecord
from pyconnect.transforms.requirements import require_schema
from pyconnect.transforms.simple_config import simple_config
from pyconnect.transforms.spi import KeyOrValue, OnKey, OnValue, Transformation

PURPOSE = "updating schema metadata"


def update_schema_in(value: Any, schema: Schema) -> Any:
    """`value` on `schema`: a Struct is copied field by field onto it (Connect's updateSchemaIn); any
    other value, or null, is returned as it is."""
    if not isinstance(value, Struct):
        return value
    updated = Struct(schema)
    for field in value.schema.fields:
        updated.put(field.name, value.get_without_default(field.name))
    return updated


class SetSchemaMetadata(Transformation, KeyOrValue):
    """Shared logic; use SetSchemaMetadata$Key or SetSchemaMetadata$Value."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("schema.name", ConfigType.STRING, None, Importance.HIGH, "Schema name to set."),
        ConfigKey("schema.version", ConfigType.INT, None, Importance.HIGH, "Schema version to set."),
    ])

    def __init__(self) -> None:
        self._name: str | None = None
        self._version: int | None = None

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        values = simple_config(self.CONFIG_DEF, config)
        self._name, self._version = values["schema.name"], values["schema.version"]
        if self._name is None and self._version is None:
            raise ConfigException("Neither schema name nor version configured")

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema = require_schema(self.operating_schema(record), PURPOSE)
        name = self._name if self._name is not None else schema.name
        version = self._version if self._version is not None else schema.version
        updated = replace(schema, name=name, version=version)
        return self.updated(record, updated, update_schema_in(self.operating_value(record), updated))


class SetSchemaMetadataKey(OnKey, SetSchemaMetadata):
    """SetSchemaMetadata on the record key (Connect's SetSchemaMetadata$Key)."""


class SetSchemaMetadataValue(OnValue, SetSchemaMetadata):
    """SetSchemaMetadata on the record value (Connect's SetSchemaMetadata$Value)."""
