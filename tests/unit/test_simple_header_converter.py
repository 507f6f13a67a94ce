"""SimpleHeaderConverter: Kafka's SimpleHeaderConverterTest (every case), and ValuesTest's headline
parseString / convertToString cases (each test names its case)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyconnect.api.converter import SchemaAndValue
from pyconnect.api.data import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    DATE_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
    SchemaBuilder,
    SchemaType,
    Struct,
    decimal_builder,
)
from pyconnect.api.values_parse import parse_string
from pyconnect.converters import header_converter_for
from pyconnect.converters.values_text import convert_to_string

TOPIC, HEADER = "topic", "header"
STRING_MAP = {"foo": "123", "bar": "baz"}
STRING_MAP_SCHEMA = SchemaBuilder.map(STRING_SCHEMA, STRING_SCHEMA).build()
STRING_SHORT_MAP = {"foo": 12345, "bar": 0, "baz": -4321}
STRING_SHORT_MAP_SCHEMA = SchemaBuilder.map(STRING_SCHEMA, INT16_SCHEMA).build()
STRING_INT_MAP = {"foo": 1234567890, "bar": 0, "baz": -987654321}
STRING_INT_MAP_SCHEMA = SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build()
INT_LIST = [1234567890, -987654321]
INT_LIST_SCHEMA = SchemaBuilder.array(INT32_SCHEMA).build()
STRING_LIST = ["foo", "bar"]
STRING_LIST_SCHEMA = SchemaBuilder.array(STRING_SCHEMA).build()

converter = header_converter_for("org.apache.kafka.connect.storage.SimpleHeaderConverter", {})


def round_trip(schema: Schema | None, value: Any) -> SchemaAndValue:
    return converter.to_connect(TOPIC, HEADER, converter.to_bytes(TOPIC, HEADER, schema, value))


def assert_round_trip(schema: Schema | None, value: Any) -> None:
    """SimpleHeaderConverterTest.assertRoundTrip."""
    serialized = converter.to_bytes(TOPIC, HEADER, schema, value)
    result = converter.to_connect(TOPIC, HEADER, serialized)
    if value is None:
        assert serialized is None and result == SchemaAndValue(None, None)
        return
    assert serialized is not None
    assert result == SchemaAndValue(schema, value)
    serialized2 = converter.to_bytes(TOPIC, HEADER, result.schema, result.value)
    assert serialized2 == serialized
    assert converter.to_connect(TOPIC, HEADER, serialized2) == result


def test_should_convert_null_value() -> None:
    """SimpleHeaderConverterTest.shouldConvertNullValue."""
    assert_round_trip(STRING_SCHEMA, None)
    assert_round_trip(OPTIONAL_STRING_SCHEMA, None)


@pytest.mark.parametrize("text", ["simple", "", 'three"blind\\"mice',
                                  "string with delimiters: <>?,./\\=+-!@#$%^&*(){}[]|;':"])
def test_should_convert_strings(text: str) -> None:
    """SimpleHeaderConverterTest.shouldConvertSimpleString, shouldConvertEmptyString,
    shouldConvertStringWithQuotesAndOtherDelimiterCharacters."""
    assert_round_trip(STRING_SCHEMA, text)


@pytest.mark.parametrize(("schema", "value"), [
    (STRING_MAP_SCHEMA, STRING_MAP),            # shouldConvertMapWithStringKeys
    (STRING_SHORT_MAP_SCHEMA, STRING_SHORT_MAP),  # shouldConvertMapWithStringKeysAndShortValues
    (STRING_INT_MAP_SCHEMA, STRING_INT_MAP),    # shouldConvertMapWithStringKeysAndIntegerValues
    (STRING_LIST_SCHEMA, STRING_LIST),          # shouldConvertListWithStringValues
    (INT_LIST_SCHEMA, INT_LIST),                # shouldConvertListWithIntegerValues
])
def test_should_convert_maps_and_lists(schema: Schema, value: Any) -> None:
    """SimpleHeaderConverterTest.shouldConvertMapWithStringKeys, ...AndShortValues, ...AndIntegerValues,
    shouldConvertListWithStringValues, shouldConvertListWithIntegerValues."""
    assert_round_trip(schema, value)


@pytest.mark.parametrize(("text", "schema", "value"), [
    ('{"foo":"123","bar":"baz"}', STRING_MAP_SCHEMA, STRING_MAP),
    ('{ "foo" : "123", \n"bar" : "baz" } ', STRING_MAP_SCHEMA, STRING_MAP),
    ('{"foo":12345,"bar":0,"baz":-4321}', STRING_SHORT_MAP_SCHEMA, STRING_SHORT_MAP),
    (' { "foo" :  12345 , "bar" : 0,  "baz" : -4321 }  ', STRING_SHORT_MAP_SCHEMA, STRING_SHORT_MAP),
    ('{"foo":1234567890,"bar":0,"baz":-987654321}', STRING_INT_MAP_SCHEMA, STRING_INT_MAP),
    (' { "foo" :  1234567890 , "bar" : 0,  "baz" : -987654321 }  ', STRING_INT_MAP_SCHEMA, STRING_INT_MAP),
])
def test_should_parse_string_of_map_as_map(text: str, schema: Schema, value: Any) -> None:
    """SimpleHeaderConverterTest.shouldParseStringOfMapWith{String,Short,Int}Values{Without,With}WhitespaceAsMap."""
    assert round_trip(STRING_SCHEMA, text) == SchemaAndValue(schema, value)


def test_should_convert_map_with_mixed_values_to_map() -> None:
    """SimpleHeaderConverterTest.shouldConvertMapWithStringKeysAndMixedValuesToMap."""
    value = {"foo": "bar", "baz": 3456}
    result = round_trip(None, value)
    assert result.schema is not None and result.schema.type is SchemaType.MAP
    assert result.schema.key_schema == STRING_SCHEMA and result.schema.value_schema is None
    assert result.value == value


def test_should_convert_list_with_mixed_values_to_list_without_schema() -> None:
    """SimpleHeaderConverterTest.shouldConvertListWithMixedValuesToListWithoutSchema."""
    result = round_trip(None, ["foo", 13344])
    assert result.schema is not None and result.schema.type is SchemaType.ARRAY
    assert result.schema.value_schema is None and result.value == ["foo", 13344]


def test_should_convert_empty_map_and_list() -> None:
    """SimpleHeaderConverterTest.shouldConvertEmptyMapToMap, shouldConvertEmptyListToList."""
    empty_map = round_trip(None, {})
    assert empty_map.schema == SchemaBuilder.map(None, None).build() and empty_map.value == {}
    empty_list = round_trip(None, [])
    assert empty_list.schema == SchemaBuilder.array(None).build() and empty_list.value == []


@pytest.mark.parametrize(("text", "expected"), [
    ("true", SchemaAndValue(BOOLEAN_SCHEMA, True)),                      # shouldParseBooleanLiterals
    ("false", SchemaAndValue(BOOLEAN_SCHEMA, False)),
    ("null", SchemaAndValue(None, None)),                                # shouldParseNull
    ("127", SchemaAndValue(INT8_SCHEMA, 127)),                           # shouldParseByteAsInt8
    ("-128", SchemaAndValue(INT8_SCHEMA, -128)),
    ("32767", SchemaAndValue(INT16_SCHEMA, 32767)),                      # shouldParseShortAsInt16
    ("2147483647", SchemaAndValue(INT32_SCHEMA, 2147483647)),            # shouldParseIntAsInt32
    ("9223372036854775807", SchemaAndValue(INT64_SCHEMA, 9223372036854775807)),  # shouldParseLongAsInt64
    ("1.0", SchemaAndValue(INT8_SCHEMA, 1)),            # shouldParseFractionalPartsAsIntegerWhenNoFractionalPart
    ("1.5", SchemaAndValue(FLOAT32_SCHEMA, 1.5)),       # shouldParseFloatAsFloat32
    ("1.7976931348623157E308", SchemaAndValue(FLOAT64_SCHEMA, 1.7976931348623157e308)),  # shouldParseDoubleAsFloat64
    ("9223372036854775808", SchemaAndValue(decimal_builder(0).build(), Decimal("9223372036854775808"))),
    ("2019-08-23", SchemaAndValue(DATE_SCHEMA, dt.date(2019, 8, 23))),  # shouldParseDateStringAsDate
    ("14:34:54.346Z", SchemaAndValue(TIME_SCHEMA, dt.time(14, 34, 54, 346000))),  # shouldParseTimeStringAsTime
    ("2019-08-23T14:34:54.346Z", SchemaAndValue(TIMESTAMP_SCHEMA, dt.datetime(2019, 8, 23, 14, 34, 54, 346000,
                                                                             tzinfo=dt.UTC))),
    ("  ", SchemaAndValue(STRING_SCHEMA, "  ")),                         # shouldParseStringsWithoutDelimiters
    ("simple string", SchemaAndValue(STRING_SCHEMA, "simple string")),
    ("a-b-c-d-e-f", SchemaAndValue(STRING_SCHEMA, "a-b-c-d-e-f")),
    ("true}", SchemaAndValue(STRING_SCHEMA, "true}")),                   # shouldParseTrueAsStringIfFollowedByBrace
    ("[1, 2, 3,,,]", SchemaAndValue(STRING_SCHEMA, "[1, 2, 3,,,]")),  # shouldParseStringListWithExtraDelimiters...
    ("{6:9 4:20}", SchemaAndValue(STRING_SCHEMA, "{6:9 4:20}")),         # shouldNotParseAsMapWithoutCommas
    ("[0 1 2]", SchemaAndValue(STRING_SCHEMA, "[0 1 2]")),               # shouldNotParseAsArrayWithoutCommas
    ("10:30 meeting", SchemaAndValue(STRING_SCHEMA, "10:30 meeting")),   # whole text, not INT8 10 (see module)
])
def test_values_parse_string(text: str, expected: SchemaAndValue) -> None:
    """ValuesTest's parseString cases named in each row."""
    assert parse_string(text) == expected


def test_values_parse_lists_and_maps() -> None:
    """ValuesTest.shouldParseStringListWithMultipleElementTypes, shouldParseStringListWithNullFirst...,
    shouldParseTimestampStringWithEscapedColonsAsTimestamp, shouldParseDateStringAsDateInArray."""
    mixed = parse_string('[1, 2, 3, "four"]')
    assert mixed.schema == SchemaBuilder.array(None).build() and mixed.value == [1, 2, 3, "four"]
    nulls = parse_string("[null, 1, 300]")
    assert nulls == SchemaAndValue(SchemaBuilder.array(INT16_SCHEMA).build(), [None, 1, 300])
    widened = parse_string("[1, 2.5]")
    assert widened == SchemaAndValue(SchemaBuilder.array(FLOAT32_SCHEMA).build(), [1.0, 2.5])
    assert parse_string('["2019-08-23"]') == SchemaAndValue(SchemaBuilder.array(DATE_SCHEMA).build(),
                                                            [dt.date(2019, 8, 23)])
    assert parse_string("2019-08-23T14\\:34\\:54.346Z").schema == TIMESTAMP_SCHEMA
    nested = parse_string('{"a":[1,2],"b":[3]}')
    assert nested.schema == SchemaBuilder.map(STRING_SCHEMA, SchemaBuilder.array(INT8_SCHEMA).build()).build()


@pytest.mark.parametrize(("schema", "value", "text"), [
    (None, True, "true"), (INT32_SCHEMA, 12, "12"), (FLOAT64_SCHEMA, 1e10, "1.0E10"),
    (FLOAT32_SCHEMA, 12.34, "12.34"), (FLOAT64_SCHEMA, 0.1, "0.1"), (None, b"\x00\x01", "AAE="),
    (None, ["a", b"\x00", None, 1.5], '["a","AA==",null,1.5]'), (None, {"k": 'q"\\'}, '{"k":"q\\"\\\\"}'),
    (None, dt.date(2019, 8, 23), "2019-08-23"), (None, dt.time(14, 34, 54, 346000), "14:34:54.346Z"),
    (None, dt.datetime(2019, 8, 23, 14, 34, 54, 346000, tzinfo=dt.UTC), "2019-08-23T14:34:54.346Z"),
    (None, Decimal("1.50"), "1.50"),
])
def test_values_convert_to_string(schema: Schema | None, value: Any, text: str) -> None:
    """ValuesTest.shouldConvertStringOfListWithMixedElements..., shouldConvertDateValues, and the
    primitives as Java prints them (Double.toString, Float.toString)."""
    assert convert_to_string(schema, value) == text


def test_struct_writes_as_map() -> None:
    """ValuesTest.shouldConvertStructToString (a struct reads back as a map: Values cannot parse structs)."""
    schema = SchemaBuilder.struct().field("a", INT8_SCHEMA).field("b", STRING_SCHEMA).build()
    data = converter.to_bytes(TOPIC, HEADER, schema, Struct(schema).put("a", 1).put("b", "x"))
    assert data == b'{"a":1,"b":"x"}'
    assert converter.to_connect(TOPIC, HEADER, data).value == {"a": 1, "b": "x"}


def test_non_utf8_reads_as_bytes() -> None:
    """SimpleHeaderConverter.toConnectHeader falls back to the byte array (BYTES) for what it cannot read."""
    assert converter.to_connect(TOPIC, HEADER, b"\xff\xfe") == SchemaAndValue(BYTES_SCHEMA, b"\xff\xfe")
    assert converter.to_connect(TOPIC, HEADER, None) == SchemaAndValue(None, None)


@given(st.lists(st.integers(-(2 ** 31), 2 ** 31 - 1), min_size=1, max_size=5)
       | st.dictionaries(st.text(), st.text(), min_size=1, max_size=4))
def test_lists_and_maps_round_trip(value: Any) -> None:
    """SimpleHeaderConverterTest.assertRoundTrip's property, for generated lists of ints and string maps."""
    result = round_trip(None, value)
    assert result.value == value


@given(st.integers(-(2 ** 63), 2 ** 63 - 1) | st.booleans())
def test_scalars_read_back_as_the_narrowest_type(value: int | bool) -> None:
    """ValuesTest.shouldParse...As{Int8,Int16,Int32,Int64}: numbers and booleans come back equal."""
    assert round_trip(None, value).value == value
