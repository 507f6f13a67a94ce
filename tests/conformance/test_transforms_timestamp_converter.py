"""Ports of Kafka's TimestampConverterTest (connect/transforms). Java's java.util.Date pivot is a
datetime here: Date values are `datetime.date`, Time values `datetime.time`, Timestamps aware datetimes."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from pyconnect.api.config import ConfigException
from pyconnect.api.data import (
    DATE_SCHEMA,
    EPOCH,
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
    SchemaBuilder,
    Struct,
    date_builder,
    time_builder,
    timestamp_builder,
)
from pyconnect.transforms import ConnectRecord
from pyconnect.transforms.registry import TRANSFORM_ALIASES
from pyconnect.transforms.spi import VERSION
from pyconnect.transforms.timestamp_converter import TimestampConverterKey, TimestampConverterValue

DATE = dt.date(1970, 1, 2)
TIME = dt.time(0, 0, 1, 234_000)
DATE_PLUS_TIME = EPOCH + dt.timedelta(days=1, milliseconds=1234)
DATE_PLUS_TIME_UNIX = 86_401_234
DATE_PLUS_TIME_UNIX_MICROS = DATE_PLUS_TIME_UNIX * 1000 + 123
DATE_PLUS_TIME_UNIX_NANOS = DATE_PLUS_TIME_UNIX_MICROS * 1000 + 456
DATE_PLUS_TIME_UNIX_SECONDS = 86_401
STRING_DATE_FMT = "yyyy MM dd HH mm ss SSS z"
DATE_PLUS_TIME_STRING = "1970 01 02 00 00 01 234 UTC"
OPTIONAL_TIMESTAMP = timestamp_builder().optional().build()
OPTIONAL_DATE = date_builder().optional().build()
OPTIONAL_TIME = time_builder().optional().build()
ORIGINALS = (OPTIONAL_INT64_SCHEMA, OPTIONAL_TIME, OPTIONAL_DATE, OPTIONAL_STRING_SCHEMA, OPTIONAL_TIMESTAMP)
TARGET_SCHEMAS = {"Timestamp": OPTIONAL_TIMESTAMP, "unix": OPTIONAL_INT64_SCHEMA, "Time": OPTIONAL_TIME,
                  "Date": OPTIONAL_DATE, "string": OPTIONAL_STRING_SCHEMA}


def converted(config: dict[str, Any], schema: Schema | None, value: Any) -> ConnectRecord:
    xform = TimestampConverterValue()
    xform.configure(config)
    out = xform.apply(ConnectRecord("topic", 0, value_schema=schema, value=value))
    assert out is not None
    return out


@pytest.mark.kafka("TimestampConverterTest.testConfigNoTargetType")
def test_config_no_target_type() -> None:
    """TimestampConverterTest.testConfigNoTargetType."""
    with pytest.raises(ConfigException, match="target.type"):
        TimestampConverterValue().configure({})


@pytest.mark.parametrize("config", [
    pytest.param({"target.type": "invalid"},
                 marks=pytest.mark.kafka("TimestampConverterTest.testConfigInvalidTargetType")),
    pytest.param({"target.type": "unix", "unix.precision": "invalid"},
                 marks=pytest.mark.kafka("TimestampConverterTest.testConfigInvalidUnixPrecision")),
    pytest.param({"target.type": "string"}, marks=pytest.mark.kafka("TimestampConverterTest.testConfigMissingFormat")),
    pytest.param({"target.type": "string", "format": "bad-format"},
                 marks=pytest.mark.kafka("TimestampConverterTest.testConfigInvalidFormat")),
])
def test_config_refused(config: dict[str, str]) -> None:
    """TimestampConverterTest.testConfigInvalidTargetType, testConfigInvalidUnixPrecision,
    testConfigMissingFormat, testConfigInvalidFormat: each is a ConfigException."""
    with pytest.raises(ConfigException):
        TimestampConverterValue().configure(config)


@pytest.mark.kafka("TimestampConverterTest.testConfigValidUnixPrecision")
def test_config_valid_unix_precision() -> None:
    """TimestampConverterTest.testConfigValidUnixPrecision."""
    TimestampConverterValue().configure({"target.type": "unix", "unix.precision": "seconds"})


@pytest.mark.parametrize(("target", "given", "expected"), [
    pytest.param("Timestamp", DATE_PLUS_TIME, DATE_PLUS_TIME, marks=pytest.mark.kafka(
        "TimestampConverterTest.testSchemalessIdentity")),
    pytest.param("Date", DATE_PLUS_TIME, DATE, marks=pytest.mark.kafka(
        "TimestampConverterTest.testSchemalessTimestampToDate")),
    pytest.param("Time", DATE_PLUS_TIME, TIME, marks=pytest.mark.kafka(
        "TimestampConverterTest.testSchemalessTimestampToTime")),
    pytest.param("unix", DATE_PLUS_TIME, DATE_PLUS_TIME_UNIX, marks=pytest.mark.kafka(
        "TimestampConverterTest.testSchemalessTimestampToUnix")),
    pytest.param("string", DATE_PLUS_TIME, DATE_PLUS_TIME_STRING, marks=pytest.mark.kafka(
        "TimestampConverterTest.testSchemalessTimestampToString")),
    pytest.param("Timestamp", EPOCH + dt.timedelta(days=1), EPOCH + dt.timedelta(days=1), marks=pytest.mark.kafka(
        "TimestampConverterTest.testSchemalessDateToTimestamp")),
    pytest.param("Timestamp", EPOCH + dt.timedelta(milliseconds=1234), EPOCH + dt.timedelta(milliseconds=1234),
                 marks=pytest.mark.kafka("TimestampConverterTest.testSchemalessTimeToTimestamp")),
    pytest.param("Timestamp", DATE_PLUS_TIME_UNIX, DATE_PLUS_TIME, marks=pytest.mark.kafka(
        "TimestampConverterTest.testSchemalessUnixToTimestamp")),
    pytest.param("Timestamp", DATE_PLUS_TIME_STRING, DATE_PLUS_TIME, marks=pytest.mark.kafka(
        "TimestampConverterTest.testSchemalessStringToTimestamp")),
])
def test_schemaless(target: str, given: Any, expected: Any) -> None:
    """TimestampConverterTest's schemaless conversions (the case is in the marker): no schema comes out.
    Java's Date and Time inputs are java.util.Date instants, so they are datetimes here too."""
    out = converted({"target.type": target, "format": STRING_DATE_FMT}, None, given)
    assert out.value_schema is None
    assert out.value == expected


@pytest.mark.parametrize(("target", "schema", "given", "expected_schema", "expected"), [
    pytest.param("Timestamp", TIMESTAMP_SCHEMA, DATE_PLUS_TIME, TIMESTAMP_SCHEMA, DATE_PLUS_TIME,
                 marks=pytest.mark.kafka("TimestampConverterTest.testWithSchemaIdentity")),
    pytest.param("Date", TIMESTAMP_SCHEMA, DATE_PLUS_TIME, DATE_SCHEMA, DATE,
                 marks=pytest.mark.kafka("TimestampConverterTest.testWithSchemaTimestampToDate")),
    pytest.param("Time", TIMESTAMP_SCHEMA, DATE_PLUS_TIME, TIME_SCHEMA, TIME,
                 marks=pytest.mark.kafka("TimestampConverterTest.testWithSchemaTimestampToTime")),
    pytest.param("unix", TIMESTAMP_SCHEMA, DATE_PLUS_TIME, INT64_SCHEMA, DATE_PLUS_TIME_UNIX,
                 marks=pytest.mark.kafka("TimestampConverterTest.testWithSchemaTimestampToUnix")),
    pytest.param("string", TIMESTAMP_SCHEMA, DATE_PLUS_TIME, STRING_SCHEMA, DATE_PLUS_TIME_STRING,
                 marks=pytest.mark.kafka("TimestampConverterTest.testWithSchemaTimestampToString")),
    pytest.param("Timestamp", DATE_SCHEMA, DATE, TIMESTAMP_SCHEMA, EPOCH + dt.timedelta(days=1),
                 marks=pytest.mark.kafka("TimestampConverterTest.testWithSchemaDateToTimestamp")),
    pytest.param("Timestamp", TIME_SCHEMA, TIME, TIMESTAMP_SCHEMA, EPOCH + dt.timedelta(milliseconds=1234),
                 marks=pytest.mark.kafka("TimestampConverterTest.testWithSchemaTimeToTimestamp")),
    pytest.param("Timestamp", INT64_SCHEMA, DATE_PLUS_TIME_UNIX, TIMESTAMP_SCHEMA, DATE_PLUS_TIME,
                 marks=pytest.mark.kafka("TimestampConverterTest.testWithSchemaUnixToTimestamp")),
    pytest.param("Timestamp", STRING_SCHEMA, DATE_PLUS_TIME_STRING, TIMESTAMP_SCHEMA, DATE_PLUS_TIME,
                 marks=pytest.mark.kafka("TimestampConverterTest.testWithSchemaStringToTimestamp")),
])
def test_with_schema(target: str, schema: Schema, given: Any, expected_schema: Schema, expected: Any) -> None:
    """TimestampConverterTest's conversions with schemas (the case is in the marker)."""
    out = converted({"target.type": target, "format": STRING_DATE_FMT}, schema, given)
    assert out.value_schema == expected_schema
    assert out.value == expected


@pytest.mark.parametrize("target", [
    pytest.param(t, marks=pytest.mark.kafka(f"TimestampConverterTest.testSchemalessNullValueTo{t.capitalize()}"))
    for t in ("string", "Date", "Timestamp", "unix", "Time")])
def test_schemaless_null(target: str) -> None:
    """TimestampConverterTest.testSchemalessNullValueTo<Type>: a null value, whole or with `field`, stays null."""
    for extra in ({}, {"field": "ts"}):
        out = converted({"target.type": target, "format": STRING_DATE_FMT, **extra}, None, None)
        assert out.value_schema is None and out.value is None


@pytest.mark.parametrize("target", [
    pytest.param(t, marks=[pytest.mark.kafka(f"TimestampConverterTest.testWithSchemaNullValueTo{t.capitalize()}"),
                           pytest.mark.kafka(f"TimestampConverterTest.testWithSchemaNullFieldTo{t.capitalize()}")])
    for t in ("Timestamp", "unix", "Time", "Date", "string")])
def test_with_schema_null(target: str) -> None:
    """TimestampConverterTest.testWithSchemaNullValueTo<Type> and testWithSchemaNullFieldTo<Type>: from
    every optional source schema, a null whole value, a null field and a null struct stay null, with
    the target's optional schema."""
    expected = TARGET_SCHEMAS[target]
    config = {"target.type": target, "format": STRING_DATE_FMT}
    for original in ORIGINALS:
        whole = converted(config, original, None)
        assert whole.value_schema == expected and whole.value is None
        struct = SchemaBuilder.struct().field("ts", original).field("other", STRING_SCHEMA)
        wanted = SchemaBuilder.struct().field("ts", expected).field("other", STRING_SCHEMA)
        built = struct.build()
        field = converted({**config, "field": "ts"}, built, Struct(built).put("ts", None).put("other", "test"))
        assert field.value_schema == wanted.build() and field.value.get("ts") is None
        null = converted({**config, "field": "ts"}, struct.optional().build(), None)
        assert null.value_schema == wanted.optional().build() and null.value is None


@pytest.mark.kafka("TimestampConverterTest.testSchemalessFieldConversion")
def test_schemaless_field_conversion() -> None:
    """TimestampConverterTest.testSchemalessFieldConversion."""
    out = converted({"target.type": "Date", "field": "ts"}, None, {"ts": DATE_PLUS_TIME})
    assert out.value_schema is None and out.value == {"ts": DATE}


@pytest.mark.parametrize(("precision", "given", "expected"), [
    pytest.param("milliseconds", DATE_PLUS_TIME_UNIX, DATE_PLUS_TIME, marks=pytest.mark.kafka(
        "TimestampConverterTest.testWithSchemaFieldConversion")),
    pytest.param("microseconds", DATE_PLUS_TIME_UNIX_MICROS, DATE_PLUS_TIME, marks=pytest.mark.kafka(
        "TimestampConverterTest.testWithSchemaFieldConversion_Micros")),
    pytest.param("nanoseconds", DATE_PLUS_TIME_UNIX_NANOS, DATE_PLUS_TIME, marks=pytest.mark.kafka(
        "TimestampConverterTest.testWithSchemaFieldConversion_Nanos")),
    pytest.param("seconds", DATE_PLUS_TIME_UNIX_SECONDS, EPOCH + dt.timedelta(days=1, seconds=1),
                 marks=pytest.mark.kafka("TimestampConverterTest.testWithSchemaFieldConversion_Seconds")),
])
def test_with_schema_field_conversion(precision: str, given: int, expected: dt.datetime) -> None:
    """TimestampConverterTest.testWithSchemaFieldConversion and its _Micros, _Nanos, _Seconds variants:
    a unix field of the given precision becomes a Timestamp; the other field is untouched."""
    schema = SchemaBuilder.struct().field("ts", INT64_SCHEMA).field("other", STRING_SCHEMA).build()
    out = converted({"target.type": "Timestamp", "field": "ts", "unix.precision": precision}, schema,
                    Struct(schema).put("ts", given).put("other", "test"))
    wanted = SchemaBuilder.struct().field("ts", TIMESTAMP_SCHEMA).field("other", STRING_SCHEMA).build()
    assert out.value_schema == wanted
    assert (out.value.get("ts"), out.value.get("other")) == (expected, "test")


@pytest.mark.parametrize(("precision", "expected"), [
    pytest.param("microseconds", 86_401_234_000, marks=pytest.mark.kafka(
        "TimestampConverterTest.testSchemalessStringToUnix_Micros")),
    pytest.param("nanoseconds", 86_401_234_000_000, marks=pytest.mark.kafka(
        "TimestampConverterTest.testSchemalessStringToUnix_Nanos")),
    pytest.param("seconds", DATE_PLUS_TIME_UNIX_SECONDS, marks=pytest.mark.kafka(
        "TimestampConverterTest.testSchemalessStringToUnix_Seconds")),
])
def test_schemaless_string_to_unix(precision: str, expected: int) -> None:
    """TimestampConverterTest.testSchemalessStringToUnix_Micros/_Nanos/_Seconds: the millisecond pivot
    loses what is below it."""
    out = converted({"target.type": "unix", "unix.precision": precision, "format": STRING_DATE_FMT}, None,
                    DATE_PLUS_TIME_STRING)
    assert out.value_schema is None and out.value == expected


@pytest.mark.kafka("TimestampConverterTest.testKey")
def test_key() -> None:
    """TimestampConverterTest.testKey."""
    xform = TimestampConverterKey()
    xform.configure({"target.type": "Timestamp"})
    out = xform.apply(ConnectRecord("topic", 0, key=DATE_PLUS_TIME))
    assert out is not None and out.key_schema is None and out.key == DATE_PLUS_TIME


@pytest.mark.kafka("TimestampConverterTest.testTimestampConverterVersionRetrievedFromAppInfoParser")
def test_version() -> None:
    """TimestampConverterTest.testTimestampConverterVersionRetrievedFromAppInfoParser: the project's version."""
    assert TimestampConverterKey().version() == TimestampConverterValue().version() == VERSION
    assert TRANSFORM_ALIASES["org.apache.kafka.connect.transforms.TimestampConverter$Value"] is TimestampConverterValue
