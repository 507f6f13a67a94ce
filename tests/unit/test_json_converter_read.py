"""JsonConverter.toConnectData: Kafka's JsonConverterTest, the `...ToConnect` cases (each test names its case)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from pyconnect.api.converter import SchemaAndValue
from pyconnect.api.data import (
    BOOLEAN_SCHEMA,
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
    SchemaBuilder,
    SchemaType,
    Struct,
    decimal_builder,
)
from pyconnect.api.numbers import to_float32
from pyconnect.converters.builtin import JsonConverter
from pyconnect.converters.json_converter import ENVELOPE_REQUIRED

TOPIC = "topic"


def read(text: str | bytes | None, **configs: str) -> SchemaAndValue:
    converter = JsonConverter()
    converter.configure(configs, False)
    data = text.encode() if isinstance(text, str) else text
    return converter.deserializer()(TOPIC, data)


def test_schema_metadata() -> None:
    """JsonConverterTest.testConnectSchemaMetadataTranslation."""
    assert read('{"schema": {"type": "boolean"}, "payload": true}') == SchemaAndValue(BOOLEAN_SCHEMA, True)
    assert read('{"schema": {"type": "boolean", "optional": true}, "payload": null}') == \
        SchemaAndValue(OPTIONAL_BOOLEAN_SCHEMA, None)
    assert read('{"schema": {"type": "boolean", "default": true}, "payload": null}') == \
        SchemaAndValue(SchemaBuilder(SchemaType.BOOLEAN).default_value(True).build(), True)
    expected = (SchemaBuilder(SchemaType.BOOLEAN).required().name("bool").version(2).doc("the documentation")
                .parameters({"foo": "bar"}).build())
    assert read('{"schema": {"type": "boolean", "optional": false, "name": "bool", "version": 2, '
                '"doc": "the documentation", "parameters": {"foo": "bar"}}, "payload": true}') == \
        SchemaAndValue(expected, True)


@pytest.mark.parametrize(("type_name", "payload", "schema", "value"), [
    ("boolean", "true", BOOLEAN_SCHEMA, True),            # booleanToConnect
    ("boolean", "false", BOOLEAN_SCHEMA, False),          # booleanToConnect
    ("int8", "12", INT8_SCHEMA, 12),                      # byteToConnect
    ("int16", "12", INT16_SCHEMA, 12),                    # shortToConnect
    ("int32", "12", INT32_SCHEMA, 12),                    # intToConnect
    ("int64", "12", INT64_SCHEMA, 12),                    # longToConnect
    ("int64", "4398046511104", INT64_SCHEMA, 4398046511104),  # longToConnect
    ("float", "12.34", FLOAT32_SCHEMA, to_float32(12.34)),    # floatToConnect
    ("double", "12.34", FLOAT64_SCHEMA, 12.34),           # doubleToConnect
    ("string", '"foo-bar-baz"', STRING_SCHEMA, "foo-bar-baz"),  # stringToConnect
])
def test_primitives_to_connect(type_name: str, payload: str, schema: object, value: object) -> None:
    """JsonConverterTest.booleanToConnect, byteToConnect, shortToConnect, intToConnect, longToConnect,
    floatToConnect, doubleToConnect, stringToConnect."""
    result = read(f'{{"schema": {{"type": "{type_name}"}}, "payload": {payload}}}')
    assert result == SchemaAndValue(schema, value)  # type: ignore[arg-type]
    assert type(result.value) is type(value)


def test_bytes_to_connect() -> None:
    """JsonConverterTest.bytesToConnect."""
    assert read('{"schema": {"type": "bytes"}, "payload": "dGVzdC1zdHJpbmc="}').value == b"test-string"


def test_array_to_connect() -> None:
    """JsonConverterTest.arrayToConnect."""
    result = read('{"schema": {"type": "array", "items": {"type": "int32"}}, "payload": [1, 2, 3]}')
    assert result == SchemaAndValue(SchemaBuilder.array(INT32_SCHEMA).build(), [1, 2, 3])


def test_map_to_connect_string_keys() -> None:
    """JsonConverterTest.mapToConnectStringKeys."""
    result = read('{"schema": {"type": "map", "keys": {"type": "string"}, "values": {"type": "int32"}}, '
                  '"payload": {"key1": 12, "key2": 15}}')
    assert result == SchemaAndValue(SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build(), {"key1": 12, "key2": 15})


def test_map_to_connect_non_string_keys() -> None:
    """JsonConverterTest.mapToConnectNonStringKeys."""
    result = read('{"schema": {"type": "map", "keys": {"type": "int32"}, "values": {"type": "int32"}}, '
                  '"payload": [[1, 12], [2, 15]]}')
    assert result == SchemaAndValue(SchemaBuilder.map(INT32_SCHEMA, INT32_SCHEMA).build(), {1: 12, 2: 15})


def test_struct_to_connect() -> None:
    """JsonConverterTest.structToConnect."""
    result = read('{"schema": {"type": "struct", "fields": [{"field": "field1", "type": "boolean"}, '
                  '{"field": "field2", "type": "string"}]}, "payload": {"field1": true, "field2": "string"}}')
    schema = SchemaBuilder.struct().field("field1", BOOLEAN_SCHEMA).field("field2", STRING_SCHEMA).build()
    assert result == SchemaAndValue(schema, Struct(schema).put("field1", True).put("field2", "string"))


def test_struct_with_optional_field_to_connect() -> None:
    """JsonConverterTest.structWithOptionalFieldToConnect: a missing optional field is null."""
    result = read('{"schema": {"type": "struct", "fields": [{"field": "optional", "type": "string", '
                  '"optional": true}, {"field": "required", "type": "string"}]}, "payload": {"required": "required"}}')
    assert result.value.get("optional") is None
    assert result.value.get("required") == "required"


def test_null_to_connect() -> None:
    """JsonConverterTest.nullToConnect: a tombstone reads as SchemaAndValue.NULL (Kafka 2.x+)."""
    assert read(None) == SchemaAndValue(None, None)
    assert read(None, **{"schemas.enable": "false"}) == SchemaAndValue(None, None)


def test_null_schema_primitive_to_connect() -> None:
    """JsonConverterTest.nullSchemaPrimitiveToConnect."""
    assert read('{"schema": null, "payload": null}') == SchemaAndValue(None, None)
    assert read('{"schema": null, "payload": true}') == SchemaAndValue(None, True)
    assert read('{"schema": null, "payload": 12}') == SchemaAndValue(None, 12)
    assert read('{"schema": null, "payload": 12.24}') == SchemaAndValue(None, 12.24)
    assert read('{"schema": null, "payload": "a string"}') == SchemaAndValue(None, "a string")
    assert read('{"schema": null, "payload": [1, "2", 3]}') == SchemaAndValue(None, [1, "2", 3])
    assert read('{"schema": null, "payload": {"field1": 1, "field2": 2}}') == \
        SchemaAndValue(None, {"field1": 1, "field2": 2})


def test_decimal_to_connect() -> None:
    """JsonConverterTest.decimalToConnect: base64 of the two's complement unscaled value."""
    result = read('{"schema": {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, '
                  '"parameters": {"scale": "2"}}, "payload": "AJw="}')
    assert result.schema == decimal_builder(2).build()
    assert result.value == Decimal("1.56") and result.value.as_tuple().exponent == -2


@pytest.mark.parametrize("payload", ["1.56", "1.560"])
def test_decimal_to_connect_numeric(payload: str) -> None:
    """JsonConverterTest.decimalToConnectWithNumeric: a number keeps its exact digits."""
    result = read('{"schema": {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, '
                  f'"parameters": {{"scale": "2"}}}}, "payload": {payload}}}')
    assert str(result.value) == payload


def test_decimal_with_negative_unscaled_and_in_struct() -> None:
    """JsonConverterTest.highPrecisionNumericDecimalToConnect / decimalOfStruct: exact digits nested too."""
    result = read('{"schema": {"type": "struct", "fields": [{"field": "d", "type": "bytes", "name": '
                  '"org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "17"}}, {"field": "f", '
                  '"type": "double"}]}, "payload": {"d": 1.23456789123456789, "f": 0.5}}')
    assert result.value.get("d") == Decimal("1.23456789123456789")
    assert result.value.get("f") == 0.5 and isinstance(result.value.get("f"), float)
    assert read('{"schema": {"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", '
                '"parameters": {"scale": "2"}}, "payload": "/2Q="}').value == Decimal("-1.56")


def test_date_time_timestamp_to_connect() -> None:
    """JsonConverterTest.dateToConnect, timeToConnect, timestampToConnect."""
    date = read('{"schema": {"type": "int32", "name": "org.apache.kafka.connect.data.Date", "version": 1}, '
                '"payload": 10000}')
    assert date == SchemaAndValue(DATE_SCHEMA, dt.date(1970, 1, 1) + dt.timedelta(days=10000))
    time = read('{"schema": {"type": "int32", "name": "org.apache.kafka.connect.data.Time", "version": 1}, '
                '"payload": 14400000}')
    assert time == SchemaAndValue(TIME_SCHEMA, dt.time(4, 0))
    stamp = read('{"schema": {"type": "int64", "name": "org.apache.kafka.connect.data.Timestamp", "version": 1}, '
                 '"payload": 4000000000}')
    assert stamp == SchemaAndValue(TIMESTAMP_SCHEMA, dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
                                   + dt.timedelta(milliseconds=4_000_000_000))


def test_optional_and_default_values_to_connect() -> None:
    """JsonConverterTest.dateToConnectOptional, dateToConnectWithDefaultValue, ...OptionalWithDefaultValue
    (and the same for time and timestamp), plus replace.null.with.default=false (KIP-581)."""
    optional = '{"schema": {"type": "int32", "name": "org.apache.kafka.connect.data.Date", "optional": true}, ' \
               '"payload": null}'
    assert read(optional).value is None
    with_default = '{"schema": {"type": "int32", "name": "org.apache.kafka.connect.data.Date", "default": 0, ' \
                   '"optional": true}, "payload": null}'
    assert read(with_default).value == dt.date(1970, 1, 1)
    assert read(with_default, **{"replace.null.with.default": "false"}).value is None
    assert read(with_default.replace("null}", "10000}")).value == dt.date(1997, 5, 19)


def test_struct_field_default_replaces_null() -> None:
    """JsonConverterTest.testToConnectNullValueWithDefault... (KIP-581 replace.null.with.default)."""
    doc = ('{"schema": {"type": "struct", "fields": [{"field": "f", "type": "int32", "optional": true, '
           '"default": 42}]}, "payload": {"f": null}}')
    assert read(doc).value.get_without_default("f") == 42
    assert read(doc, **{"replace.null.with.default": "false"}).value.get_without_default("f") is None


def test_no_schema_to_connect() -> None:
    """JsonConverterTest.noSchemaToConnect: schemas.enable=false reads plain JSON."""
    assert read("true", **{"schemas.enable": "false"}) == SchemaAndValue(None, True)
    assert read('{"a": [1, 2.5, {"b": null}]}', **{"schemas.enable": "false"}) == \
        SchemaAndValue(None, {"a": [1, 2.5, {"b": None}]})


@pytest.mark.parametrize("text", ['{"a": 1}', '{"schema": null}', '{"schema": null, "payload": 1, "x": 2}', "[]",
                                  "1", '"s"', "null"])
def test_schemas_enable_requires_envelope(text: str) -> None:
    """JsonConverterTest.testJsonSchemaEnvelopeMissing... : the "schemas.enable requires" message."""
    with pytest.raises(DataException) as err:
        read(text)
    assert str(err.value) == ENVELOPE_REQUIRED


@pytest.mark.parametrize("text", [b"{", b"not json", b"\xff", b""])
def test_malformed_json_is_a_data_exception(text: bytes) -> None:
    """JsonConverter.toConnectData wraps Jackson's SerializationException in a DataException."""
    for enabled in ("true", "false"):
        with pytest.raises(DataException, match="Converting byte\\[\\] to Kafka Connect data failed due to "
                                                "serialization error: "):
            read(text, **{"schemas.enable": enabled})


@pytest.mark.parametrize(("schema", "payload", "message"), [
    ('{"type": "int8"}', "1000", "INT8"),
    ('{"type": "int32"}', '"x"', "INT32"),
    ('{"type": "boolean"}', "null", "Invalid null value for required BOOLEAN field"),
    ('{"type": "map", "keys": {"type": "string"}, "values": {"type": "int32"}}', "[]",
     "Maps with string fields should be encoded as JSON objects, but found ARRAY"),
    ('{"type": "map", "keys": {"type": "int32"}, "values": {"type": "int32"}}', "[[1]]",
     "Found invalid map entry, expected length 2 but found :1"),
    ('{"type": "struct", "fields": []}', "1", "Structs should be encoded as JSON objects, but found NUMBER"),
    ('{"type": "bytes"}', '"%%%"', "Invalid bytes field"),
    ('{"type": "nope"}', "1", "Unknown schema type: nope"),
    ('{"optional": true}', "1", "Schema must contain 'type' field"),
    ('{"type": "array"}', "[]", "Array schema did not specify the element type"),
    ('{"type": "struct", "fields": [{"type": "int8"}]}', "{}", "Struct schema's field name not specified properly"),
    ('{"type": "int32", "parameters": {"a": 1}}', "1", "Schema parameters must have string values."),
])
def test_invalid_data_is_a_data_exception(schema: str, payload: str, message: str) -> None:
    """JsonConverter's DataExceptions for payloads and schemas it cannot read (messages as in Java)."""
    with pytest.raises(DataException, match=message.replace("[", "\\[").replace("(", "\\(")):
        read(f'{{"schema": {schema}, "payload": {payload}}}')


def test_schema_cache() -> None:
    """JsonConverterTest.testCacheSchemaToConnectConversion: equal JSON schemas share an entry."""
    converter = JsonConverter()
    converter.configure({"schemas.cache.size": "2"}, False)
    read_ = converter.deserializer()
    read_(TOPIC, b'{"schema": {"type": "boolean"}, "payload": true}')
    read_(TOPIC, b'{"schema": {"type": "boolean"}, "payload": false}')
    assert len(converter.schemas.to_connect_cache) == 1
    read_(TOPIC, b'{"schema": {"type": "boolean", "optional": true}, "payload": true}')
    read_(TOPIC, b'{"schema": {"type": "boolean", "optional": false}, "payload": true}')
    assert len(converter.schemas.to_connect_cache) == 2  # bounded by schemas.cache.size
