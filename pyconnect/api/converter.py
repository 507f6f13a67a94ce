"""The converter SPI: Connect's `Converter` and `HeaderConverter`, between record bytes and Connect data.

A converter is named by class in `key.converter` / `value.converter` (worker or connector config);
the runtime resolves the name with `load_class` (Java name, entry point of group
`pyconnect.converters`, or Python path), calls `configure` with the `<side>.converter.`-prefixed keys
stripped of the prefix, and then calls the functions the converter hands out once per record:

- `serializer()`: a source's schemaless fast path, the value's Python type standing in for a schema;
- `schema_serializer()`: Connect's `fromConnectData(topic, schema, value)`;
- `deserializer()`: Connect's `toConnectData(topic, bytes)`, what a sink reads.

A `HeaderConverter` (`header.converter`) does the same for one header value at a time.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from pyconnect.api.config import ConfigDef
from pyconnect.api.data import DataException, Schema


class SchemaAndValue(NamedTuple):
    """Connect's SchemaAndValue: a value with its schema (None for schemaless data, or a null)."""

    schema: Schema | None
    value: Any


#: Connect's `SchemaAndValue.NULL`: what a null (tombstone) reads as.
NULL_SCHEMA_AND_VALUE = SchemaAndValue(None, None)

#: One record's key or value to the bytes written (None for a null key or a tombstone).
Serialize = Callable[[Any], bytes | None]
#: (topic, bytes or None) -> Connect data: Connect's `Converter.toConnectData`.
Deserialize = Callable[[str, bytes | None], SchemaAndValue]
#: (topic, schema or None, value) -> bytes: Connect's `Converter.fromConnectData`.
SchemaSerialize = Callable[[str, Schema | None, Any], bytes | None]


class Converter(ABC):
    """Connect's org.apache.kafka.connect.storage.Converter."""

    def config_def(self) -> ConfigDef:
        """The settings `configure` reads (Connect's `Converter.config()`, what
        `GET /connector-plugins/<converter>/config` lists); none by default."""
        return ConfigDef()

    def configure(self, configs: Mapping[str, str], is_key: bool) -> None:
        """Settings given as `<side>.converter.<key>` (e.g. `schemas.enable`); `is_key` says which side."""
        return None

    @abstractmethod
    def serializer(self) -> Serialize:
        """The function the runtime calls per record. A plain function rather than a method call, so
        the per-record path allocates nothing (the byte-array pass-through is recognised by identity)."""

    def schema_serializer(self) -> SchemaSerialize:
        """Connect's `fromConnectData`. This default serves converters that only know `serializer()`:
        it ignores the topic and takes schemaless data; a Connect schema is a DataException, since such
        a converter has no way to honour it. The built-ins override it with Connect's semantics."""
        serialize = self.serializer()
        name = type(self).__qualname__

        def convert(_topic: str, schema: Schema | None, value: Any) -> bytes | None:
            if schema is not None:
                raise DataException(f"Converter {name} writes schemaless data only; got a {schema.type} schema")
            return serialize(value)
        return convert

    def deserializer(self) -> Deserialize:
        """Connect's `toConnectData`, which a sink task's records go through. Every built-in implements
        it. A converter written only for sources does not: asking it for one is an error at task
        setup (not per record), naming the class, because no default could know its format."""
        raise DataException(f"Converter {type(self).__qualname__} cannot read records: it does not "
                            "implement deserializer() (Connect's toConnectData)")


class HeaderConverter(ABC):
    """Connect's org.apache.kafka.connect.storage.HeaderConverter: one header value at a time."""

    def config_def(self) -> ConfigDef:
        """The settings `configure` reads (Connect's `HeaderConverter.config()`); none by default."""
        return ConfigDef()

    def configure(self, configs: Mapping[str, str]) -> None:
        """Settings given as `header.converter.<key>`, without the prefix."""
        return None

    @abstractmethod
    def to_bytes(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        """Connect's `fromConnectHeader`: the header value's bytes (None for a null value)."""

    @abstractmethod
    def to_connect(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        """Connect's `toConnectHeader`: the header's Connect schema and value."""
