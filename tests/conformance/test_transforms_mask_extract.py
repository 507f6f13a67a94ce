"""Ports of Kafka's MaskFieldTest, ExtractFieldTest, HoistFieldTest and ValueToKeyTest (connect/transforms)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from pyconnect.api.config import ConfigException
from pyconnect.api.data import (
    BOOLEAN_SCHEMA,
    DATE_SCHEMA,
    EPOCH,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
    DataException,
    SchemaBuilder,
    SchemaType,
    Struct,
    decimal_builder,
)
from pyconnect.transforms import ConnectRecord
from pyconnect.transforms.extract_field import ExtractFieldKey
from pyconnect.transforms.hoist_field import HoistFieldKey
from pyconnect.transforms.mask_field import MaskFieldValue
from pyconnect.transforms.spi import VERSION
from pyconnect.transforms.value_to_key import ValueToKey

NOW = dt.datetime.now(dt.UTC)
SCHEMA = (SchemaBuilder.struct().field("magic", INT32_SCHEMA).field("bool", BOOLEAN_SCHEMA).field("byte", INT8_SCHEMA)
          .field("short", INT16_SCHEMA).field("int", INT32_SCHEMA).field("long", INT64_SCHEMA)
          .field("float", FLOAT32_SCHEMA).field("double", FLOAT64_SCHEMA).field("string", STRING_SCHEMA)
          .field("date", DATE_SCHEMA).field("time", TIME_SCHEMA).field("timestamp", TIMESTAMP_SCHEMA)
          .field("decimal", decimal_builder(0)).field("array", SchemaBuilder.array(INT32_SCHEMA))
          .field("map", SchemaBuilder.map(STRING_SCHEMA, STRING_SCHEMA)).build())
# Schemaless Python has one int and one float type: byte/short/int/long are all int, float/double float.
VALUES: dict[str, Any] = {"magic": 42, "bool": True, "byte": 42, "short": 42, "int": 42, "long": 42,
                          "float": 42.0, "double": 42.0, "string": "55.121.20.20", "date": NOW,
                          "bigint": 42, "bigdec": Decimal("42.0"), "list": [42], "map": {"key": "value"}}


def struct_values() -> Struct:
    struct = Struct(SCHEMA)
    for name, value in {"magic": 42, "bool": True, "byte": 42, "short": 42, "int": 42, "long": 42, "float": 42.0,
                        "double": 42.0, "string": "hmm", "date": NOW.date(), "time": NOW.time(), "timestamp": NOW,
                        "decimal": Decimal(42), "array": [1, 2, 3], "map": {"what": "what"}}.items():
        struct.put(name, value)
    return struct


def masked(fields: list[str], replacement: str | None, schema: Any, value: Any) -> Any:
    xform = MaskFieldValue()
    xform.configure({"fields": fields, "replacement": replacement})
    out = xform.apply(ConnectRecord("", 0, value_schema=schema, value=value, timestamp=0))
    assert out is not None
    return out.value


@pytest.mark.kafka("MaskFieldTest.testSchemaless")
def test_mask_schemaless() -> None:
    out = masked([k for k in VALUES if k != "magic"], None, None, VALUES)
    assert out == {"magic": 42, "bool": False, "byte": 0, "short": 0, "int": 0, "long": 0, "float": 0.0,
                   "double": 0.0, "string": "", "date": EPOCH, "bigint": 0, "bigdec": Decimal(0), "list": [],
                   "map": {}}


@pytest.mark.kafka("MaskFieldTest.testWithSchema")
def test_mask_with_schema() -> None:
    out = masked([f.name for f in SCHEMA.fields if f.name != "magic"], None, SCHEMA, struct_values())
    expected = {"magic": 42, "bool": False, "byte": 0, "short": 0, "int": 0, "long": 0, "float": 0.0, "double": 0.0,
                "string": "", "date": EPOCH.date(), "time": dt.time(0), "timestamp": EPOCH, "decimal": Decimal(0),
                "array": [], "map": {}}
    assert {f.name: out.get(f) for f in SCHEMA.fields} == expected


@pytest.mark.kafka("MaskFieldTest.testSchemalessWithReplacement")
def test_mask_schemaless_with_replacement() -> None:
    for name, replacement in {"short": 123, "byte": 123, "int": 123, "long": 123, "float": 123.0, "double": 123.0,
                              "string": "123", "bigint": 123, "bigdec": Decimal("123.0")}.items():
        assert masked([name], str(replacement), None, VALUES)[name] == replacement


@pytest.mark.kafka("MaskFieldTest.testSchemalessUnsupportedReplacementType")
def test_mask_schemaless_unsupported_replacement_type() -> None:
    for fields, replacement in ((["date"], str(NOW)), (["int", "date"], str(NOW)), (["bool"], "false"),
                                (["list"], "['123']"), (["map"], "{'123': '321'}")):
        # Kafka asserts the exception class only: with two fields either may fail first.
        with pytest.raises(DataException):
            masked(fields, replacement, None, VALUES)


@pytest.mark.kafka("MaskFieldTest.testWithSchemaAndReplacement")
def test_mask_with_schema_and_replacement() -> None:
    for name, replacement in {"short": 123, "byte": 123, "int": 123, "long": 123, "float": 123.0, "double": 123.0,
                              "string": "123", "decimal": Decimal("123.0")}.items():
        assert masked([name], str(replacement), SCHEMA, struct_values()).get(name) == replacement


@pytest.mark.kafka("MaskFieldTest.testWithSchemaUnsupportedReplacementType")
def test_mask_with_schema_unsupported_replacement_type() -> None:
    for name, replacement in (("time", str(NOW)), ("timestamp", str(NOW)), ("array", "[123]")):
        with pytest.raises(DataException, match="Cannot mask value of type"):
            masked([name], replacement, SCHEMA, struct_values())


@pytest.mark.kafka("MaskFieldTest.testReplacementTypeMismatch")
def test_mask_replacement_type_mismatch() -> None:
    for fields, replacement in ((["byte"], "foo"), (["short"], "foo"), (["int"], "foo"), (["long"], "foo"),
                                (["float"], "foo"), (["double"], "foo"), (["bigint"], "foo"), (["bigdec"], "foo"),
                                (["int"], str(NOW)), (["int"], "object()"), (["string", "int"], "foo")):
        with pytest.raises(DataException):
            masked(fields, replacement, None, VALUES)


@pytest.mark.kafka("MaskFieldTest.testEmptyStringReplacementValue")
def test_mask_empty_string_replacement_value() -> None:
    with pytest.raises(ConfigException, match="String must be non-empty"):
        masked(["short"], "", None, VALUES)


@pytest.mark.kafka("MaskFieldTest.testNullListAndMapReplacementsAreMutable")
def test_mask_null_list_and_map_replacements_are_mutable() -> None:
    out = masked(["array", "map"], None, SCHEMA, struct_values())
    out.get("array").append(0)
    out.get("map")["k"] = "v"
    assert out.get("array") == [0] and out.get("map") == {"k": "v"}


@pytest.mark.kafka("MaskFieldTest.testMaskFieldReturnsVersionFromAppInfoParser")
def test_mask_field_version() -> None:
    assert MaskFieldValue().version() == VERSION


def extract(config: dict[str, str], key_schema: Any, key: Any) -> ConnectRecord:
    xform = ExtractFieldKey()
    xform.configure(config)
    out = xform.apply(ConnectRecord("test", 0, key_schema=key_schema, key=key, timestamp=0))
    xform.close()
    assert out is not None
    return out


NESTED = SchemaBuilder.struct().field("foo", INT32_SCHEMA).build()
WITH_NESTED = SchemaBuilder.struct().field("magic", NESTED).build()
MAGIC = SchemaBuilder.struct().field("magic", INT32_SCHEMA).build()


@pytest.mark.kafka("ExtractFieldTest.schemaless")
def test_extract_schemaless() -> None:
    out = extract({"field": "magic"}, None, {"magic": 42})
    assert out.key_schema is None and out.key == 42


@pytest.mark.kafka("ExtractFieldTest.schemalessAndNestedPath")
def test_extract_schemaless_nested_path() -> None:
    out = extract({"field.syntax.version": "V2", "field": "magic.foo"}, None, {"magic": {"foo": 42}})
    assert out.key_schema is None and out.key == 42


@pytest.mark.kafka("ExtractFieldTest.nullSchemaless")
def test_extract_null_schemaless() -> None:
    out = extract({"field": "magic"}, None, None)
    assert out.key_schema is None and out.key is None


@pytest.mark.kafka("ExtractFieldTest.withSchema")
def test_extract_with_schema() -> None:
    out = extract({"field": "magic"}, MAGIC, Struct(MAGIC).put("magic", 42))
    assert out.key_schema == INT32_SCHEMA and out.key == 42


@pytest.mark.kafka("ExtractFieldTest.withSchemaAndNestedPath")
def test_extract_with_schema_nested_path() -> None:
    key = Struct(WITH_NESTED).put("magic", Struct(NESTED).put("foo", 42))
    out = extract({"field.syntax.version": "V2", "field": "magic.foo"}, WITH_NESTED, key)
    assert out.key_schema == INT32_SCHEMA and out.key == 42


@pytest.mark.kafka("ExtractFieldTest.testNullWithSchema")
def test_extract_null_with_schema() -> None:
    schema = SchemaBuilder.struct().field("magic", INT32_SCHEMA).optional().build()
    out = extract({"field": "magic"}, schema, None)
    assert out.key_schema == INT32_SCHEMA and out.key is None


@pytest.mark.kafka("ExtractFieldTest.nonExistentFieldSchemalessShouldReturnNull")
def test_extract_missing_field_schemaless() -> None:
    out = extract({"field": "nonexistent"}, None, {"magic": 42})
    assert out.key_schema is None and out.key is None


@pytest.mark.kafka("ExtractFieldTest.nonExistentNestedFieldSchemalessShouldReturnNull")
def test_extract_missing_nested_field_schemaless() -> None:
    out = extract({"field": "magic.nonexistent"}, None, {"magic": {"foo": 42}})
    assert out.key_schema is None and out.key is None


@pytest.mark.kafka("ExtractFieldTest.nonExistentFieldWithSchemaShouldFail")
def test_extract_missing_field_with_schema_fails() -> None:
    with pytest.raises(ValueError, match=r"^Unknown field: SingleFieldPath\{version=V1, path=nonexistent\}$"):
        extract({"field": "nonexistent"}, MAGIC, Struct(MAGIC).put("magic", 42))


@pytest.mark.kafka("ExtractFieldTest.nonExistentNestedFieldWithSchemaShouldFail")
def test_extract_missing_nested_field_with_schema_fails() -> None:
    key = Struct(WITH_NESTED).put("magic", Struct(NESTED).put("foo", 42))
    with pytest.raises(ValueError, match=r"^Unknown field: SingleFieldPath\{version=V1, path=magic.nonexistent\}$"):
        extract({"field": "magic.nonexistent"}, WITH_NESTED, key)


@pytest.mark.kafka("ExtractFieldTest.testExtractFieldVersionRetrievedFromAppInfoParser")
def test_extract_field_version() -> None:
    assert ExtractFieldKey().version() == VERSION


def hoist(key_schema: Any, key: Any) -> ConnectRecord:
    xform = HoistFieldKey()
    xform.configure({"field": "magic"})
    out = xform.apply(ConnectRecord("test", 0, key_schema=key_schema, key=key, timestamp=0))
    assert out is not None
    return out


@pytest.mark.kafka("HoistFieldTest.schemaless")
def test_hoist_schemaless() -> None:
    out = hoist(None, 42)
    assert out.key_schema is None and out.key == {"magic": 42}


@pytest.mark.kafka("HoistFieldTest.withSchema")
def test_hoist_with_schema() -> None:
    out = hoist(INT32_SCHEMA, 42)
    assert out.key_schema is not None and out.key_schema.type is SchemaType.STRUCT
    assert out.key_schema.field("magic").schema == INT32_SCHEMA  # type: ignore[union-attr]
    assert out.key.get("magic") == 42


@pytest.mark.kafka("HoistFieldTest.testSchemalessMapIsMutable")
def test_hoist_schemaless_map_is_mutable() -> None:
    out = hoist(None, 420)
    out.key["k"] = "v"
    assert out.key == {"magic": 420, "k": "v"}


ABC = SchemaBuilder.struct().field("a", INT32_SCHEMA).field("b", INT32_SCHEMA).field("c", INT32_SCHEMA).build()


@pytest.mark.kafka("ValueToKeyTest.schemaless")
def test_value_to_key_schemaless() -> None:
    xform = ValueToKey()
    xform.configure({"fields": "a,b"})
    out = xform.apply(ConnectRecord("", 0, value={"a": 1, "b": 2, "c": 3}))
    assert out is not None and out.key_schema is None and out.key == {"a": 1, "b": 2}


@pytest.mark.kafka("ValueToKeyTest.withSchema")
def test_value_to_key_with_schema() -> None:
    xform = ValueToKey()
    xform.configure({"fields": "a,b"})
    out = xform.apply(ConnectRecord("", 0, value_schema=ABC, value=Struct(ABC).put("a", 1).put("b", 2).put("c", 3)))
    expected_schema = SchemaBuilder.struct().field("a", INT32_SCHEMA).field("b", INT32_SCHEMA).build()
    assert out is not None and out.key_schema == expected_schema
    assert out.key == Struct(expected_schema).put("a", 1).put("b", 2)


@pytest.mark.kafka("ValueToKeyTest.nonExistingField")
def test_value_to_key_non_existing_field() -> None:
    xform = ValueToKey()
    xform.configure({"fields": "not_exist"})
    schema = SchemaBuilder.struct().field("a", INT32_SCHEMA).build()
    with pytest.raises(DataException, match="^Field does not exist: not_exist$"):
        xform.apply(ConnectRecord("", 0, value_schema=schema, value=Struct(schema).put("a", 1)))
