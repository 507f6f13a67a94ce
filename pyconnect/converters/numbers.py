"""Connect's BooleanConverter and number converters (org.apache.kafka.connect.converters: Short-,
Integer-, Long-, Float- and DoubleConverter): one primitive in Kafka's serializer layout, big-endian,
as a Converter and a HeaderConverter alike.

Invariants: bytes of the wrong length, or a value of the wrong type or range, are a DataException
naming the type (never a struct.error); a null is a null both ways, read with the optional schema."""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from typing import Any

from pyconnect.api.config import ConfigDef
from pyconnect.api.converter import Converter, Deserialize, HeaderConverter, SchemaAndValue, SchemaSerialize, Serialize
from pyconnect.api.data import (
    OPTIONAL_BOOLEAN_SCHEMA,
    OPTIONAL_FLOAT32_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
    OPTIONAL_INT16_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    DataException,
    Schema,
    SchemaType,
)
from pyconnect.converters.configs import CONVERTER_CONFIG, parse


class PrimitiveConverter(Converter, HeaderConverter):
    """One fixed-size primitive per value: `FORMAT` (a `struct` format), `SCHEMA` (what it reads as),
    `TYPE_NAME` (Kafka's name of the type, in messages). Subclasses only set these."""

    FORMAT = ">i"
    SCHEMA: Schema = OPTIONAL_INT32_SCHEMA
    TYPE_NAME = "integer"

    def config_def(self) -> ConfigDef:
        return CONVERTER_CONFIG

    def configure(self, configs: Mapping[str, str], is_key: bool = False) -> None:
        """`converter.type` is the only setting (Connect's ConverterConfig)."""
        parse(CONVERTER_CONFIG, configs)

    def accepts(self, value: Any) -> bool:
        """Whether `value` is of this converter's Python type (ints for the integer types)."""
        return isinstance(value, int) and not isinstance(value, bool)

    def pack(self, value: Any) -> bytes | None:
        if value is None:
            return None
        if not self.accepts(value):
            raise DataException(f"Failed to serialize to {self.TYPE_NAME} (was {type(value)})")
        try:
            return struct.pack(self.FORMAT, value)
        except (struct.error, OverflowError) as exc:
            raise DataException(f"Failed to serialize to {self.TYPE_NAME} (was {type(value)}): {exc}") from None

    def unpack(self, data: bytes | None) -> Any:
        if data is None:
            return None
        size = struct.calcsize(self.FORMAT)
        if len(data) != size:
            raise DataException(f"Failed to deserialize {self.TYPE_NAME}: Size of data received by "
                                f"{type(self).__name__.replace('Converter', 'Deserializer')} is not {size}")
        return struct.unpack(self.FORMAT, data)[0]

    def serializer(self) -> Serialize:
        return self.pack

    def schema_serializer(self) -> SchemaSerialize:
        return self.from_connect_data

    def deserializer(self) -> Deserialize:
        return self.to_connect_data

    def from_connect_data(self, _topic: str, _schema: Schema | None, value: Any) -> bytes | None:
        """fromConnectData: the schema is not checked, the value's type is (as Connect's NumberConverter)."""
        return self.pack(value)

    def to_connect_data(self, _topic: str, data: bytes | None) -> SchemaAndValue:
        return SchemaAndValue(self.SCHEMA, self.unpack(data))

    def to_bytes(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, data)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class ShortConverter(PrimitiveConverter):
    """org.apache.kafka.connect.converters.ShortConverter (INT16)."""

    FORMAT, SCHEMA, TYPE_NAME = ">h", OPTIONAL_INT16_SCHEMA, "short"


class IntegerConverter(PrimitiveConverter):
    """org.apache.kafka.connect.converters.IntegerConverter (INT32)."""

    FORMAT, SCHEMA, TYPE_NAME = ">i", OPTIONAL_INT32_SCHEMA, "integer"


class LongConverter(PrimitiveConverter):
    """org.apache.kafka.connect.converters.LongConverter (INT64)."""

    FORMAT, SCHEMA, TYPE_NAME = ">q", OPTIONAL_INT64_SCHEMA, "long"


class FloatConverter(PrimitiveConverter):
    """org.apache.kafka.connect.converters.FloatConverter (FLOAT32; a Python int is a number too)."""

    FORMAT, SCHEMA, TYPE_NAME = ">f", OPTIONAL_FLOAT32_SCHEMA, "float"
    accepts: Callable[..., bool] = staticmethod(_is_number)


class DoubleConverter(PrimitiveConverter):
    """org.apache.kafka.connect.converters.DoubleConverter (FLOAT64; a Python int is a number too)."""

    FORMAT, SCHEMA, TYPE_NAME = ">d", OPTIONAL_FLOAT64_SCHEMA, "double"
    accepts: Callable[..., bool] = staticmethod(_is_number)


class BooleanConverter(PrimitiveConverter):
    """org.apache.kafka.connect.converters.BooleanConverter: one byte, 0x01 true and 0x00 false; unlike
    the number converters it checks the schema (BOOLEAN or none)."""

    FORMAT, SCHEMA, TYPE_NAME = ">?", OPTIONAL_BOOLEAN_SCHEMA, "boolean"

    def accepts(self, value: Any) -> bool:
        return isinstance(value, bool)

    def from_connect_data(self, _topic: str, schema: Schema | None, value: Any) -> bytes | None:
        if schema is not None and schema.type is not SchemaType.BOOLEAN:
            raise DataException(f"Invalid schema type for BooleanConverter: {schema.type}")
        if value is not None and not isinstance(value, bool):
            raise DataException(f"BooleanConverter is not compatible with objects of type {type(value)}")
        return self.pack(value)

    def unpack(self, data: bytes | None) -> Any:
        if data is not None and len(data) == 1 and data[0] not in (0, 1):
            raise DataException(f"Failed to deserialize boolean: Unexpected byte received by BooleanDeserializer: "
                                f"{data[0]}")
        return super().unpack(data)


JAVA_NAMES: dict[str, type] = {f"org.apache.kafka.connect.converters.{cls.__name__}": cls for cls in (
    BooleanConverter, ShortConverter, IntegerConverter, LongConverter, FloatConverter, DoubleConverter)}
