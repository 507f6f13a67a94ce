"""JsonConverter.fromConnectData with Connect schemas: Kafka's JsonConverterTest, the `...ToJson` cases
(each test names its case), and a hypothesis round trip through toConnectData."""

from __future__ import annotations

import base64
import datetime as dt
from decimal import Decimal
from typing import Any

import orjson
import pytest

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
    OPTIONAL_BOOLEAN_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
    DataException,
    Schema,
    SchemaBuilder,
    SchemaType,
    Struct,
    decimal_builder,
)
from pyconnect.converters import converter_for, schema_serializer_for
from pyconnect.converters.builtin import JsonConverter

TOPIC = "topic"
JSON = "org.apache.kafka.connect.json.JsonConverter"


def write(schema: Schema | None, value: Any, **configs: str) -> Any:
    """The parsed JSON fromConnectData writes (None for no bytes)."""
    out = schema_serializer_for(JSON, configs, False)(TOPIC, schema, value)
    return None if out is None else orjson.loads(out)


def raw(schema: Schema | None, value: Any, **configs: str) -> bytes | None:
    return schema_serializer_for(JSON, configs, False)(TOPIC, schema, value)


def test_schema_metadata_to_json() -> None:
    """JsonConverterTest.testJsonSchemaMetadataTranslation."""
    assert write(BOOLEAN_SCHEMA, True) == {"schema": {"type": "boolean", "optional": False}, "payload": True}
    assert write(OPTIONAL_BOOLEAN_SCHEMA, None) == {"schema": {"type": "boolean", "optional": True}, "payload": None}
    assert write(SchemaBuilder(SchemaType.BOOLEAN).default_value(True).build(), True)["schema"] == \
        {"type": "boolean", "optional": False, "default": True}
    schema = (SchemaBuilder(SchemaType.BOOLEAN).required().name("bool").version(3).doc("the documentation")
              .parameters({"foo": "bar"}).build())
    assert raw(schema, True) == (b'{"schema":{"type":"boolean","optional":false,"name":"bool","version":3,'
                                 b'"doc":"the documentation","parameters":{"foo":"bar"}},"payload":true}')


@pytest.mark.parametrize(("schema", "value", "type_name", "text"), [
    (BOOLEAN_SCHEMA, True, "boolean", b"true"),       # booleanToJson
    (INT8_SCHEMA, 12, "int8", b"12"),                 # byteToJson
    (INT16_SCHEMA, 12, "int16", b"12"),               # shortToJson
    (INT32_SCHEMA, 12, "int32", b"12"),               # intToJson
    (INT64_SCHEMA, 4398046511104, "int64", b"4398046511104"),  # longToJson
    (FLOAT32_SCHEMA, 12.34, "float", b"12.34"),       # floatToJson: Float.toString
    (FLOAT64_SCHEMA, 12.34, "double", b"12.34"),      # doubleToJson
    (FLOAT64_SCHEMA, 1e10, "double", b"1.0E10"),      # Double.toString's layout
    (STRING_SCHEMA, "test-string", "string", b'"test-string"'),  # stringToJson
    (BYTES_SCHEMA, b"test-string", "bytes", b'"dGVzdC1zdHJpbmc="'),  # bytesToJson
])
def test_primitives_to_json(schema: Schema, value: Any, type_name: str, text: bytes) -> None:
    """JsonConverterTest.booleanToJson, byteToJson, shortToJson, intToJson, longToJson, floatToJson,
    doubleToJson, stringToJson, bytesToJson."""
    assert raw(schema, value) == b'{"schema":{"type":"' + type_name.encode() + b'","optional":false},"payload":' \
        + text + b"}"


def test_array_to_json() -> None:
    """JsonConverterTest.arrayToJson."""
    assert write(SchemaBuilder.array(INT32_SCHEMA).build(), [1, 2, 3]) == {
        "schema": {"type": "array", "items": {"type": "int32", "optional": False}, "optional": False},
        "payload": [1, 2, 3]}


def test_map_to_json_string_keys() -> None:
    """JsonConverterTest.mapToJsonStringKeys."""
    assert write(SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build(), {"key1": 12, "key2": 15}) == {
        "schema": {"type": "map", "keys": {"type": "string", "optional": False},
                   "values": {"type": "int32", "optional": False}, "optional": False},
        "payload": {"key1": 12, "key2": 15}}


def test_map_to_json_non_string_keys() -> None:
    """JsonConverterTest.mapToJsonNonStringKeys: an array of [key, value] pairs."""
    doc = write(SchemaBuilder.map(INT32_SCHEMA, INT32_SCHEMA).build(), {1: 12, 2: 15})
    assert doc["schema"]["keys"] == {"type": "int32", "optional": False}
    assert sorted(doc["payload"]) == [[1, 12], [2, 15]]


def test_struct_to_json() -> None:
    """JsonConverterTest.structToJson: fields carry "field" names, in order."""
    schema = (SchemaBuilder.struct().field("field1", BOOLEAN_SCHEMA).field("field2", STRING_SCHEMA)
              .field("field3", STRING_SCHEMA).field("field4", BOOLEAN_SCHEMA).build())
    value = Struct(schema).put("field1", True).put("field2", "string2").put("field3", "string3").put("field4", False)
    assert raw(schema, value) == (
        b'{"schema":{"type":"struct","fields":[{"type":"boolean","optional":false,"field":"field1"},'
        b'{"type":"string","optional":false,"field":"field2"},{"type":"string","optional":false,"field":"field3"},'
        b'{"type":"boolean","optional":false,"field":"field4"}],"optional":false},'
        b'"payload":{"field1":true,"field2":"string2","field3":"string3","field4":false}}')


def test_struct_schema_mismatch() -> None:
    """JsonConverterTest.structSchemaIdentical's converse: a Struct of another schema is refused."""
    schema = SchemaBuilder.struct().field("a", INT32_SCHEMA).build()
    other = SchemaBuilder.struct().field("a", INT64_SCHEMA).build()
    with pytest.raises(DataException, match="Mismatching schema"):
        raw(schema, Struct(other).put("a", 1))


def test_decimal_to_json() -> None:
    """JsonConverterTest.decimalToJson and decimalToNumericJson (decimal.format=NUMERIC)."""
    doc = write(decimal_builder(2).build(), Decimal("1.56"))
    assert doc["schema"] == {"type": "bytes", "optional": False, "name": "org.apache.kafka.connect.data.Decimal",
                             "version": 1, "parameters": {"scale": "2"}}
    assert base64.b64decode(doc["payload"]) == bytes([0, 156])
    numeric = raw(decimal_builder(2).build(), Decimal("1.56"), **{"decimal.format": "NUMERIC"})
    assert numeric is not None and numeric.endswith(b'"payload":1.56}')
    with pytest.raises(DataException, match="mismatching scale"):
        raw(decimal_builder(2).build(), Decimal("1.5"))


def test_date_time_timestamp_to_json() -> None:
    """JsonConverterTest.dateToJson, timeToJson, timestampToJson."""
    assert write(DATE_SCHEMA, dt.date(1970, 1, 1) + dt.timedelta(days=10000))["payload"] == 10000
    assert write(TIME_SCHEMA, dt.time(4, 0))["payload"] == 14400000
    stamp = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(milliseconds=4_000_000_000)
    assert write(TIMESTAMP_SCHEMA, stamp) == {
        "schema": {"type": "int64", "optional": False, "name": "org.apache.kafka.connect.data.Timestamp",
                   "version": 1},
        "payload": 4000000000}


def test_optional_and_default_to_json() -> None:
    """JsonConverterTest.dateToJsonOptional, dateToJsonWithDefaultValue, dateToJsonOptionalWithDefaultValue,
    and replace.null.with.default=false (KIP-581): the default stands in for a null unless disabled."""
    optional = SchemaBuilder(SchemaType.INT32).name(DATE_SCHEMA.name).version(1).optional().build()
    assert write(optional, None)["payload"] is None
    with_default = (SchemaBuilder(SchemaType.INT32).name(DATE_SCHEMA.name).version(1).optional()
                    .default_value(dt.date(1970, 1, 1)).build())
    assert write(with_default, None) == {"schema": {"type": "int32", "optional": True, "name": DATE_SCHEMA.name,
                                                    "version": 1, "default": 0}, "payload": 0}
    assert write(with_default, None, **{"replace.null.with.default": "false"})["payload"] is None
    with pytest.raises(DataException, match="null value for field that is required"):
        raw(INT32_SCHEMA, None)


def test_struct_field_defaults_to_json() -> None:
    """JsonConverterTest.testStructWithDefaultValue... (KIP-581): struct fields honour the setting too."""
    field = SchemaBuilder(SchemaType.INT32).optional().default_value(42).build()
    schema = SchemaBuilder.struct().field("f", field).build()
    assert write(schema, Struct(schema))["payload"] == {"f": 42}
    assert write(schema, Struct(schema), **{"replace.null.with.default": "false"})["payload"] == {"f": None}


def test_null_schema_to_json() -> None:
    """JsonConverterTest.nullSchemaAndPrimitiveToJson, nullSchemaAndArrayToJson, nullSchemaAndMapToJson,
    nullSchemaAndMapNonStringKeysToJson: a None schema is the schemaless path of serializer()."""
    assert write(None, True) == {"schema": None, "payload": True}
    assert write(None, [1, "string", True]) == {"schema": None, "payload": [1, "string", True]}
    assert write(None, {"key1": 12, "key2": "string", "key3": True})["payload"] == \
        {"key1": 12, "key2": "string", "key3": True}
    assert sorted(map(str, write(None, {"string": 12, 52: "string", False: True})["payload"])) == \
        sorted(map(str, [["string", 12], [52, "string"], [False, True]]))
    assert raw(None, {"a": 1}) == converter_for(JSON, {}, False)({"a": 1})


def test_tombstones() -> None:
    """JsonConverterTest.testConvertNullValue / nullSchemaAndNullValueToJson: no schema and no value is no bytes."""
    assert raw(None, None) is None
    assert raw(None, None, **{"schemas.enable": "false"}) is None
    assert raw(OPTIONAL_BOOLEAN_SCHEMA, None, **{"schemas.enable": "false"}) == b"null"


def test_no_schema_to_json() -> None:
    """JsonConverterTest.noSchemaToJson."""
    assert raw(None, True, **{"schemas.enable": "false"}) == b"true"
    assert raw(INT32_SCHEMA, 5, **{"schemas.enable": "false"}) == b"5"


@pytest.mark.parametrize(("schema", "value"), [
    (FLOAT64_SCHEMA, True), (INT8_SCHEMA, 200), (INT32_SCHEMA, "1"), (STRING_SCHEMA, 1), (BYTES_SCHEMA, "x"),
    (BOOLEAN_SCHEMA, 1), (SchemaBuilder.array(INT8_SCHEMA).build(), [1, "x"]), (DATE_SCHEMA, 5),
    (decimal_builder(0).build(), 5), (SchemaBuilder.map(STRING_SCHEMA, INT8_SCHEMA).build(), [1]),
])
def test_mismatch_schema_json(schema: Schema, value: Any) -> None:
    """JsonConverterTest.mismatchSchemaJson: a value that does not fit its schema is a DataException."""
    with pytest.raises(DataException):
        raw(schema, value)


def test_schema_cache_to_json() -> None:
    """JsonConverterTest.testCacheSchemaToJsonConversion: equal schemas share one entry."""
    converter = JsonConverter()
    converter.configure({}, False)
    write_ = converter.schema_serializer()
    write_(TOPIC, SchemaBuilder(SchemaType.BOOLEAN).build(), True)
    write_(TOPIC, SchemaBuilder(SchemaType.BOOLEAN).build(), True)
    assert len(converter.schemas.to_json_cache) == 1
    write_(TOPIC, SchemaBuilder(SchemaType.BOOLEAN).optional().build(), True)
    assert len(converter.schemas.to_json_cache) == 2


@pytest.mark.parametrize(("key", "value"), [("schemas.enable", "maybe"), ("schemas.cache.size", "-1"),
                                            ("decimal.format", "HEX"), ("replace.null.with.default", "x")])
def test_bad_settings_are_config_errors(key: str, value: str) -> None:
    """JsonConverterConfigTest: every setting is parsed and checked."""
    with pytest.raises(ValueError, match=key):
        JsonConverter().configure({key: value}, False)


def test_header_converter_is_the_same_json() -> None:
    """JsonConverter.fromConnectHeader / toConnectHeader are fromConnectData / toConnectData."""
    converter = JsonConverter()
    converter.configure({"converter.type": "header"})
    data = converter.to_bytes(TOPIC, "h", INT16_SCHEMA, 7)
    assert data == b'{"schema":{"type":"int16","optional":false},"payload":7}'
    assert converter.to_connect(TOPIC, "h", data) == SchemaAndValue(INT16_SCHEMA, 7)


def test_schemas_with_any_elements_write_and_read() -> None:
    """Values' schemas (a map or array whose element schema is null, as SimpleHeaderConverter reads mixed
    values) write like Java's null-schema elements and read back (JsonConverter.asJsonSchema(null) is null)."""
    schema = SchemaBuilder.map(STRING_SCHEMA, None).build()
    data = raw(schema, {"foo": "bar", "baz": 3456})
    assert data == (b'{"schema":{"type":"map","keys":{"type":"string","optional":false},"values":null,'
                    b'"optional":false},"payload":{"foo":"bar","baz":3456}}')
    converter = JsonConverter()
    assert converter.to_connect_data(TOPIC, data) == SchemaAndValue(schema, {"foo": "bar", "baz": 3456})
    assert write(SchemaBuilder.array(None).build(), [1, "a"])["payload"] == [1, "a"]
