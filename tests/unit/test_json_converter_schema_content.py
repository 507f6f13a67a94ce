"""JsonConverter's `schema.content` (KIP-1054, Kafka 4.2), as Kafka's JsonConverterConfig documents it:
the configured schema reads every record, the record being the bare payload; unset or empty, records
carry their envelope as before. The stored JsonConverterTest predates the key, so these cases follow
the KIP's examples; with `schemas.enable=false` the key is refused (it would have no effect)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from pyconnect.api.data import STRING_SCHEMA, DataException, SchemaType
from pyconnect.converters import deserializer_for
from pyconnect.converters.configs import ConverterConfigError
from pyconnect.plugins import find_component

JSON = "org.apache.kafka.connect.json.JsonConverter"
ENVELOPE = b'{"schema": {"type": "string"}, "payload": "foo-bar-baz"}'


@pytest.mark.parametrize("content", [None, ""])
def test_unset_or_empty_reads_the_envelope(content: str | None) -> None:
    """Null or empty `schema.content`: every record carries its schema (the 4.1 behaviour)."""
    read = deserializer_for(JSON, {} if content is None else {"schema.content": content}, False)
    assert read("t", ENVELOPE) == (STRING_SCHEMA, "foo-bar-baz")
    with pytest.raises(DataException, match="requires \"schema\" and \"payload\""):
        read("t", b'"foo-bar-baz"')


def test_a_valid_schema_reads_bare_payloads() -> None:
    """`{"type": "string"}` reads `"foo-bar-baz"` as a STRING; a null record is still a tombstone."""
    read = deserializer_for(JSON, {"schema.content": '{"type": "string"}'}, False)
    assert read("t", b'"foo-bar-baz"') == (STRING_SCHEMA, "foo-bar-baz")
    assert read("t", None) == (None, None)


def test_a_record_that_looks_like_an_envelope_is_payload_all_the_same() -> None:
    """With a fixed schema, `{"schema": ..., "payload": ...}` is data, read with that schema."""
    content = ('{"type": "struct", "fields": [{"field": "schema", "type": "struct", "fields": '
               '[{"field": "type", "type": "string"}]}, {"field": "payload", "type": "string"}]}')
    schema, value = deserializer_for(JSON, {"schema.content": content}, False)("t", ENVELOPE)
    assert schema is not None and schema.type is SchemaType.STRUCT
    assert value.get("payload") == "foo-bar-baz" and value.get("schema").get("type") == "string"


def test_decimals_of_a_fixed_schema_keep_their_digits() -> None:
    """A Decimal schema with NUMERIC payloads reads the exact digits (as the envelope path does)."""
    content = ('{"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "version": 1, '
               '"parameters": {"scale": "20"}}')
    read = deserializer_for(JSON, {"schema.content": content, "decimal.format": "NUMERIC"}, False)
    assert read("t", b"0.12345678901234567890")[1] == Decimal("0.12345678901234567890")


def test_an_invalid_schema_fails_configure() -> None:
    """Kafka's configure: "Failed to parse schema in converter config due to serialization error"."""
    with pytest.raises(DataException, match="Failed to parse schema in converter config"):
        deserializer_for(JSON, {"schema.content": '{"string"}'}, False)


def test_without_schemas_enable_it_is_refused() -> None:
    """The key would have no effect with schemas.enable=false: refused, naming both keys."""
    with pytest.raises(ConverterConfigError, match="schema.content.*schemas.enable"):
        deserializer_for(JSON, {"schema.content": '{"type": "string"}', "schemas.enable": "false"}, False)


def test_the_key_is_in_the_converters_config() -> None:
    """`GET /connector-plugins/JsonConverter/config` lists it."""
    found = find_component("JsonConverter")
    assert found is not None and "schema.content" in found.config_def().keys
