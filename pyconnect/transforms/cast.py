"""Cast: casts fields, or the whole key or value, to another primitive type (Connect's Cast$Key /
Cast$Value)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.api.data import Schema, SchemaBuilder, SchemaType, Struct, copy_schema_basics
from pyconnect.transforms.cast_values import OUTPUT_TYPES, cast_value
from pyconnect.transforms.record import ConnectRecord
from pyconnect.transforms.requirements import require_map, require_struct
from pyconnect.transforms.simple_config import REPLACE_NULL_WITH_DEFAULT, simple_config
from pyconnect.transforms.spi import KeyOrValue, OnKey, OnValue, Transformation

PURPOSE = "cast types"
WHOLE_VALUE = ""  # the spec key of a whole-value cast (no field can be called "" in a spec)


def _output_type(name: str) -> SchemaType:
    try:
        schema_type = SchemaType(name.strip().upper())
    except ValueError:
        raise ValueError(f"Invalid type found in casting spec: {name.strip()}") from None
    if schema_type not in OUTPUT_TYPES:
        raise ValueError(f"Cast transformation does not support casting to {schema_type}; supported types are "
                         f"{', '.join(OUTPUT_TYPES)}")
    return schema_type


def parse_spec(mappings: list[str]) -> dict[str, SchemaType]:
    """`field:type` pairs, or one bare type for the whole value; ValueError with Connect's message."""
    if not mappings:
        raise ValueError("Must specify at least one field to cast.")
    casts: dict[str, SchemaType] = {}
    for mapping in mappings:
        parts = mapping.split(":")
        if len(parts) > 2:
            raise ValueError(f"Invalid rename mapping: {mapping}")
        if len(parts) == 1:
            casts[WHOLE_VALUE] = _output_type(parts[0])
        else:
            casts[parts[0].strip()] = _output_type(parts[1])
    if WHOLE_VALUE in casts and len(mappings) > 1:
        raise ValueError("Cast transformations that specify a type to cast the entire value to may ony specify "
                         "a single cast in their spec")
    return casts


def _spec_validator(_name: str, value: Any) -> str | None:
    try:
        parse_spec(list(value or []))
    except ValueError as exc:
        return str(exc)
    return None


def _target_builder(schema_type: SchemaType) -> SchemaBuilder:
    return SchemaBuilder(schema_type)


class Cast(Transformation, KeyOrValue):
    """Shared logic; use Cast$Key or Cast$Value."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("spec", ConfigType.LIST, importance=Importance.HIGH, validator=_spec_validator,
                  documentation="List of fields and the type to cast them to of the form field1:type,field2:type "
                  "to cast fields of Maps or Structs. A single type to cast the entire value. Valid types are int8, "
                  "int16, int32, int64, float32, float64, boolean, and string. Note that binary fields can only be "
                  "cast to string."),
        REPLACE_NULL_WITH_DEFAULT,
    ])

    def __init__(self) -> None:
        self._casts: dict[str, SchemaType] = {}
        self._replace_null = True
        self._schema_cache: dict[Schema, Schema] = {}

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        values = simple_config(self.CONFIG_DEF, config)
        self._casts = parse_spec(values["spec"])
        self._replace_null = values["replace.null.with.default"]
        self._schema_cache = {}

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        value = self.operating_value(record)
        if value is None:
            return record
        schema = self.operating_schema(record)
        whole = self._casts.get(WHOLE_VALUE)
        if schema is None:
            if whole is not None:
                return self.updated(record, None, cast_value(None, value, whole))
            original = require_map(value, PURPOSE)
            updated_map = dict(original)
            for name, target in self._casts.items():
                updated_map[name] = cast_value(None, original.get(name), target)
            return self.updated(record, None, updated_map)
        updated_schema = self._schema_cache.get(schema)
        if updated_schema is None:
            updated_schema = self._schema_cache[schema] = self._updated_schema(schema)
        if whole is not None:
            return self.updated(record, updated_schema, cast_value(schema, value, whole))
        struct = require_struct(value, PURPOSE)
        updated = Struct(updated_schema)
        for f in struct.schema.fields:
            field_value = struct.get(f) if self._replace_null else struct.get_without_default(f)
            cast_to = self._casts.get(f.name)
            updated.put(f.name, field_value if cast_to is None else cast_value(f.schema, field_value, cast_to))
        return self.updated(record, updated_schema, updated)

    def _updated_schema(self, schema: Schema) -> Schema:
        whole = self._casts.get(WHOLE_VALUE)
        if whole is not None:
            builder = copy_schema_basics(schema, _target_builder(whole))
        else:
            builder = copy_schema_basics(schema)
            for f in schema.fields:
                target = self._casts.get(f.name)
                builder.field(f.name, f.schema if target is None else self._cast_schema(f.schema, target))
        if schema.optional:
            builder.optional()
        if schema.default_value is not None:
            builder.default_value(cast_value(schema, schema.default_value, builder.type))
        return builder.build()

    @staticmethod
    def _cast_schema(schema: Schema, target: SchemaType) -> Schema:
        builder = _target_builder(target)
        if schema.optional:
            builder.optional()
        if schema.default_value is not None:
            builder.default_value(cast_value(schema, schema.default_value, target))
        return builder.build()


class CastKey(OnKey, Cast):
    """Cast on the record key (Connect's Cast$Key)."""


class CastValue(OnValue, Cast):
    """Cast on the record value (Connect's Cast$Value)."""
