"""Flatten: nested structs (with a schema) or maps (schemaless) become one level, the field names
joined with `delimiter` (Connect's Flatten$Key / Flatten$Value).

Invariants: a flattened field is optional when any of its ancestors is, and takes its own default or
else the default its ancestors' default struct gives it; a null nested struct flattens to null fields.
Arrays and maps under a schema, and lists without one, are refused with Connect's DataException."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.api.data import DataException, Schema, SchemaBuilder, SchemaType, Struct, copy_schema_basics
from pyconnect.transforms.record import ConnectRecord
from pyconnect.transforms.requirements import require_map, require_struct_or_null
from pyconnect.transforms.simple_config import simple_config
from pyconnect.transforms.spi import KeyOrValue, OnKey, OnValue, Transformation

PURPOSE = "flattening"
_PRIMITIVES = frozenset({SchemaType.INT8, SchemaType.INT16, SchemaType.INT32, SchemaType.INT64, SchemaType.FLOAT32,
                         SchemaType.FLOAT64, SchemaType.BOOLEAN, SchemaType.STRING, SchemaType.BYTES})
# The Python values a schemaless map may hold as leaves (Connect infers a primitive schema for them).
_LEAVES = (bool, int, float, str, bytes, bytearray)


class Flatten(Transformation, KeyOrValue):
    """Shared logic; use Flatten$Key or Flatten$Value."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("delimiter", ConfigType.STRING, ".", Importance.MEDIUM,
                  "Delimiter to insert between field names from the input record when generating field names for "
                  "the output record"),
    ])

    def __init__(self) -> None:
        self._delimiter = "."
        self._schema_cache: dict[Schema, Schema] = {}

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        self._delimiter = simple_config(self.CONFIG_DEF, config)["delimiter"]
        self._schema_cache = {}

    def _name(self, prefix: str, name: str) -> str:
        return f"{prefix}{self._delimiter}{name}" if prefix else name

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            if value is None:  # a tombstone passes through
                return record
            flat: dict[str, Any] = {}
            self._flatten_map(require_map(value, PURPOSE), "", flat)
            return self.updated(record, None, flat)
        struct = require_struct_or_null(value, PURPOSE)
        updated = self._schema_cache.get(schema)
        if updated is None:
            builder = copy_schema_basics(schema, SchemaBuilder.struct())
            if schema.optional:
                builder.optional()
            self._flatten_schema(schema, "", builder, schema.optional, schema.default_value)
            updated = self._schema_cache[schema] = builder.build()
        if struct is None:
            return self.updated(record, updated, None)
        out = Struct(updated)
        self._flatten_struct(struct, "", out)
        return self.updated(record, updated, out)

    def _flatten_map(self, value: Mapping[str, Any], prefix: str, out: dict[str, Any]) -> None:
        for key, item in value.items():
            name = self._name(prefix, key)
            if item is None or isinstance(item, _LEAVES):
                out[name] = item
            elif isinstance(item, dict):
                self._flatten_map(item, name, out)
            elif isinstance(item, (list, tuple)):
                raise DataException(f"Flatten transformation does not support {type(item)} for record without "
                                    f"schemas (for field {name}).")
            else:
                raise DataException(f"Flatten transformation was passed a value of type {type(item)} which is not "
                                    "supported by Connect's data API")

    def _flatten_schema(self, schema: Schema, prefix: str, builder: SchemaBuilder, optional: bool,
                        parent_default: Struct | None) -> None:
        for field in schema.fields:
            name = self._name(prefix, field.name)
            field_optional = optional or field.schema.optional
            default = field.schema.default_value
            if default is None and parent_default is not None:
                default = parent_default.get(field.name)
            if field.schema.type in _PRIMITIVES:
                leaf = copy_schema_basics(field.schema, SchemaBuilder(field.schema.type))
                if field_optional:
                    leaf.optional()
                if default is not None:
                    leaf.default_value(default)
                builder.field(name, leaf.build())
            elif field.schema.type is SchemaType.STRUCT:
                self._flatten_schema(field.schema, name, builder, field_optional, default)
            else:
                raise DataException(f"Flatten transformation does not support {field.schema.type} for record with "
                                    f"schemas (for field {name}).")

    def _flatten_struct(self, struct: Struct | None, prefix: str, out: Struct) -> None:
        if struct is None:  # an optional nested struct that is null: its flattened fields stay null
            return
        for field in struct.schema.fields:
            name = self._name(prefix, field.name)
            if field.schema.type is SchemaType.STRUCT:
                self._flatten_struct(struct.get(field.name), name, out)
            else:
                out.put(name, struct.get(field.name))


class FlattenKey(OnKey, Flatten):
    """Flatten on the record key (Connect's Flatten$Key)."""


class FlattenValue(OnValue, Flatten):
    """Flatten on the record value (Connect's Flatten$Value)."""
