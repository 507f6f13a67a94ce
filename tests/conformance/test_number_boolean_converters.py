"""Ports of Kafka's NumberConverterTest (run for each of its subclasses ShortConverterTest,
IntegerConverterTest, LongConverterTest, FloatConverterTest, DoubleConverterTest) and BooleanConverterTest
(connect/runtime, org.apache.kafka.connect.converters), through the converters' class-name lookup."""

from __future__ import annotations

import struct

import pytest

from pyconnect.api.converter import Converter, HeaderConverter
from pyconnect.api.data import BOOLEAN_SCHEMA, INT32_SCHEMA, OPTIONAL_BOOLEAN_SCHEMA, DataException, Schema
from pyconnect.api.loading import load_class
from pyconnect.converters import ALIASES, GROUP, deserializer_for, header_converter_for, schema_serializer_for
from pyconnect.converters.numbers import PrimitiveConverter

TOPIC = "topic"
HEADER = "header"
PACKAGE = "org.apache.kafka.connect.converters."


def _f32(value: float) -> float:
    """A float as Java's float holds it (what a FloatSerializer round trip gives back)."""
    return float(struct.unpack(">f", struct.pack(">f", value))[0])


# Each subclass's samples, with the struct format of Kafka's matching Serializer (big-endian).
SUBCLASSES = {
    "ShortConverter": ([-(1 << 15), 1234, (1 << 15) - 1], ">h"),
    "IntegerConverter": ([-(1 << 31), 1234, (1 << 31) - 1], ">i"),
    "LongConverter": ([-(1 << 63), 1234, (1 << 63) - 1], ">q"),
    "FloatConverter": ([_f32(1.4e-45), _f32(1234.31), _f32(3.4028235e38)], ">f"),
    "DoubleConverter": ([5e-324, 1234.31, 1.7976931348623157e308], ">d"),
}


def converter(name: str) -> PrimitiveConverter:
    found: PrimitiveConverter = load_class(PACKAGE + name, Converter, ALIASES, GROUP)()
    found.configure({}, False)
    return found


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.kafka(
    f"{n}Test.testConvertingSamplesToAndFromBytes")) for n in SUBCLASSES])
def test_converting_samples_to_and_from_bytes(name: str) -> None:
    """NumberConverterTest.testConvertingSamplesToAndFromBytes (per subclass): data and header paths
    write the serializer's bytes and read the sample back with the optional schema."""
    samples, fmt = SUBCLASSES[name]
    schema: Schema = converter(name).SCHEMA
    write, read = schema_serializer_for(name, {}, False), deserializer_for(name, {}, False)
    header = header_converter_for(PACKAGE + name, {})
    for sample in samples:
        expected = struct.pack(fmt, sample)
        assert write(TOPIC, schema, sample) == expected
        assert read(TOPIC, expected) == (schema, sample)
        assert header.to_bytes(TOPIC, HEADER, schema, sample) == expected
        assert header.to_connect(TOPIC, HEADER, expected) == (schema, sample)


@pytest.mark.parametrize("name", [pytest.param(n, marks=[
    pytest.mark.kafka(f"{n}Test.testDeserializingDataWithTooManyBytes"),
    pytest.mark.kafka(f"{n}Test.testDeserializingHeaderWithTooManyBytes")]) for n in SUBCLASSES])
def test_deserializing_too_many_bytes(name: str) -> None:
    """NumberConverterTest.testDeserializingDataWithTooManyBytes and ...HeaderWithTooManyBytes."""
    with pytest.raises(DataException, match="Failed to deserialize"):
        deserializer_for(name, {}, False)(TOPIC, bytes(10))
    header: HeaderConverter = header_converter_for(name, {})
    with pytest.raises(DataException, match="Failed to deserialize"):
        header.to_connect(TOPIC, HEADER, bytes(10))


@pytest.mark.parametrize("name", [pytest.param(n, marks=[
    pytest.mark.kafka(f"{n}Test.testSerializingIncorrectType"),
    pytest.mark.kafka(f"{n}Test.testSerializingIncorrectHeader")]) for n in SUBCLASSES])
def test_serializing_incorrect_type(name: str) -> None:
    """NumberConverterTest.testSerializingIncorrectType and testSerializingIncorrectHeader."""
    schema = converter(name).SCHEMA
    with pytest.raises(DataException, match="Failed to serialize"):
        schema_serializer_for(name, {}, False)(TOPIC, schema, "not a valid number")
    with pytest.raises(DataException, match="Failed to serialize"):
        header_converter_for(name, {}).to_bytes(TOPIC, HEADER, schema, "not a valid number")


@pytest.mark.parametrize("name", [pytest.param(n, marks=[
    pytest.mark.kafka(f"{n}Test.testNullToBytes"), pytest.mark.kafka(f"{n}Test.testBytesNullToNumber")])
    for n in SUBCLASSES])
def test_nulls(name: str) -> None:
    """NumberConverterTest.testNullToBytes and testBytesNullToNumber: a null reads with the optional schema."""
    assert schema_serializer_for(name, {}, False)(TOPIC, converter(name).SCHEMA, None) is None
    assert deserializer_for(name, {}, False)(TOPIC, None) == (converter(name).SCHEMA, None)


def test_out_of_range_is_a_data_exception() -> None:
    """A Python int beyond the type's range is a DataException (Java's type system rules it out)."""
    with pytest.raises(DataException, match="Failed to serialize to short"):
        schema_serializer_for("ShortConverter", {}, False)(TOPIC, None, 1 << 20)


BOOLEAN = PACKAGE + "BooleanConverter"


@pytest.mark.kafka("BooleanConverterTest.testFromConnect")
def test_boolean_from_connect() -> None:
    """BooleanConverterTest.testFromConnect."""
    write = schema_serializer_for(BOOLEAN, {}, False)
    assert (write(TOPIC, BOOLEAN_SCHEMA, True), write(TOPIC, BOOLEAN_SCHEMA, False)) == (b"\x01", b"\x00")


@pytest.mark.kafka("BooleanConverterTest.testFromConnectBadSchema")
def test_boolean_from_connect_bad_schema() -> None:
    """BooleanConverterTest.testFromConnectBadSchema."""
    with pytest.raises(DataException, match="Invalid schema type for BooleanConverter: INT32"):
        schema_serializer_for(BOOLEAN, {}, False)(TOPIC, INT32_SCHEMA, False)


@pytest.mark.kafka("BooleanConverterTest.testFromConnectInvalidValue")
def test_boolean_from_connect_invalid_value() -> None:
    """BooleanConverterTest.testFromConnectInvalidValue."""
    with pytest.raises(DataException, match="not compatible"):
        schema_serializer_for(BOOLEAN, {}, False)(TOPIC, BOOLEAN_SCHEMA, "true")


@pytest.mark.kafka("BooleanConverterTest.testFromConnectNull")
def test_boolean_from_connect_null() -> None:
    """BooleanConverterTest.testFromConnectNull."""
    assert schema_serializer_for(BOOLEAN, {}, False)(TOPIC, BOOLEAN_SCHEMA, None) is None


@pytest.mark.kafka("BooleanConverterTest.testToConnect")
def test_boolean_to_connect() -> None:
    """BooleanConverterTest.testToConnect: OPTIONAL_BOOLEAN_SCHEMA for true, false and null; another
    byte value or length is a DataException."""
    read = deserializer_for(BOOLEAN, {}, False)
    assert [read(TOPIC, b) for b in (b"\x01", b"\x00", None)] == [
        (OPTIONAL_BOOLEAN_SCHEMA, True), (OPTIONAL_BOOLEAN_SCHEMA, False), (OPTIONAL_BOOLEAN_SCHEMA, None)]
    for bad in (b"\x02", b"\x00\x01"):
        with pytest.raises(DataException, match="Failed to deserialize boolean"):
            read(TOPIC, bad)


def test_converter_type_is_checked() -> None:
    """Connect's ConverterConfig: `converter.type` must be key, value or header."""
    from pyconnect.converters.configs import ConverterConfigError
    with pytest.raises(ConverterConfigError, match="converter.type"):
        converter("LongConverter").configure({"converter.type": "nope"}, False)
