"""Ports of Kafka's FlattenTest and SetSchemaMetadataTest (connect/transforms)."""

from __future__ import annotations

from typing import Any

import pytest

from pyconnect.api.data import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    STRING_SCHEMA,
    DataException,
    Schema,
    SchemaBuilder,
    SchemaType,
    Struct,
)
from pyconnect.transforms import ConnectRecord
from pyconnect.transforms.flatten import FlattenKey, FlattenValue
from pyconnect.transforms.registry import TRANSFORM_ALIASES
from pyconnect.transforms.set_schema_metadata import SetSchemaMetadataValue, update_schema_in

SUPPORTED = {"int8": (INT8_SCHEMA, 8), "int16": (INT16_SCHEMA, 16), "int32": (INT32_SCHEMA, 32),
             "int64": (INT64_SCHEMA, 64), "float32": (FLOAT32_SCHEMA, 32.0), "float64": (FLOAT64_SCHEMA, 64.0),
             "boolean": (BOOLEAN_SCHEMA, True), "string": (STRING_SCHEMA, "stringy"), "bytes": (BYTES_SCHEMA, b"bytes")}


def flat_value(config: dict[str, Any], schema: Schema | None, value: Any) -> ConnectRecord:
    xform = FlattenValue()
    xform.configure(config)
    out = xform.apply(ConnectRecord("topic", 0, value_schema=schema, value=value))
    assert out is not None
    return out


@pytest.mark.kafka("FlattenTest.topLevelStructRequired")
def test_top_level_struct_required() -> None:
    """FlattenTest.topLevelStructRequired: an INT32 value with a schema is refused."""
    with pytest.raises(DataException):
        flat_value({}, INT32_SCHEMA, 42)


@pytest.mark.kafka("FlattenTest.topLevelMapRequired")
def test_top_level_map_required() -> None:
    """FlattenTest.topLevelMapRequired: a schemaless non-map is refused."""
    with pytest.raises(DataException, match="Only Map objects supported"):
        flat_value({}, None, 42)


@pytest.mark.kafka("FlattenTest.testNestedStruct")
def test_nested_struct() -> None:
    """FlattenTest.testNestedStruct: two levels of structs flatten to `A.B.<field>`, every type kept."""
    builder = SchemaBuilder.struct()
    for name, (schema, _) in SUPPORTED.items():
        builder.field(name, schema)
    supported = builder.build()
    one = SchemaBuilder.struct().field("B", supported).build()
    two = SchemaBuilder.struct().field("A", one).build()
    inner = Struct(supported)
    for name, (_, value) in SUPPORTED.items():
        inner.put(name, value)
    out = flat_value({}, two, Struct(two).put("A", Struct(one).put("B", inner)))
    assert out.value_schema is not None and out.value_schema.type is SchemaType.STRUCT
    assert len(out.value_schema.fields) == 9
    assert {name: out.value.get(f"A.B.{name}") for name in SUPPORTED} == {n: v for n, (_, v) in SUPPORTED.items()}
    assert out.value_schema.field("A.B.int8").schema == INT8_SCHEMA  # type: ignore[union-attr]


@pytest.mark.kafka("FlattenTest.testNestedMapWithDelimiter")
def test_nested_map_with_delimiter() -> None:
    """FlattenTest.testNestedMapWithDelimiter: schemaless maps with `delimiter=#`."""
    values = {n: v for n, (_, v) in SUPPORTED.items()}
    out = flat_value({"delimiter": "#"}, None, {"A": {"B": values}})
    assert out.value_schema is None
    assert out.value == {f"A#B#{n}": v for n, v in values.items()}


@pytest.mark.kafka("FlattenTest.testOptionalFieldStruct")
def test_optional_field_struct() -> None:
    """FlattenTest.testOptionalFieldStruct: a null optional leaf stays null."""
    supported = SchemaBuilder.struct().field("opt_int32", OPTIONAL_INT32_SCHEMA).build()
    one = SchemaBuilder.struct().field("B", supported).build()
    out = flat_value({}, one, Struct(one).put("B", Struct(supported).put("opt_int32", None)))
    assert out.value_schema is not None and out.value_schema.type is SchemaType.STRUCT
    assert out.value.get("B.opt_int32") is None


@pytest.mark.kafka("FlattenTest.testOptionalStruct")
def test_optional_struct() -> None:
    """FlattenTest.testOptionalStruct: a null value of an optional struct schema stays null, schema STRUCT."""
    schema = SchemaBuilder.struct().optional().field("opt_int32", OPTIONAL_INT32_SCHEMA).build()
    out = flat_value({}, schema, None)
    assert out.value_schema is not None and out.value_schema.type is SchemaType.STRUCT
    assert out.value is None


@pytest.mark.kafka("FlattenTest.testOptionalNestedStruct")
def test_optional_nested_struct() -> None:
    """FlattenTest.testOptionalNestedStruct: a null optional nested struct flattens to null fields."""
    supported = SchemaBuilder.struct().optional().field("opt_int32", OPTIONAL_INT32_SCHEMA).build()
    one = SchemaBuilder.struct().field("B", supported).build()
    out = flat_value({}, one, Struct(one).put("B", None))
    assert out.value_schema is not None and out.value_schema.type is SchemaType.STRUCT
    assert out.value.get("B.opt_int32") is None


@pytest.mark.kafka("FlattenTest.testOptionalFieldMap")
def test_optional_field_map() -> None:
    """FlattenTest.testOptionalFieldMap: a null leaf of a schemaless map stays null."""
    out = flat_value({}, None, {"B": {"opt_int32": None}})
    assert out.value_schema is None and out.value == {"B.opt_int32": None}


@pytest.mark.kafka("FlattenTest.testKey")
def test_key() -> None:
    """FlattenTest.testKey: Flatten$Key flattens the key."""
    xform = FlattenKey()
    xform.configure({})
    out = xform.apply(ConnectRecord("topic", None, key={"A": {"B": 12}}))
    assert out is not None and out.key_schema is None and out.key == {"A.B": 12}


@pytest.mark.kafka("FlattenTest.testUnsupportedTypeInMap")
def test_unsupported_type_in_map() -> None:
    """FlattenTest.testUnsupportedTypeInMap: a list in a schemaless map is refused."""
    with pytest.raises(DataException, match="for field foo"):
        flat_value({}, None, {"foo": ["bar", "baz"]})


@pytest.mark.kafka("FlattenTest.testOptionalAndDefaultValuesNested")
def test_optional_and_default_values_nested() -> None:
    """FlattenTest.testOptionalAndDefaultValuesNested: an optional parent with a default makes its
    required child optional with the parent's default for it; an optional child keeps its own default."""
    builder = SchemaBuilder.struct().optional().field("req_field", STRING_SCHEMA).field(
        "opt_field", SchemaBuilder(SchemaType.STRING).optional().default_value("child_default").build())
    default = Struct(builder.build()).put("req_field", "req_default")
    schema = builder.default_value(default).build()
    out = flat_value({}, schema, Struct(schema))
    assert out.value_schema is not None and len(out.value_schema.fields) == 2
    req = out.value_schema.field("req_field")
    opt = out.value_schema.field("opt_field")
    assert req is not None and opt is not None
    assert req.schema == SchemaBuilder(SchemaType.STRING).optional().default_value("req_default").build()
    assert opt.schema == SchemaBuilder(SchemaType.STRING).optional().default_value("child_default").build()


@pytest.mark.kafka("FlattenTest.tombstoneEventWithoutSchemaShouldPassThrough")
def test_tombstone_without_schema() -> None:
    """FlattenTest.tombstoneEventWithoutSchemaShouldPassThrough."""
    out = flat_value({}, None, None)
    assert out.value is None and out.value_schema is None


@pytest.mark.kafka("FlattenTest.tombstoneEventWithSchemaShouldPassThrough")
def test_tombstone_with_schema() -> None:
    """FlattenTest.tombstoneEventWithSchemaShouldPassThrough: the (already flat) schema is kept."""
    schema = SchemaBuilder.struct().name("name").version(1).doc("doc").field("magic", OPTIONAL_INT64_SCHEMA).build()
    out = flat_value({}, schema, None)
    assert out.value is None and out.value_schema == schema


def test_flatten_java_names() -> None:
    """The Java class names resolve to the Python transforms (as the other built-ins)."""
    assert TRANSFORM_ALIASES["org.apache.kafka.connect.transforms.Flatten$Value"] is FlattenValue
    assert TRANSFORM_ALIASES["Flatten$Key"] is FlattenKey


def metadata(config: dict[str, Any], schema: Schema, value: Any = None) -> ConnectRecord:
    xform = SetSchemaMetadataValue()
    xform.configure(config)
    out = xform.apply(ConnectRecord("", 0, value_schema=schema, value=value, timestamp=0))
    assert out is not None and out.value_schema is not None
    return out


@pytest.mark.kafka("SetSchemaMetadataTest.schemaNameUpdate")
def test_schema_name_update() -> None:
    """SetSchemaMetadataTest.schemaNameUpdate."""
    assert metadata({"schema.name": "foo"}, SchemaBuilder.struct().build()).value_schema.name == "foo"  # type: ignore[union-attr]


@pytest.mark.kafka("SetSchemaMetadataTest.schemaVersionUpdate")
def test_schema_version_update() -> None:
    """SetSchemaMetadataTest.schemaVersionUpdate: an int given as a value, not text."""
    assert metadata({"schema.version": 42}, SchemaBuilder.struct().build()).value_schema.version == 42  # type: ignore[union-attr]


@pytest.mark.kafka("SetSchemaMetadataTest.schemaNameAndVersionUpdate")
def test_schema_name_and_version_update() -> None:
    """SetSchemaMetadataTest.schemaNameAndVersionUpdate."""
    schema = metadata({"schema.name": "foo", "schema.version": "42"}, SchemaBuilder.struct().build()).value_schema
    assert schema is not None and (schema.name, schema.version) == ("foo", 42)


def assert_matching_schema(value: Struct, schema: Schema) -> None:
    assert value.schema is schema
    for field in schema.fields:
        mine = value.schema.field(field.name)
        assert mine is not None and mine.index == field.index and mine.schema is field.schema


@pytest.mark.kafka("SetSchemaMetadataTest.schemaNameAndVersionUpdateWithStruct")
def test_schema_name_and_version_update_with_struct() -> None:
    """SetSchemaMetadataTest.schemaNameAndVersionUpdateWithStruct: the struct is rebuilt on the new schema."""
    schema = SchemaBuilder.struct().name("my.orig.SchemaDefn").field("f1", STRING_SCHEMA).field(
        "f2", INT32_SCHEMA).build()
    value = Struct(schema).put("f1", "value1").put("f2", 1)
    out = metadata({"schema.name": "foo", "schema.version": "42"}, schema, value)
    assert out.value_schema is not None and (out.value_schema.name, out.value_schema.version) == ("foo", 42)
    assert_matching_schema(out.value, out.value_schema)
    assert (out.value.get("f1"), out.value.get("f2")) == ("value1", 1)


@pytest.mark.kafka("SetSchemaMetadataTest.updateSchemaOfStruct")
def test_update_schema_of_struct() -> None:
    """SetSchemaMetadataTest.updateSchemaOfStruct."""
    schema = SchemaBuilder.struct().name("my.orig.SchemaDefn").field("f1", STRING_SCHEMA).field(
        "f2", INT32_SCHEMA).build()
    new = SchemaBuilder.struct().name("my.updated.SchemaDefn").field("f1", STRING_SCHEMA).field(
        "f2", INT32_SCHEMA).build()
    assert_matching_schema(update_schema_in(Struct(schema).put("f1", "value1").put("f2", 1), new), new)


@pytest.mark.kafka("SetSchemaMetadataTest.updateSchemaOfNonStruct")
def test_update_schema_of_non_struct() -> None:
    """SetSchemaMetadataTest.updateSchemaOfNonStruct: the same object comes back."""
    value = 1 << 70
    assert update_schema_in(value, INT32_SCHEMA) is value


@pytest.mark.kafka("SetSchemaMetadataTest.updateSchemaOfNull")
def test_update_schema_of_null() -> None:
    """SetSchemaMetadataTest.updateSchemaOfNull."""
    assert update_schema_in(None, INT32_SCHEMA) is None


def test_set_schema_metadata_needs_name_or_version() -> None:
    """Connect's SetSchemaMetadata.configure: neither key set is a ConfigException."""
    from pyconnect.api.config import ConfigException
    with pytest.raises(ConfigException, match="Neither schema name nor version configured"):
        SetSchemaMetadataValue().configure({})
