"""InsertField: adds the record's topic, partition, offset, timestamp or a static value as fields of
the key or value (Connect's InsertField$Key / InsertField$Value)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.api.data import (
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    DataException,
    Schema,
    Struct,
    copy_schema_basics,
    timestamp_builder,
    timestamp_from_millis,
)
from pyconnect.transforms.record import ConnectRecord
from pyconnect.transforms.requirements import require_map, require_struct
from pyconnect.transforms.simple_config import REPLACE_NULL_WITH_DEFAULT, simple_config
from pyconnect.transforms.spi import KeyOrValue, OnKey, OnValue, Transformation

PURPOSE = "field insertion"
_FIELD_KEYS = ("topic.field", "partition.field", "offset.field", "timestamp.field", "static.field")
_SUFFIX_DOC = (" Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional "
               "(the default).")


@dataclass(frozen=True)
class InsertionSpec:
    """A field to insert: its name and whether its schema is optional (`name!` required, `name?` or
    plain `name` optional)."""

    name: str
    optional: bool

    @staticmethod
    def parse(spec: str | None) -> InsertionSpec | None:
        if spec is None:
            return None
        if spec.endswith("?"):
            return InsertionSpec(spec[:-1], True)
        if spec.endswith("!"):
            return InsertionSpec(spec[:-1], False)
        return InsertionSpec(spec, True)


def _pick(spec: InsertionSpec, required: Schema, optional: Schema) -> Schema:
    return optional if spec.optional else required


class InsertField(Transformation, KeyOrValue):
    """Shared logic; use InsertField$Key or InsertField$Value."""

    CONFIG_DEF = ConfigDef([
        *(ConfigKey(k, ConfigType.STRING, None, Importance.MEDIUM,
                    f"Field name for the Kafka {k.split('.')[0]}." + _SUFFIX_DOC) for k in _FIELD_KEYS),
        ConfigKey("static.value", ConfigType.STRING, None, Importance.MEDIUM,
                  "Static field value, if field name configured."),
        REPLACE_NULL_WITH_DEFAULT,
    ])

    def __init__(self) -> None:
        self._specs: dict[str, InsertionSpec | None] = {}
        self._static_value: str | None = None
        self._replace_null = True
        self._schema_cache: dict[Schema, Schema] = {}

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        values = simple_config(self.CONFIG_DEF, config)
        self._specs = {k: InsertionSpec.parse(values[k]) for k in _FIELD_KEYS}
        self._static_value = values["static.value"]
        self._replace_null = values["replace.null.with.default"]
        self._schema_cache = {}

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        if self.operating_value(record) is None:
            return record
        if self._specs["offset.field"] is not None and record.kafka_offset is None:
            raise DataException("Offset insertion is only supported for sink connectors, record is of type: "
                                f"{type(record).__name__}")
        if self.operating_schema(record) is None:
            return self._apply_schemaless(record)
        return self._apply_with_schema(record)

    def _inserted(self, record: ConnectRecord, for_schema: bool) -> list[tuple[str, Any]]:
        timestamp: Any = record.timestamp
        if for_schema and timestamp is not None:
            timestamp = timestamp_from_millis(timestamp)
        sources = {"topic.field": record.topic, "partition.field": record.kafka_partition,
                   "offset.field": record.kafka_offset, "timestamp.field": timestamp,
                   "static.field": self._static_value}
        return [(spec.name, sources[k]) for k, spec in self._specs.items() if spec is not None]

    def _apply_schemaless(self, record: ConnectRecord) -> ConnectRecord:
        updated = dict(require_map(self.operating_value(record), PURPOSE))
        updated.update(self._inserted(record, for_schema=False))
        return self.updated(record, None, updated)

    def _apply_with_schema(self, record: ConnectRecord) -> ConnectRecord:
        value = require_struct(self.operating_value(record), PURPOSE)
        schema = self._schema_cache.get(value.schema)
        if schema is None:
            schema = self._schema_cache[value.schema] = self._updated_schema(value.schema)
        updated = Struct(schema)
        for f in value.schema.fields:
            updated.put(f.name, value.get(f) if self._replace_null else value.get_without_default(f))
        for name, field_value in self._inserted(record, for_schema=True):
            updated.put(name, field_value)
        return self.updated(record, schema, updated)

    def _updated_schema(self, schema: Schema) -> Schema:
        builder = copy_schema_basics(schema)
        for f in schema.fields:
            builder.field(f.name, f.schema)
        timestamp = timestamp_builder()
        choices = {"topic.field": (STRING_SCHEMA, OPTIONAL_STRING_SCHEMA),
                   "partition.field": (INT32_SCHEMA, OPTIONAL_INT32_SCHEMA),
                   "offset.field": (INT64_SCHEMA, OPTIONAL_INT64_SCHEMA),
                   "timestamp.field": (timestamp.build(), timestamp.optional().build()),
                   "static.field": (STRING_SCHEMA, OPTIONAL_STRING_SCHEMA)}
        for key, spec in self._specs.items():
            if spec is not None:
                builder.field(spec.name, _pick(spec, *choices[key]))
        return builder.build()


class InsertFieldKey(OnKey, InsertField):
    """InsertField on the record key (Connect's InsertField$Key)."""


class InsertFieldValue(OnValue, InsertField):
    """InsertField on the record value (Connect's InsertField$Value)."""
