"""The converters shipped with the runtime, under the Java class names Connect users write.

ByteArrayConverter, StringConverter and JsonConverter are both Converters and HeaderConverters, as in
Java; SimpleHeaderConverter is a HeaderConverter only.
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from typing import Any

from pyconnect.api.converter import (
    NULL_SCHEMA_AND_VALUE,
    Converter,
    Deserialize,
    HeaderConverter,
    SchemaAndValue,
    SchemaSerialize,
    Serialize,
)
from pyconnect.api.data import OPTIONAL_BYTES_SCHEMA, OPTIONAL_STRING_SCHEMA, DataException, Schema, SchemaType
from pyconnect.converters.configs import STRING_CONFIG, ConverterConfigError, parse
from pyconnect.converters.json_converter import JsonConverter
from pyconnect.converters.simple_header import SimpleHeaderConverter


def byte_array(value: Any) -> bytes | None:
    """ByteArrayConverter: bytes pass through unchanged."""
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"ByteArrayConverter needs bytes, got {type(value).__name__}")


def string(value: Any) -> bytes | None:
    """StringConverter: text as UTF-8 (bytes pass through)."""
    if value is None:
        return None
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


class ByteArrayConverter(Converter, HeaderConverter):
    """org.apache.kafka.connect.converters.ByteArrayConverter: reads as OPTIONAL_BYTES_SCHEMA."""

    def configure(self, configs: Mapping[str, str], is_key: bool = False) -> None:
        return None

    def serializer(self) -> Serialize:
        return byte_array

    def schema_serializer(self) -> SchemaSerialize:
        return self.to_bytes_of

    def deserializer(self) -> Deserialize:
        return self.to_connect_data

    @staticmethod
    def to_bytes_of(_topic: str, schema: Schema | None, value: Any) -> bytes | None:
        """fromConnectData: a BYTES schema (or none) and bytes, else a DataException as in Java."""
        if schema is not None and schema.type is not SchemaType.BYTES:
            raise DataException(f"Invalid schema type for ByteArrayConverter: {schema.type}")
        if value is not None and not isinstance(value, (bytes, bytearray, memoryview)):
            raise DataException(f"ByteArrayConverter is not compatible with objects of type {type(value)}")
        return None if value is None else bytes(value)

    @staticmethod
    def to_connect_data(_topic: str, data: bytes | None) -> SchemaAndValue:
        """toConnectData: the bytes, with Java's OPTIONAL_BYTES_SCHEMA (a null too)."""
        return SchemaAndValue(OPTIONAL_BYTES_SCHEMA, data)

    def to_bytes(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.to_bytes_of(topic, schema, value)

    def to_connect(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, data)


def _encoding(configs: Mapping[str, str], is_key: bool) -> str:
    """StringConverter's charset: `converter.encoding`, unless the StringSerializer's own
    `<key|value>.serializer.encoding` in the same settings overrides it, as in Java."""
    encoding = str(parse(STRING_CONFIG, configs)["converter.encoding"])
    override = configs.get(f"{'key' if is_key else 'value'}.serializer.encoding")
    name = str(override).strip() if override is not None else encoding
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise ConverterConfigError(f"Invalid value {name} for configuration converter.encoding: "
                                   "unknown character set", {"converter.encoding": ["unknown character set"]}) from None


class StringConverter(Converter, HeaderConverter):
    """org.apache.kafka.connect.storage.StringConverter: `converter.encoding` (default UTF-8); any value
    is written as its text, and everything reads back as an OPTIONAL_STRING_SCHEMA string."""

    def __init__(self) -> None:
        self.encoding = "utf-8"
        self._serialize: Serialize = string

    def configure(self, configs: Mapping[str, str], is_key: bool = False) -> None:
        self.encoding = _encoding(configs, is_key)
        if self.encoding == "utf-8":
            self._serialize = string
            return
        encoding = self.encoding

        def encode(value: Any) -> bytes | None:
            if value is None:
                return None
            return value if isinstance(value, bytes) else str(value).encode(encoding, errors="replace")
        self._serialize = encode

    def serializer(self) -> Serialize:
        return self._serialize

    def schema_serializer(self) -> SchemaSerialize:
        serialize = self._serialize
        # Java writes value.toString() whatever the schema says.
        return lambda _topic, _schema, value: serialize(value)

    def deserializer(self) -> Deserialize:
        encoding = self.encoding

        def decode(_topic: str, data: bytes | None) -> SchemaAndValue:
            # Java's new String(bytes, charset) replaces malformed input rather than failing.
            text = None if data is None else data.decode(encoding, errors="replace")
            return SchemaAndValue(OPTIONAL_STRING_SCHEMA, text)
        return decode

    def to_bytes(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        return self._serialize(value)

    def to_connect(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        return self.deserializer()(topic, data)


JAVA_NAMES: dict[str, type] = {
    "org.apache.kafka.connect.converters.ByteArrayConverter": ByteArrayConverter,
    "org.apache.kafka.connect.storage.StringConverter": StringConverter,
    "org.apache.kafka.connect.json.JsonConverter": JsonConverter,
    "org.apache.kafka.connect.storage.SimpleHeaderConverter": SimpleHeaderConverter,
}

__all__ = ["JAVA_NAMES", "NULL_SCHEMA_AND_VALUE", "ByteArrayConverter", "JsonConverter", "SimpleHeaderConverter",
           "StringConverter", "byte_array", "string"]
