"""org.apache.kafka.connect.json.JsonConverter: a Converter and a HeaderConverter.

Settings (JsonConverterConfig): `schemas.enable` (default true: every value is the envelope
`{"schema": ..., "payload": ...}`), `schemas.cache.size` (1000), `decimal.format` (BASE64 or NUMERIC),
`replace.null.with.default` (true: a null with a default reads and writes as the default),
`schema.content` (KIP-1054: a Connect JSON schema every record is read with, the record then being
the bare payload; reading only, and only with `schemas.enable`, which is why it is refused without it).

`serializer()` is the schemaless fast path of `json_format`; `schema_serializer()` writes Connect data
with its schema (a None schema takes the fast path); `deserializer()` reads either layout back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import orjson

from pyconnect.api.config import ConfigDef
from pyconnect.api.converter import (
    NULL_SCHEMA_AND_VALUE,
    Converter,
    Deserialize,
    HeaderConverter,
    SchemaAndValue,
    SchemaSerialize,
    Serialize,
)
from pyconnect.api.data import DataException, Schema
from pyconnect.converters.configs import JSON_CONFIG, ConverterConfigError, parse
from pyconnect.converters.json_format import dumps, json_converter
from pyconnect.converters.json_read import JsonReader, schemaless
from pyconnect.converters.json_schema import SchemaTranslator
from pyconnect.converters.json_write import JsonWriter

ENVELOPE_REQUIRED = ("JsonConverter with schemas.enable requires \"schema\" and \"payload\" fields and may not "
                     "contain additional fields. If you are trying to deserialize plain JSON data, set "
                     "schemas.enable=false in your converter configuration.")


def _parse_json(data: bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise DataException(f"Converting byte[] to Kafka Connect data failed due to serialization error: {exc}") \
            from None


class JsonConverter(Converter, HeaderConverter):
    """org.apache.kafka.connect.json.JsonConverter (see the module docstring for its settings)."""

    def __init__(self) -> None:
        self.configure({})

    def config_def(self) -> ConfigDef:
        return JSON_CONFIG

    def configure(self, configs: Mapping[str, str], is_key: bool = False) -> None:
        """Converter.configure(configs, is_key) and HeaderConverter.configure(configs) alike: the JSON
        written and read does not depend on the side."""
        settings = parse(JSON_CONFIG, configs)
        self.schemas_enable: bool = settings["schemas.enable"]
        numeric = str(settings["decimal.format"]).upper() == "NUMERIC"
        self._serialize = json_converter(self.schemas_enable, str(settings["decimal.format"]))
        self.writer = JsonWriter(numeric, settings["replace.null.with.default"])
        self.reader = JsonReader(settings["replace.null.with.default"])
        self.schemas = SchemaTranslator(settings["schemas.cache.size"], self.writer, self.reader)
        self.fixed: tuple[Schema, bool] | None = self._fixed_schema(settings["schema.content"])

    def _fixed_schema(self, content: str | None) -> tuple[Schema, bool] | None:
        """The schema of `schema.content` and whether its payloads need exact decimals; None unset or empty."""
        if not content:
            return None
        if not self.schemas_enable:
            raise ConverterConfigError("Invalid value for configuration schema.content: it applies only when "
                                       "schemas.enable is true", {"schema.content": ["needs schemas.enable=true"]})
        try:
            schema, exact = self.schemas.read_schema(orjson.loads(content))
        except (orjson.JSONDecodeError, DataException) as exc:
            raise DataException(f"Failed to parse schema in converter config due to serialization error: {exc}") \
                from None
        return None if schema is None else (schema, exact)

    def serializer(self) -> Serialize:
        return self._serialize

    def schema_serializer(self) -> SchemaSerialize:
        return self.from_connect_data

    def deserializer(self) -> Deserialize:
        return self.to_connect_data

    def from_connect_data(self, _topic: str, schema: Schema | None, value: Any) -> bytes | None:
        """Connect's fromConnectData: `value` as JSON, validated against `schema` (DataException)."""
        if schema is None:
            return self._serialize(value)
        payload = self.writer.to_json(schema, value)
        if self.schemas_enable:
            return dumps({"schema": self.schemas.as_json_schema(schema), "payload": payload})
        return dumps(payload)

    def to_connect_data(self, _topic: str, data: bytes | None) -> SchemaAndValue:
        """Connect's toConnectData: a null is a tombstone (no schema, no value)."""
        if data is None:
            return NULL_SCHEMA_AND_VALUE
        doc = _parse_json(data)
        if not self.schemas_enable:
            return SchemaAndValue(None, schemaless(doc))
        if self.fixed is not None:  # schema.content: the whole record is the payload
            fixed, exact = self.fixed
            payload = json.loads(data, parse_float=Decimal) if exact else doc
            return SchemaAndValue(fixed, self.reader.to_connect(fixed, payload))
        if not (isinstance(doc, dict) and len(doc) == 2 and "schema" in doc and "payload" in doc):
            raise DataException(ENVELOPE_REQUIRED)
        schema, exact = self.schemas.read_schema(doc["schema"])
        payload = doc["payload"]
        if exact:
            # A Decimal read from a JSON number keeps its exact digits, which a float would lose.
            payload = json.loads(data, parse_float=Decimal)["payload"]
        return SchemaAndValue(schema, self.reader.to_connect(schema, payload))

    def to_bytes(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        """fromConnectHeader: the same JSON as a record value."""
        return self.from_connect_data(topic, schema, value)

    def to_connect(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        """toConnectHeader: read as a record value."""
        return self.to_connect_data(topic, data)
