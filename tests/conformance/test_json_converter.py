"""Ports of Kafka's JsonConverterTest (connect/json), the serializing half: Python values in, JSON bytes out.

A Python record carries no Connect schema; bytes, Decimal and date/time values imply the schema a Java
connector declares for them, everything else is schemaless (see pyconnect.converters.json_format).
"""

from __future__ import annotations

import base64
import datetime as dt
from decimal import Decimal
from typing import Any

import orjson
import pytest

from pyconnect.converters.json_format import DataError, json_converter

TOPIC = "topic"


def envelope(raw: bytes | None) -> dict[str, Any]:
    """Parse an enveloped value and check it is exactly {schema, payload}."""
    assert raw is not None
    doc = orjson.loads(raw)
    assert isinstance(doc, dict) and list(doc) == ["schema", "payload"], doc
    return doc


@pytest.mark.kafka("JsonConverterTest.bytesToJson")
def test_bytes_to_json() -> None:
    doc = envelope(json_converter(True)(b"test-string"))
    assert doc["schema"] == {"type": "bytes", "optional": False}
    assert base64.b64decode(doc["payload"]) == b"test-string"


@pytest.mark.kafka("JsonConverterTest.decimalToJson")
def test_decimal_to_json() -> None:
    doc = envelope(json_converter(True)(Decimal("1.56")))
    assert doc["schema"] == {"type": "bytes", "optional": False, "name": "org.apache.kafka.connect.data.Decimal",
                             "version": 1, "parameters": {"scale": "2"}}
    assert isinstance(doc["payload"], str), "base64 text"
    assert base64.b64decode(doc["payload"]) == bytes([0, 0x9C])  # two's complement of 156: {0, -100}


@pytest.mark.kafka("JsonConverterTest.decimalToNumericJson")
def test_decimal_to_numeric_json() -> None:
    raw = json_converter(True, decimal_format="NUMERIC")(Decimal("1.56"))
    doc = envelope(raw)
    assert doc["schema"]["parameters"] == {"scale": "2"} and doc["schema"]["type"] == "bytes"
    assert raw is not None and raw.endswith(b'"payload":1.56}'), "a JSON number, exactly as the decimal reads"


@pytest.mark.kafka("JsonConverterTest.decimalWithTrailingZerosToNumericJson")
def test_decimal_with_trailing_zeros_to_numeric_json() -> None:
    raw = json_converter(True, decimal_format="NUMERIC")(Decimal("1.5600"))
    assert envelope(raw)["schema"]["parameters"] == {"scale": "4"}
    assert raw is not None and raw.endswith(b'"payload":1.5600}'), "the scale's trailing zeros are kept"


@pytest.mark.kafka("JsonConverterTest.decimalToJsonWithoutSchema")
def test_decimal_to_json_without_schema() -> None:
    # A Decimal inside a schemaless list has no schema to carry its scale: Java's DataException.
    with pytest.raises(DataError):
        json_converter(True)([Decimal("1.56")])


@pytest.mark.kafka("JsonConverterTest.dateToJson")
def test_date_to_json() -> None:
    doc = envelope(json_converter(True)(dt.date(1970, 1, 1) + dt.timedelta(days=10000)))
    assert doc["schema"] == {"type": "int32", "optional": False, "name": "org.apache.kafka.connect.data.Date",
                             "version": 1}
    assert doc["payload"] == 10000


@pytest.mark.kafka("JsonConverterTest.timeToJson")
def test_time_to_json() -> None:
    doc = envelope(json_converter(True)(dt.time(4, 0, 0)))
    assert doc["schema"] == {"type": "int32", "optional": False, "name": "org.apache.kafka.connect.data.Time",
                             "version": 1}
    assert doc["payload"] == 14400000


@pytest.mark.kafka("JsonConverterTest.timestampToJson")
def test_timestamp_to_json() -> None:
    moment = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(milliseconds=4_000_000_000)
    doc = envelope(json_converter(True)(moment))
    assert doc["schema"] == {"type": "int64", "optional": False,
                             "name": "org.apache.kafka.connect.data.Timestamp", "version": 1}
    assert doc["payload"] == 4000000000


@pytest.mark.kafka("JsonConverterTest.nullSchemaAndPrimitiveToJson")
def test_null_schema_and_primitive_to_json() -> None:
    assert envelope(json_converter(True)(True)) == {"schema": None, "payload": True}


@pytest.mark.kafka("JsonConverterTest.nullSchemaAndArrayToJson")
def test_null_schema_and_array_to_json() -> None:
    assert envelope(json_converter(True)([1, "string", True])) == {"schema": None, "payload": [1, "string", True]}


@pytest.mark.kafka("JsonConverterTest.nullSchemaAndMapToJson")
def test_null_schema_and_map_to_json() -> None:
    value = {"key1": 12, "key2": "string", "key3": True}
    assert envelope(json_converter(True)(value)) == {"schema": None, "payload": value}


@pytest.mark.kafka("JsonConverterTest.nullSchemaAndMapNonStringKeysToJson")
def test_null_schema_and_map_non_string_keys_to_json() -> None:
    doc = envelope(json_converter(True)({"string": 12, 52: "string", False: True}))
    assert doc["schema"] is None
    assert isinstance(doc["payload"], list) and len(doc["payload"]) == 3
    assert {tuple(pair) for pair in doc["payload"]} == {("string", 12), (52, "string"), (False, True)}


@pytest.mark.kafka("JsonConverterTest.nullSchemaAndNullValueToJson")
def test_null_schema_and_null_value_to_json() -> None:
    assert json_converter(True)(None) is None, "a tombstone with schemas enabled"


@pytest.mark.kafka("JsonConverterTest.nullValueToJson")
def test_null_value_to_json() -> None:
    assert json_converter(False)(None) is None, "a tombstone with schemas disabled"


@pytest.mark.kafka("JsonConverterTest.noSchemaToJson")
def test_no_schema_to_json() -> None:
    assert json_converter(False)(True) == b"true"
