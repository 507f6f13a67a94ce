"""Ports of Kafka's InsertFieldTest and ReplaceFieldTest (connect/transforms)."""

from __future__ import annotations

from typing import Any

import pytest

from pyconnect.api.data import (
    BOOLEAN_SCHEMA,
    INT32_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    DataException,
    SchemaBuilder,
    Struct,
    timestamp_builder,
    timestamp_from_millis,
)
from pyconnect.transforms import ConnectRecord
from pyconnect.transforms.insert_field import InsertFieldKey, InsertFieldValue
from pyconnect.transforms.replace_field import ReplaceFieldKey, ReplaceFieldValue
from pyconnect.transforms.spi import VERSION

ALL_FIELDS = {"topic.field": "topic_field!", "partition.field": "partition_field",
              "timestamp.field": "timestamp_field?", "static.field": "instance_id", "static.value": "my-instance-id"}


def simple_schema(field_schema: Any = OPTIONAL_INT64_SCHEMA, name: str = "magic") -> Any:
    return SchemaBuilder.struct().name("name").version(1).doc("doc").field(name, field_schema).build()


@pytest.mark.kafka("InsertFieldTest.topLevelStructRequired")
def test_top_level_struct_required() -> None:
    xform = InsertFieldValue()
    xform.configure({"topic.field": "topic_field"})
    with pytest.raises(DataException):
        xform.apply(ConnectRecord("", 0, value_schema=INT32_SCHEMA, value=42))


@pytest.mark.kafka("InsertFieldTest.copySchemaAndInsertConfiguredFields")
def test_copy_schema_and_insert_configured_fields() -> None:
    xform = InsertFieldValue()
    xform.configure(ALL_FIELDS)
    schema = simple_schema()
    record = ConnectRecord("test", 0, value_schema=schema, value=Struct(schema).put("magic", 42), timestamp=789)
    out = xform.apply(record)
    assert out is not None and out.value_schema is not None
    assert (out.value_schema.name, out.value_schema.version, out.value_schema.doc) == ("name", 1, "doc")
    fields = {f.name: f.schema for f in out.value_schema.fields}
    assert fields["magic"] == OPTIONAL_INT64_SCHEMA and out.value.get("magic") == 42
    assert fields["topic_field"] == STRING_SCHEMA and out.value.get("topic_field") == "test"
    assert fields["partition_field"] == OPTIONAL_INT32_SCHEMA and out.value.get("partition_field") == 0
    assert fields["timestamp_field"] == timestamp_builder().optional().build()
    assert out.value.get("timestamp_field") == timestamp_from_millis(789)
    assert fields["instance_id"] == OPTIONAL_STRING_SCHEMA and out.value.get("instance_id") == "my-instance-id"
    again = xform.apply(ConnectRecord("test", 1, value_schema=schema, value=Struct(schema)))
    assert again is not None and again.value_schema is out.value_schema  # the schema cache


@pytest.mark.kafka("InsertFieldTest.schemalessInsertConfiguredFields")
def test_schemaless_insert_configured_fields() -> None:
    xform = InsertFieldValue()
    xform.configure(ALL_FIELDS)
    out = xform.apply(ConnectRecord("test", 0, value={"magic": 42}, timestamp=123))
    assert out is not None
    assert out.value == {"magic": 42, "topic_field": "test", "partition_field": 0, "timestamp_field": 123,
                         "instance_id": "my-instance-id"}


@pytest.mark.kafka("InsertFieldTest.insertConfiguredFieldsIntoTombstoneEventWithoutSchemaLeavesValueUnchanged")
def test_tombstone_without_schema_unchanged() -> None:
    xform = InsertFieldValue()
    xform.configure(ALL_FIELDS)
    out = xform.apply(ConnectRecord("test", 0))
    assert out is not None and out.value is None and out.value_schema is None


@pytest.mark.kafka("InsertFieldTest.insertConfiguredFieldsIntoTombstoneEventWithSchemaLeavesValueUnchanged")
def test_tombstone_with_schema_unchanged() -> None:
    xform = InsertFieldValue()
    xform.configure(ALL_FIELDS)
    schema = simple_schema()
    out = xform.apply(ConnectRecord("test", 0, value_schema=schema))
    assert out is not None and out.value is None and out.value_schema == schema


@pytest.mark.kafka("InsertFieldTest.insertKeyFieldsIntoTombstoneEvent")
def test_insert_key_fields_into_tombstone_event() -> None:
    xform = InsertFieldKey()
    xform.configure(ALL_FIELDS)
    out = xform.apply(ConnectRecord("test", 0, key={"magic": 42}))
    assert out is not None and out.value is None
    assert out.key == {"magic": 42, "topic_field": "test", "partition_field": 0, "timestamp_field": None,
                       "instance_id": "my-instance-id"}


@pytest.mark.kafka("InsertFieldTest.insertIntoNullKeyLeavesRecordUnchanged")
def test_insert_into_null_key_leaves_record_unchanged() -> None:
    xform = InsertFieldKey()
    xform.configure(ALL_FIELDS)
    record = ConnectRecord("test", 0, value={"magic": 42})
    assert xform.apply(record) is record


@pytest.mark.kafka("InsertFieldTest.testInsertFieldVersionRetrievedFromAppInfoParser")
def test_insert_field_version() -> None:
    assert InsertFieldKey().version() == InsertFieldValue().version() == VERSION


@pytest.mark.kafka("InsertFieldTest.testUnsetOptionalField")
@pytest.mark.parametrize(("replace_null", "expected"), [(False, None), (True, 42)])
def test_unset_optional_field(replace_null: bool, expected: int | None) -> None:
    xform = InsertFieldValue()
    xform.configure({**ALL_FIELDS, "replace.null.with.default": replace_null})
    magic = SchemaBuilder.of(OPTIONAL_INT64_SCHEMA.type).optional().default_value(42).build()
    schema = simple_schema(magic, "magic_with_default")
    value = Struct(schema).put("magic_with_default", None)
    out = xform.apply(ConnectRecord("test", 0, value_schema=schema, value=value, timestamp=789))
    assert out is not None and out.value_schema is not None
    assert out.value_schema.field("magic_with_default").schema == magic  # type: ignore[union-attr]
    assert out.value.get_without_default("magic_with_default") == expected


def test_offset_field_needs_a_record_read_from_kafka() -> None:
    xform = InsertFieldValue()
    xform.configure({"offset.field": "offset"})
    with pytest.raises(DataException, match="Offset insertion is only supported for sink connectors"):
        xform.apply(ConnectRecord("t", 0, value={}))
    out = xform.apply(ConnectRecord("t", 0, value={}, kafka_offset=7))
    assert out is not None and out.value == {"offset": 7}


RENAMES = {"include": "abc,foo", "renames": "abc:xyz,foo:bar"}


def four_field_schema() -> Any:
    return (SchemaBuilder.struct().field("dont", STRING_SCHEMA).field("abc", INT32_SCHEMA)
            .field("foo", BOOLEAN_SCHEMA).field("etc", STRING_SCHEMA).build())


@pytest.mark.kafka("ReplaceFieldTest.tombstoneSchemaless")
def test_replace_tombstone_schemaless() -> None:
    xform = ReplaceFieldValue()
    xform.configure(RENAMES)
    out = xform.apply(ConnectRecord("test", 0, timestamp=0))
    assert out is not None and out.value is None and out.value_schema is None


@pytest.mark.kafka("ReplaceFieldTest.tombstoneWithSchema")
def test_replace_tombstone_with_schema() -> None:
    xform = ReplaceFieldValue()
    xform.configure(RENAMES)
    schema = four_field_schema()
    out = xform.apply(ConnectRecord("test", 0, value_schema=schema, timestamp=0))
    assert out is not None and out.value is None and out.value_schema == schema


@pytest.mark.kafka("ReplaceFieldTest.schemaless")
def test_replace_schemaless() -> None:
    xform = ReplaceFieldValue()
    xform.configure({"exclude": "dont", "renames": "abc:xyz,foo:bar"})
    out = xform.apply(ConnectRecord("test", 0, value={"dont": "whatever", "abc": 42, "foo": True, "etc": "etc"}))
    assert out is not None and out.value == {"xyz": 42, "bar": True, "etc": "etc"}


@pytest.mark.kafka("ReplaceFieldTest.withSchema")
def test_replace_with_schema() -> None:
    xform = ReplaceFieldValue()
    xform.configure(RENAMES)
    schema = four_field_schema()
    value = Struct(schema).put("dont", "whatever").put("abc", 42).put("foo", True).put("etc", "etc")
    out = xform.apply(ConnectRecord("test", 0, value_schema=schema, value=value))
    assert out is not None
    assert len(out.value.schema.fields) == 2
    assert out.value.get("xyz") == 42 and out.value.get("bar") is True


@pytest.mark.kafka("ReplaceFieldTest.testReplaceFieldVersionRetrievedFromAppInfoParser")
def test_replace_field_version() -> None:
    assert ReplaceFieldValue().version() == VERSION


def replace_null_case(xform: ReplaceFieldKey | ReplaceFieldValue, side: str, replace_null: bool) -> Any:
    """The kept field's raw value after renaming `abc`, an unset optional int with default 42."""
    xform.configure({"include": "abc", "renames": "abc:optional_with_default",
                     "replace.null.with.default": str(replace_null).lower()})
    with_default = SchemaBuilder.of(INT32_SCHEMA.type).optional().default_value(42)
    schema = SchemaBuilder.struct().field("abc", with_default).build()
    struct = Struct(schema).put("abc", None)
    out = xform.apply(ConnectRecord("test", 0, **{f"{side}_schema": schema, side: struct}))
    assert out is not None
    updated = getattr(out, side)
    assert len(updated.schema.fields) == 1
    return updated.get_without_default("optional_with_default")


@pytest.mark.kafka("ReplaceFieldTest.testReplaceNullWithDefaultConfigOnValue")
@pytest.mark.parametrize(("replace_null", "expected"), [(False, None), (True, 42)])
def test_replace_null_with_default_on_value(replace_null: bool, expected: int | None) -> None:
    assert replace_null_case(ReplaceFieldValue(), "value", replace_null) == expected


@pytest.mark.kafka("ReplaceFieldTest.testReplaceNullWithDefaultConfigOnKey")
@pytest.mark.parametrize(("replace_null", "expected"), [(False, None), (True, 42)])
def test_replace_null_with_default_on_key(replace_null: bool, expected: int | None) -> None:
    assert replace_null_case(ReplaceFieldKey(), "key", replace_null) == expected


def test_replace_field_rejects_a_bad_rename_with_connects_message() -> None:
    errors = ReplaceFieldValue().config_def().validate_all({"renames": "a:b:c"})["renames"].errors
    assert errors == ["Invalid value a:b:c for configuration renames: Invalid rename mapping: a:b:c"]
