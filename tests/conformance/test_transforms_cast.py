"""Port of Kafka's CastTest (connect/transforms): the config, whole-value, logical and field cases."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from pyconnect.api.config import ConfigException
from pyconnect.api.data import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    DATE_SCHEMA,
    EPOCH,
    FLOAT32_SCHEMA,
    INT8_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_FLOAT32_SCHEMA,
    OPTIONAL_INT16_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
    DataException,
    SchemaBuilder,
    SchemaType,
    Struct,
    decimal_builder,
    timestamp_builder,
)
from pyconnect.transforms import ConnectRecord
from pyconnect.transforms.cast import CastKey, CastValue
from pyconnect.transforms.spi import VERSION
from pyconnect.transforms.values import format_logical

DAY = EPOCH + dt.timedelta(days=1)
ALL_TYPES = "int8:int16,int16:int32,int32:int64,int64:boolean,float32:float64,float64:boolean,boolean:int8,string:int32"


def cast_value(spec: str, schema: Any, value: Any) -> ConnectRecord:
    xform = CastValue()
    xform.configure({"spec": spec})
    out = xform.apply(ConnectRecord("topic", 0, value_schema=schema, value=value))
    assert out is not None
    return out


@pytest.mark.kafka("CastTest.testConfigEmpty")
@pytest.mark.kafka("CastTest.testConfigInvalidSchemaType")
@pytest.mark.kafka("CastTest.testConfigInvalidTargetType")
@pytest.mark.kafka("CastTest.testUnsupportedTargetType")
@pytest.mark.kafka("CastTest.testConfigInvalidMap")
@pytest.mark.kafka("CastTest.testConfigMixWholeAndFieldTransformation")
@pytest.mark.parametrize("spec", ["", "foo:faketype", "foo:array", "foo:bytes", "foo:int8:extra", "foo:int8,int32"])
def test_config_rejected(spec: str) -> None:
    with pytest.raises(ConfigException):
        CastKey().configure({"spec": spec})


@pytest.mark.kafka("CastTest.castNullValueRecordWithSchema")
@pytest.mark.kafka("CastTest.castNullValueRecordSchemaless")
@pytest.mark.parametrize("schema", [STRING_SCHEMA, None])
def test_cast_null_value_record(schema: Any) -> None:
    original = ConnectRecord("topic", 0, STRING_SCHEMA, "key", schema, None)
    xform = CastValue()
    xform.configure({"spec": "foo:int64"})
    assert xform.apply(original) == original


@pytest.mark.kafka("CastTest.castNullKeyRecordWithSchema")
@pytest.mark.kafka("CastTest.castNullKeyRecordSchemaless")
@pytest.mark.parametrize("schema", [STRING_SCHEMA, None])
def test_cast_null_key_record(schema: Any) -> None:
    xform = CastKey()
    xform.configure({"spec": "foo:int64"})
    original = ConnectRecord("topic", 0, schema, None, STRING_SCHEMA, "value")
    assert xform.apply(original) == original


@pytest.mark.kafka("CastTest.castWholeRecordKeyWithSchema")
@pytest.mark.kafka("CastTest.castWholeRecordKeySchemaless")
@pytest.mark.parametrize("schema", [INT32_SCHEMA, None])
def test_cast_whole_record_key(schema: Any) -> None:
    xform = CastKey()
    xform.configure({"spec": "int8"})
    out = xform.apply(ConnectRecord("topic", 0, schema, 42, STRING_SCHEMA, "bogus"))
    assert out is not None and out.key == 42
    assert out.key_schema == (None if schema is None else INT8_SCHEMA)


WHOLE = [("int8", 42, 42), ("int16", 42, 42), ("int32", 42, 42), ("int64", 42, 42), ("float32", 42, 42.0),
         ("float64", 42, 42.0), ("boolean", 42, True), ("boolean", 0, False), ("string", 42, "42")]


@pytest.mark.kafka("CastTest.castWholeRecordValueWithSchemaInt8")
@pytest.mark.kafka("CastTest.castWholeRecordValueWithSchemaInt16")
@pytest.mark.kafka("CastTest.castWholeRecordValueWithSchemaInt32")
@pytest.mark.kafka("CastTest.castWholeRecordValueWithSchemaInt64")
@pytest.mark.kafka("CastTest.castWholeRecordValueWithSchemaFloat32")
@pytest.mark.kafka("CastTest.castWholeRecordValueWithSchemaFloat64")
@pytest.mark.kafka("CastTest.castWholeRecordValueWithSchemaBooleanTrue")
@pytest.mark.kafka("CastTest.castWholeRecordValueWithSchemaBooleanFalse")
@pytest.mark.kafka("CastTest.castWholeRecordValueWithSchemaString")
@pytest.mark.parametrize(("target", "value", "expected"), WHOLE)
def test_cast_whole_value_with_schema(target: str, value: int, expected: Any) -> None:
    out = cast_value(target, INT32_SCHEMA, value)
    assert out.value_schema is not None and out.value_schema.type is SchemaType(target.upper())
    assert out.value == expected and type(out.value) is type(expected)


@pytest.mark.kafka("CastTest.castWholeRecordValueSchemalessInt8")
@pytest.mark.kafka("CastTest.castWholeRecordValueSchemalessInt16")
@pytest.mark.kafka("CastTest.castWholeRecordValueSchemalessInt32")
@pytest.mark.kafka("CastTest.castWholeRecordValueSchemalessInt64")
@pytest.mark.kafka("CastTest.castWholeRecordValueSchemalessFloat32")
@pytest.mark.kafka("CastTest.castWholeRecordValueSchemalessFloat64")
@pytest.mark.kafka("CastTest.castWholeRecordValueSchemalessBooleanTrue")
@pytest.mark.kafka("CastTest.castWholeRecordValueSchemalessBooleanFalse")
@pytest.mark.kafka("CastTest.castWholeRecordValueSchemalessString")
@pytest.mark.parametrize(("target", "value", "expected"), WHOLE)
def test_cast_whole_value_schemaless(target: str, value: int, expected: Any) -> None:
    out = cast_value(target, None, value)
    assert out.value_schema is None and out.value == expected and type(out.value) is type(expected)


@pytest.mark.kafka("CastTest.castWholeBigDecimalRecordValueWithSchemaString")
def test_cast_whole_decimal_to_string() -> None:
    out = cast_value("string", decimal_builder(0).build(), Decimal(42))
    assert out.value_schema is not None and out.value_schema.type is SchemaType.STRING and out.value == "42"


@pytest.mark.kafka("CastTest.castWholeDateRecordValueWithSchemaString")
def test_cast_whole_timestamp_to_string() -> None:
    stamp = DAY + dt.timedelta(milliseconds=1)
    out = cast_value("string", TIMESTAMP_SCHEMA, stamp)
    assert out.value == "1970-01-02T00:00:00.001Z" == format_logical(stamp)


@pytest.mark.kafka("CastTest.castWholeRecordDefaultValue")
def test_cast_whole_record_default_value() -> None:
    schema = SchemaBuilder.of(SchemaType.FLOAT32).default_value(-42.125).build()
    out = cast_value("int32", schema, 42.125)
    assert out.value_schema is not None and out.value_schema.type is SchemaType.INT32
    assert out.value == 42 and out.value_schema.default_value == -42


@pytest.mark.kafka("CastTest.castWholeRecordValueSchemalessUnsupportedType")
def test_cast_whole_value_schemaless_unsupported_type() -> None:
    with pytest.raises(DataException):
        cast_value("int8", None, ["foo"])


@pytest.mark.kafka("CastTest.castLogicalToPrimitive")
def test_cast_logical_to_primitive() -> None:
    schema = (SchemaBuilder.struct().field("date_to_int32", DATE_SCHEMA).field("timestamp_to_int64", TIMESTAMP_SCHEMA)
              .field("time_to_int64", TIME_SCHEMA).field("decimal_to_int32", decimal_builder(0))
              .field("timestamp_to_float64", TIMESTAMP_SCHEMA)
              .field("null_timestamp_to_int32", timestamp_builder().optional()).build())
    # Kafka's last timestamp is Long.MAX_VALUE ms, past Python's datetime range: the largest one it holds instead.
    late = dt.datetime.max.replace(tzinfo=dt.UTC, microsecond=999000)
    value = (Struct(schema).put("date_to_int32", DAY.date()).put("timestamp_to_int64", EPOCH)
             .put("time_to_int64", dt.time(0, 0, 0, 1000)).put("decimal_to_int32", Decimal(2**31))
             .put("timestamp_to_float64", late).put("null_timestamp_to_int32", None))
    out = cast_value("date_to_int32:int32,timestamp_to_int64:int64,time_to_int64:int64,decimal_to_int32:int32,"
                     "timestamp_to_float64:float64,null_timestamp_to_int32:int32", schema, value).value
    assert out.get("date_to_int32") == 1 and out.get("timestamp_to_int64") == 0 and out.get("time_to_int64") == 1
    assert out.get("decimal_to_int32") == -(2**31)  # Java's intValue() keeps the low 32 bits
    assert out.get("timestamp_to_float64") == 253402300799999.0 and out.get("null_timestamp_to_int32") is None
    types = {f.name: f.schema.type for f in out.schema.fields}
    assert types == {"date_to_int32": SchemaType.INT32, "timestamp_to_int64": SchemaType.INT64,
                     "time_to_int64": SchemaType.INT64, "decimal_to_int32": SchemaType.INT32,
                     "timestamp_to_float64": SchemaType.FLOAT64, "null_timestamp_to_int32": SchemaType.INT32}


@pytest.mark.kafka("CastTest.castLogicalToString")
def test_cast_logical_to_string() -> None:
    now = dt.datetime.now(dt.UTC).replace(microsecond=123000)
    schema = (SchemaBuilder.struct().field("date", DATE_SCHEMA).field("decimal", decimal_builder(0))
              .field("time", TIME_SCHEMA).field("timestamp", TIMESTAMP_SCHEMA).build())
    value = (Struct(schema).put("date", DAY.date()).put("decimal", Decimal(1982)).put("time", dt.time(1))
             .put("timestamp", now))
    out = cast_value("date:string,decimal:string,time:string,timestamp:string", schema, value).value
    assert out.get("date") == "1970-01-02" and out.get("decimal") == "1982" and out.get("time") == "01:00:00.000Z"
    assert out.get("timestamp") == now.strftime("%Y-%m-%dT%H:%M:%S.123Z")
    assert {f.schema.type for f in out.schema.fields} == {SchemaType.STRING}


def typed_struct() -> tuple[Any, Struct]:
    schema = (SchemaBuilder.struct().field("int8", INT8_SCHEMA).field("int16", OPTIONAL_INT16_SCHEMA)
              .field("int32", SchemaBuilder.of(SchemaType.INT32).default_value(2)).field("int64", INT64_SCHEMA)
              .field("float32", FLOAT32_SCHEMA)
              .field("float64", SchemaBuilder.of(SchemaType.FLOAT64).default_value(-1.125))
              .field("boolean", BOOLEAN_SCHEMA).field("string", STRING_SCHEMA).field("bigdecimal", decimal_builder(0))
              .field("date", DATE_SCHEMA).field("optional", OPTIONAL_FLOAT32_SCHEMA)
              .field("timestamp", TIMESTAMP_SCHEMA)
              .field("bytes", BYTES_SCHEMA).field("byteArray", BYTES_SCHEMA).build())
    raw = bytes([0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10])
    struct = Struct(schema)
    for name, v in {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "float32": 32.0, "float64": -64.0,
                    "boolean": True, "bigdecimal": Decimal(42), "date": DAY.date(), "string": "42",
                    "timestamp": EPOCH, "bytes": raw, "byteArray": bytearray(raw)}.items():
        struct.put(name, v)
    return schema, struct


@pytest.mark.kafka("CastTest.castFieldsWithSchema")
def test_cast_fields_with_schema() -> None:
    schema, value = typed_struct()
    out = cast_value(ALL_TYPES + ",bigdecimal:string,date:string,optional:int32,bytes:string,byteArray:string",
                     schema, value).value
    expected = {"int8": 8, "int16": 16, "int32": 32, "int64": True, "float32": 32.0, "float64": True, "boolean": 1,
                "string": 42, "bigdecimal": "42", "date": "1970-01-02", "optional": None, "timestamp": EPOCH,
                "bytes": "/ty6mHZUMhA=", "byteArray": "/ty6mHZUMhA="}
    assert {f.name: out.get(f) for f in out.schema.fields} == expected
    fields = {f.name: f.schema for f in out.schema.fields}
    assert fields["int16"].optional and fields["int32"].default_value == 2 and fields["float64"].default_value is True
    assert {n: s.type for n, s in fields.items()} == {
        "int8": SchemaType.INT16, "int16": SchemaType.INT32, "int32": SchemaType.INT64, "int64": SchemaType.BOOLEAN,
        "float32": SchemaType.FLOAT64, "float64": SchemaType.BOOLEAN, "boolean": SchemaType.INT8,
        "string": SchemaType.INT32, "bigdecimal": SchemaType.STRING, "date": SchemaType.STRING,
        "optional": SchemaType.INT32, "timestamp": SchemaType.INT64, "bytes": SchemaType.STRING,
        "byteArray": SchemaType.STRING}


@pytest.mark.kafka("CastTest.castFieldsSchemaless")
def test_cast_fields_schemaless() -> None:
    value = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "float32": 32.0, "float64": -64.0, "boolean": True,
             "string": "42"}
    out = cast_value(ALL_TYPES, None, value)
    assert out.value_schema is None
    assert out.value == {"int8": 8, "int16": 16, "int32": 32, "int64": True, "float32": 32.0, "float64": True,
                         "boolean": 1, "string": 42}


@pytest.mark.kafka("CastTest.testCastVersionRetrievedFromAppInfoParser")
def test_cast_version() -> None:
    assert CastKey().version() == CastValue().version() == VERSION


def test_java_narrowing() -> None:
    assert cast_value("int8", None, 300).value == 44  # (byte) 300
    assert cast_value("int16", None, 1e12).value == -1  # (short)(int) 1e12 saturates to MAX_INT first
    assert cast_value("boolean", None, 0.5).value is False  # Number.longValue() == 0
    with pytest.raises(DataException, match="out of range"):
        cast_value("int8", None, "300")
