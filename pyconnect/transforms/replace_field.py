"""ReplaceField: keeps, drops and renames fields of the key or value (Connect's ReplaceField$Key /
ReplaceField$Value)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.api.data import Schema, Struct, copy_schema_basics
from pyconnect.transforms.record import ConnectRecord
from pyconnect.transforms.requirements import require_map, require_struct
from pyconnect.transforms.simple_config import REPLACE_NULL_WITH_DEFAULT, simple_config
from pyconnect.transforms.spi import KeyOrValue, OnKey, OnValue, Transformation

PURPOSE = "field replacement"


def parse_renames(mappings: list[str]) -> dict[str, str]:
    """`old:new` pairs; ValueError naming the first malformed one."""
    renames: dict[str, str] = {}
    for mapping in mappings:
        parts = mapping.split(":")
        if len(parts) != 2:
            raise ValueError(f"Invalid rename mapping: {mapping}")
        renames[parts[0]] = parts[1]
    return renames


def _renames_validator(_name: str, value: Any) -> str | None:
    try:
        parse_renames(value or [])
    except ValueError as exc:
        return str(exc)
    return None


class ReplaceField(Transformation, KeyOrValue):
    """Shared logic; use ReplaceField$Key or ReplaceField$Value."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("exclude", ConfigType.LIST, [], Importance.MEDIUM,
                  "Fields to exclude. This takes precedence over the fields to include."),
        ConfigKey("include", ConfigType.LIST, [], Importance.MEDIUM,
                  "Fields to include. If specified, only these fields will be used."),
        ConfigKey("renames", ConfigType.LIST, [], Importance.MEDIUM, "Field rename mappings.",
                  validator=_renames_validator),
        REPLACE_NULL_WITH_DEFAULT,
    ])

    def __init__(self) -> None:
        self._exclude: set[str] = set()
        self._include: set[str] = set()
        self._renames: dict[str, str] = {}
        self._replace_null = True
        self._schema_cache: dict[Schema, Schema] = {}

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        values = simple_config(self.CONFIG_DEF, config)
        self._exclude = set(values["exclude"])
        self._include = set(values["include"])
        self._renames = parse_renames(values["renames"])
        self._replace_null = values["replace.null.with.default"]
        self._schema_cache = {}

    def keeps(self, name: str) -> bool:
        return name not in self._exclude and (not self._include or name in self._include)

    def renamed(self, name: str) -> str:
        return self._renames.get(name, name)

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        value = self.operating_value(record)
        if value is None:
            return record
        if self.operating_schema(record) is None:
            original = require_map(value, PURPOSE)
            kept = {self.renamed(k): v for k, v in original.items() if self.keeps(k)}
            return self.updated(record, None, kept)
        struct = require_struct(value, PURPOSE)
        schema = self._schema_cache.get(struct.schema)
        if schema is None:
            schema = self._schema_cache[struct.schema] = self._updated_schema(struct.schema)
        updated = Struct(schema)
        for f in struct.schema.fields:
            if self.keeps(f.name):
                field_value = struct.get(f) if self._replace_null else struct.get_without_default(f)
                updated.put(self.renamed(f.name), field_value)
        return self.updated(record, schema, updated)

    def _updated_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema)
        for f in schema.fields:
            if self.keeps(f.name):
                builder.field(self.renamed(f.name), f.schema)
        if schema.optional:
            builder.optional()
        return builder.build()


class ReplaceFieldKey(OnKey, ReplaceField):
    """ReplaceField on the record key (Connect's ReplaceField$Key)."""


class ReplaceFieldValue(OnValue, ReplaceField):
    """ReplaceField on the record value (Connect's ReplaceField$Value)."""
