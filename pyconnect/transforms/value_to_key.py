"""ValueToKey: replaces the key with a struct or map of fields of the value (Connect's ValueToKey)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.api.data import DataException, Schema, SchemaBuilder, Struct
from pyconnect.transforms.record import ConnectRecord
from pyconnect.transforms.requirements import require_map, require_struct
from pyconnect.transforms.simple_config import REPLACE_NULL_WITH_DEFAULT, non_empty_list, simple_config
from pyconnect.transforms.spi import Transformation

PURPOSE = "copying fields from value to key"


class ValueToKey(Transformation):
    """The new key holds the value's `fields`, in the order they are listed."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("fields", ConfigType.LIST, importance=Importance.HIGH, validator=non_empty_list,
                  documentation="Field names on the record value to extract as the record key."),
        REPLACE_NULL_WITH_DEFAULT,
    ])

    def __init__(self) -> None:
        self._fields: list[str] = []
        self._replace_null = True
        self._schema_cache: dict[Schema, Schema] = {}

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        values = simple_config(self.CONFIG_DEF, config)
        self._fields = list(values["fields"])
        self._replace_null = values["replace.null.with.default"]
        self._schema_cache = {}

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        if record.value_schema is None:
            value = require_map(record.value, PURPOSE)
            return record.new_record(key_schema=None, key={f: value.get(f) for f in self._fields})
        struct = require_struct(record.value, PURPOSE)
        key_schema = self._schema_cache.get(struct.schema)
        if key_schema is None:
            key_schema = self._schema_cache[struct.schema] = self._key_schema(struct.schema)
        key = Struct(key_schema)
        for name in self._fields:
            key.put(name, struct.get(name) if self._replace_null else struct.get_without_default(name))
        return record.new_record(key_schema=key_schema, key=key)

    def _key_schema(self, value_schema: Schema) -> Schema:
        builder = SchemaBuilder.struct()
        for name in self._fields:
            found = value_schema.field(name)
            if found is None:
                raise DataException(f"Field does not exist: {name}")
            builder.field(name, found.schema)
        return builder.build()
