"""The converters shipped with the runtime, under the Java class names Connect users write.

ByteArrayConverter, StringConverter and JsonConverter are both Converters and HeaderConverters, as in
Java; SimpleHeaderConverter is a HeaderConverter only.
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, java_double_string
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
from pyconnect.api.numbers import java_float_string
from pyconnect.converters.configs import CONVERTER_CONFIG, STRING_CONFIG, ConverterConfigError, parse
from pyconnect.converters.json_converter import JsonConverter
from pyconnect.converters.numbers import JAVA_NAMES as PRIMITIVE_NAMES
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

    def config_def(self) -> ConfigDef:
        return CONVERTER_CONFIG

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


# Java's UTF-16 writes a big-endian BOM and UTF-32 big-endian without one, where Python's codecs of
# those names use the machine's byte order; both read a BOM when there is one and big-endian otherwise.
_BOMS = {"utf-16": (codecs.BOM_UTF16_BE, "utf-16-be"), "utf-32": (b"", "utf-32-be")}


def _text_bytes(text: str, encoding: str) -> bytes:
    bom, codec = _BOMS.get(encoding, (b"", encoding))
    return bom + text.encode(codec, errors="replace")


def _bytes_text(data: bytes, encoding: str) -> str:
    if encoding in _BOMS and not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE,
                                                  codecs.BOM_UTF32_BE)):
        encoding = _BOMS[encoding][1]
    return data.decode(encoding, errors="replace")


def java_to_string(schema: Schema | None, value: Any) -> str:
    """Java's `value.toString()` for Connect values StringConverter is given: booleans in lower case,
    doubles and floats as Java prints them; anything else as Python's str."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if schema is not None and schema.type is SchemaType.FLOAT32:
            return java_float_string(value)
        return java_double_string(value)
    return str(value)


class StringConverter(Converter, HeaderConverter):
    """org.apache.kafka.connect.storage.StringConverter: `converter.encoding` (default UTF-8); any value
    is written as its text, and everything reads back as an OPTIONAL_STRING_SCHEMA string.

    `serializer()` keeps the fast path's Python text (`str(value)`); `schema_serializer()` and the
    header path print booleans and floats as Java's toString does."""

    def __init__(self) -> None:
        self.encoding = "utf-8"
        self._serialize: Serialize = string

    def config_def(self) -> ConfigDef:
        return STRING_CONFIG

    def configure(self, configs: Mapping[str, str], is_key: bool = False) -> None:
        self.encoding = _encoding(configs, is_key)
        if self.encoding == "utf-8":
            self._serialize = string
            return
        encoding = self.encoding

        def encode(value: Any) -> bytes | None:
            if value is None:
                return None
            return value if isinstance(value, bytes) else _text_bytes(str(value), encoding)
        self._serialize = encode

    def serializer(self) -> Serialize:
        return self._serialize

    def schema_serializer(self) -> SchemaSerialize:
        return self.from_connect_data

    def deserializer(self) -> Deserialize:
        return self.to_connect_data

    def from_connect_data(self, _topic: str, schema: Schema | None, value: Any) -> bytes | None:
        """fromConnectData: the value's text whatever the schema (bytes pass through, as the fast path)."""
        if value is None or isinstance(value, bytes):
            return value
        return _text_bytes(java_to_string(schema, value), self.encoding)

    def to_connect_data(self, _topic: str, data: bytes | None) -> SchemaAndValue:
        """toConnectData: Java's new String(bytes, charset), which replaces malformed input."""
        return SchemaAndValue(OPTIONAL_STRING_SCHEMA, None if data is None else _bytes_text(data, self.encoding))

    def to_bytes(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, data)


JAVA_NAMES: dict[str, type] = {
    "org.apache.kafka.connect.converters.ByteArrayConverter": ByteArrayConverter,
    "org.apache.kafka.connect.storage.StringConverter": StringConverter,
    "org.apache.kafka.connect.json.JsonConverter": JsonConverter,
    "org.apache.kafka.connect.storage.SimpleHeaderConverter": SimpleHeaderConverter,
    **PRIMITIVE_NAMES,
}

__all__ = ["JAVA_NAMES", "NULL_SCHEMA_AND_VALUE", "ByteArrayConverter", "JsonConverter", "SimpleHeaderConverter",
           "StringConverter", "byte_array", "string"]
