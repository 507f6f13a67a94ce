"""StringConverter and ByteArrayConverter: Kafka's StringConverterTest and ByteArrayConverterTest
(each test names its case), as Converters and as HeaderConverters."""

from __future__ import annotations

import pytest

from pyconnect.api.converter import Converter, SchemaAndValue, Serialize
from pyconnect.api.data import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT32_SCHEMA,
    INT32_SCHEMA,
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    DataException,
)
from pyconnect.converters import (
    converter_for,
    deserializer_for,
    header_converter_for,
    schema_serializer_for,
)
from pyconnect.converters.builtin import byte_array, string

TOPIC = "topic"
STRING = "org.apache.kafka.connect.storage.StringConverter"
BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"
SAMPLE = "a string with ünïcödé"


def test_string_to_bytes() -> None:
    """StringConverterTest.testStringToBytes."""
    assert schema_serializer_for(STRING, {}, False)(TOPIC, STRING_SCHEMA, SAMPLE) == SAMPLE.encode()


def test_non_string_to_bytes() -> None:
    """StringConverterTest.testNonStringToBytes: Java's toString of the value."""
    write = schema_serializer_for(STRING, {}, False)
    assert write(TOPIC, BOOLEAN_SCHEMA, True) == b"true"
    assert write(TOPIC, FLOAT32_SCHEMA, 12.34) == b"12.34"
    assert write(TOPIC, None, 1e10) == b"1.0E10"


def test_null_to_bytes() -> None:
    """StringConverterTest.testNullToBytes."""
    assert schema_serializer_for(STRING, {}, False)(TOPIC, OPTIONAL_STRING_SCHEMA, None) is None


def test_to_bytes_ignores_schema() -> None:
    """StringConverterTest.testToBytesIgnoresSchema."""
    assert schema_serializer_for(STRING, {}, False)(TOPIC, None, True) == b"true"


@pytest.mark.parametrize(("encoding", "data"), [
    ("UTF-16", b"\xfe\xff" + SAMPLE.encode("utf-16-be")),  # Java's UTF-16: big-endian with a BOM
    ("UTF-16LE", SAMPLE.encode("utf-16-le")),
    ("ISO-8859-1", SAMPLE.encode("latin-1")),
])
def test_non_utf8_encoding(encoding: str, data: bytes) -> None:
    """StringConverterTest.testToBytesNonUtf8Encoding and testBytesToStringNonUtf8Encoding."""
    configs = {"converter.encoding": encoding}
    assert schema_serializer_for(STRING, configs, True)(TOPIC, STRING_SCHEMA, SAMPLE) == data
    assert converter_for(STRING, configs, True)(SAMPLE) == data
    assert deserializer_for(STRING, configs, True)(TOPIC, data) == SchemaAndValue(OPTIONAL_STRING_SCHEMA, SAMPLE)


def test_serializer_encoding_overrides() -> None:
    """StringConverter passes its settings to StringSerializer, whose `<side>.serializer.encoding` wins."""
    write = schema_serializer_for(STRING, {"converter.encoding": "UTF-8", "value.serializer.encoding": "UTF-16LE"},
                                  False)
    assert write(TOPIC, None, "x") == b"x\x00"


def test_unknown_encoding_is_a_config_error() -> None:
    """StringConverterConfig: an unknown charset fails configuration."""
    with pytest.raises(ValueError, match="converter.encoding"):
        converter_for(STRING, {"converter.encoding": "no-such-charset"}, False)


def test_bytes_to_string() -> None:
    """StringConverterTest.testBytesToString, testBytesNullToString (malformed input replaced, as Java)."""
    read = deserializer_for(STRING, {}, False)
    assert read(TOPIC, SAMPLE.encode()) == SchemaAndValue(OPTIONAL_STRING_SCHEMA, SAMPLE)
    assert read(TOPIC, None) == SchemaAndValue(OPTIONAL_STRING_SCHEMA, None)
    assert read(TOPIC, b"a\xffb") == SchemaAndValue(OPTIONAL_STRING_SCHEMA, "a\ufffdb")


def test_string_header_values() -> None:
    """StringConverterTest.testStringHeaderValueToBytes, testNonStringHeaderValueToBytes,
    testNullHeaderValueToBytes."""
    header = header_converter_for("StringConverter", {})
    assert header.to_bytes(TOPIC, "h", STRING_SCHEMA, SAMPLE) == SAMPLE.encode()
    assert header.to_bytes(TOPIC, "h", BOOLEAN_SCHEMA, True) == b"true"
    assert header.to_bytes(TOPIC, "h", OPTIONAL_STRING_SCHEMA, None) is None
    assert header.to_connect(TOPIC, "h", b"x") == SchemaAndValue(OPTIONAL_STRING_SCHEMA, "x")


def test_string_fast_path_is_unchanged() -> None:
    """The schemaless fast path stays the module function (recognised by identity)."""
    assert converter_for(STRING, {}, False) is string
    assert converter_for(BYTES, {}, False) is byte_array


def test_byte_array_from_connect() -> None:
    """ByteArrayConverterTest.testFromConnect, testFromConnectSchemaless, testFromConnectByteBufferValue."""
    write = schema_serializer_for(BYTES, {}, False)
    assert write(TOPIC, BYTES_SCHEMA, b"\x00\xff") == b"\x00\xff"
    assert write(TOPIC, None, b"\x00\xff") == b"\x00\xff"
    assert write(TOPIC, BYTES_SCHEMA, bytearray(b"ab")) == b"ab"


def test_byte_array_from_connect_errors() -> None:
    """ByteArrayConverterTest.testFromConnectBadSchema, testFromConnectInvalidValue."""
    write = schema_serializer_for(BYTES, {}, False)
    with pytest.raises(DataException, match="Invalid schema type for ByteArrayConverter: INT32"):
        write(TOPIC, INT32_SCHEMA, 12)
    with pytest.raises(DataException, match="ByteArrayConverter is not compatible with objects of type"):
        write(TOPIC, BYTES_SCHEMA, 12)


def test_byte_array_nulls_and_to_connect() -> None:
    """ByteArrayConverterTest.testFromConnectNull, testToConnect, testToConnectNull."""
    assert schema_serializer_for(BYTES, {}, False)(TOPIC, BYTES_SCHEMA, None) is None
    read = deserializer_for(BYTES, {}, False)
    assert read(TOPIC, b"\x01") == SchemaAndValue(OPTIONAL_BYTES_SCHEMA, b"\x01")
    assert read(TOPIC, None) == SchemaAndValue(OPTIONAL_BYTES_SCHEMA, None)


def test_byte_array_header_converter() -> None:
    """ByteArrayConverter is a HeaderConverter too (fromConnectHeader / toConnectHeader)."""
    header = header_converter_for("ByteArrayConverter", {})
    assert header.to_bytes(TOPIC, "h", BYTES_SCHEMA, b"x") == b"x"
    assert header.to_connect(TOPIC, "h", b"x") == SchemaAndValue(OPTIONAL_BYTES_SCHEMA, b"x")


class _SourceOnly(Converter):
    """A third-party converter written for sources: no deserializer."""

    def serializer(self) -> Serialize:
        return lambda value: None if value is None else str(value).encode()


def test_third_party_converter_defaults() -> None:
    """The SPI defaults: schemaless schema_serializer() over serializer(); no deserializer() is an error
    at setup, naming the class."""
    write = schema_serializer_for(f"{__name__}:_SourceOnly", {}, False)
    assert write(TOPIC, None, 5) == b"5"
    with pytest.raises(DataException, match="schemaless"):
        write(TOPIC, INT32_SCHEMA, 5)
    with pytest.raises(DataException, match="_SourceOnly cannot read records"):
        deserializer_for(f"{__name__}:_SourceOnly", {}, False)


def test_header_converter_for_refuses_plain_converters() -> None:
    """header.converter loads HeaderConverters only (a Converter-only class is refused, as in Java)."""
    from pyconnect.api.loading import ClassLoadError
    with pytest.raises(ClassLoadError, match="is not an instance of"):
        header_converter_for(f"{__name__}:_SourceOnly", {})
    with pytest.raises(ClassLoadError, match="could not be found"):
        header_converter_for("io.confluent.connect.avro.AvroConverter", {})
