"""Ports of Kafka's InsertHeaderTest, DropHeadersTest and HeaderFromTest (connect/transforms)."""

from __future__ import annotations

from typing import Any

import pytest

from pyconnect.api.config import ConfigException
from pyconnect.api.data import INT8_SCHEMA, STRING_SCHEMA, SchemaBuilder, Struct
from pyconnect.transforms import ConnectRecord, Headers
from pyconnect.transforms.header_from import HeaderFromKey, HeaderFromValue
from pyconnect.transforms.header_transforms import DropHeaders, InsertHeader


def record(headers: Headers) -> ConnectRecord:
    return ConnectRecord("topic", 0, None, "key", None, "value", 0, headers)


def assert_same_but_headers(original: ConnectRecord, out: ConnectRecord | None) -> ConnectRecord:
    assert out is not None
    assert out.new_record(headers=original.headers) == original
    return out


def insert(header: str | None, literal: str | None, headers: Headers) -> ConnectRecord:
    xform = InsertHeader()
    xform.configure({"header": header, "value.literal": literal})
    original = record(headers)
    return assert_same_but_headers(original, xform.apply(original))


@pytest.mark.kafka("InsertHeaderTest.insertionWithExistingOtherHeader")
def test_insertion_with_existing_other_header() -> None:
    headers = Headers().add_string("existing", "existing-value")
    out = insert("inserted", "inserted-value", headers)
    assert out.headers == headers.duplicate().add_string("inserted", "inserted-value")
    assert len(headers) == 1  # the input record's headers are left alone


@pytest.mark.kafka("InsertHeaderTest.insertionWithExistingSameHeader")
def test_insertion_with_existing_same_header() -> None:
    headers = Headers().add_string("existing", "preexisting-value")
    out = insert("existing", "inserted-value", headers)
    assert out.headers == headers.duplicate().add_string("existing", "inserted-value")


@pytest.mark.kafka("InsertHeaderTest.insertionWithByteHeader")
def test_insertion_with_byte_header() -> None:
    headers = Headers().add_string("existing", "existing-value")
    out = insert("inserted", "1", headers)
    assert out.headers == headers.duplicate().add("inserted", 1, INT8_SCHEMA)


@pytest.mark.kafka("InsertHeaderTest.configRejectsNullHeaderKey")
@pytest.mark.kafka("InsertHeaderTest.configRejectsNullHeaderValue")
@pytest.mark.parametrize(("header", "literal"), [(None, "1"), ("inserted", None)])
def test_config_rejects_null(header: str | None, literal: str | None) -> None:
    with pytest.raises(ConfigException):
        InsertHeader().configure({"header": header, "value.literal": literal})


def drop(headers: Headers, *names: str) -> ConnectRecord:
    xform = DropHeaders()
    xform.configure({"headers": list(names)})
    original = record(headers)
    return assert_same_but_headers(original, xform.apply(original))


@pytest.mark.kafka("DropHeadersTest.dropExistingHeader")
def test_drop_existing_header() -> None:
    headers = Headers().add_string("existing", "existing-value").add_string("to-drop", "existing-value")
    assert drop(headers, "to-drop").headers == Headers().add_string("existing", "existing-value")


@pytest.mark.kafka("DropHeadersTest.dropExistingHeaderWithMultipleValues")
def test_drop_existing_header_with_multiple_values() -> None:
    headers = (Headers().add_string("existing", "existing-value").add_string("to-drop", "existing-value")
               .add_string("to-drop", "existing-other-value"))
    assert drop(headers, "to-drop").headers == Headers().add_string("existing", "existing-value")


@pytest.mark.kafka("DropHeadersTest.dropNonExistingHeader")
def test_drop_non_existing_header() -> None:
    headers = Headers().add_string("existing", "existing-value")
    assert drop(headers, "to-drop").headers == headers


@pytest.mark.kafka("DropHeadersTest.configRejectsEmptyList")
def test_drop_config_rejects_empty_list() -> None:
    with pytest.raises(ConfigException):
        DropHeaders().configure({"headers": []})


STRUCT_SCHEMA = SchemaBuilder.struct().field("foo", STRING_SCHEMA).build()
FOO = Struct(STRUCT_SCHEMA).put("foo", "foo-value")
F1, F2, H1 = ("field1", STRING_SCHEMA, "field1-value"), ("field2", STRING_SCHEMA, "field2-value"), \
    ("header1", STRING_SCHEMA, "existing-value")
INSERTED = ("inserted1", STRING_SCHEMA, "field1-value")
# (description, fields, header names, operation, fields before, headers before, fields after, headers after)
CASES: list[tuple[Any, ...]] = [
    ("basic copy", ["field1"], ["inserted1"], "copy", [F1, F2], [H1], [F1, F2], [H1, INSERTED]),
    ("basic move", ["field1"], ["inserted1"], "move", [F1, F2], [H1], [F2], [H1, INSERTED]),
    ("copy with preexisting header", ["field1"], ["inserted1"], "copy", [F1, F2],
     [("inserted1", STRING_SCHEMA, "existing-value")], [F1, F2], [("inserted1", STRING_SCHEMA, "existing-value"),
                                                                  INSERTED]),
    ("move with preexisting header", ["field1"], ["inserted1"], "move", [F1, F2],
     [("inserted1", STRING_SCHEMA, "existing-value")], [F2], [("inserted1", STRING_SCHEMA, "existing-value"),
                                                              INSERTED]),
    ("copy with struct value", ["field1"], ["inserted1"], "copy", [("field1", STRUCT_SCHEMA, FOO), F2], [H1],
     [("field1", STRUCT_SCHEMA, FOO), F2], [H1, ("inserted1", STRUCT_SCHEMA, FOO)]),
    ("move with struct value", ["field1"], ["inserted1"], "move", [("field1", STRUCT_SCHEMA, FOO), F2], [H1],
     [F2], [H1, ("inserted1", STRUCT_SCHEMA, FOO)]),
    ("two headers from same field", ["field1", "field1"], ["inserted1", "inserted2"], "move", [F1, F2], [H1],
     [F2], [H1, INSERTED, ("inserted2", STRING_SCHEMA, "field1-value")]),
    ("two fields to same header", ["field1", "field2"], ["inserted1", "inserted1"], "move", [F1, F2], [H1],
     [], [H1, INSERTED, ("inserted1", STRING_SCHEMA, "field2-value")]),
]


def build(on_key: bool, fields: list[tuple[Any, ...]], headers: list[tuple[Any, ...]], schemaless: bool) -> Any:
    """A record whose key (or value) holds `fields`, as Kafka's HeaderFromTest.RecordBuilder builds it."""
    hdrs = Headers()
    for name, schema, value in headers:
        hdrs.add(name, value, None if schemaless else schema)
    if schemaless:
        schema, body = None, {name: value for name, _, value in fields}
    else:
        builder = SchemaBuilder.struct()
        for name, field_schema, _ in fields:
            builder.field(name, field_schema)
        schema = builder.build()
        body = Struct(schema)
        for name, _, value in fields:
            body.put(name, value)
    if on_key:
        return ConnectRecord("topic", 0, schema, body, None, "value", 0, hdrs)
    return ConnectRecord("topic", 0, None, "key", schema, body, 0, hdrs)


def header_from(on_key: bool, fields: list[str], headers: list[str], operation: str) -> HeaderFromKey | HeaderFromValue:
    xform = HeaderFromKey() if on_key else HeaderFromValue()
    xform.configure({"fields": fields, "headers": headers, "operation": operation})
    return xform


@pytest.mark.kafka("HeaderFromTest.schemaless")
@pytest.mark.parametrize("on_key", [True, False])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_header_from_schemaless(on_key: bool, case: tuple[Any, ...]) -> None:
    _, fields, headers, operation, before, hdrs_before, after, hdrs_after = case
    out = header_from(on_key, fields, headers, operation).apply(build(on_key, before, hdrs_before, True))
    assert out == build(on_key, after, hdrs_after, True)


@pytest.mark.kafka("HeaderFromTest.withSchema")
@pytest.mark.parametrize("on_key", [True, False])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_header_from_with_schema(on_key: bool, case: tuple[Any, ...]) -> None:
    _, fields, headers, operation, before, hdrs_before, after, hdrs_after = case
    out = header_from(on_key, fields, headers, operation).apply(build(on_key, before, hdrs_before, False))
    assert out == build(on_key, after, hdrs_after, False)


@pytest.mark.kafka("HeaderFromTest.invalidConfigExtraHeaderConfig")
@pytest.mark.kafka("HeaderFromTest.invalidConfigExtraFieldConfig")
@pytest.mark.kafka("HeaderFromTest.invalidConfigEmptyHeadersAndFieldsConfig")
@pytest.mark.parametrize("on_key", [True, False])
@pytest.mark.parametrize(("headers", "fields"), [(["foo"], ["foo", "bar"]), (["foo", "bar"], ["foo"]), ([], [])])
def test_header_from_invalid_config(on_key: bool, headers: list[str], fields: list[str]) -> None:
    with pytest.raises(ConfigException):
        header_from(on_key, fields, headers, "copy")
