"""JsonConverter details beyond Kafka's test cases: the exact text Jackson writes, and values that must not raise."""

from __future__ import annotations

import base64
import math
from decimal import Decimal

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyconnect.api.config import java_double_string
from pyconnect.api.converter import Converter, Serialize
from pyconnect.api.loading import ClassLoadError
from pyconnect.converters import converter_class, converter_for
from pyconnect.converters.builtin import byte_array
from pyconnect.converters.json_format import DataError, json_converter


@pytest.mark.parametrize("schemas", [True, False])
def test_non_utf8_bytes_are_base64_and_never_raise(schemas: bool) -> None:
    raw = bytes(range(256))
    out = json_converter(schemas)(raw)
    assert out is not None
    doc = orjson.loads(out)
    payload = doc["payload"] if schemas else doc
    assert base64.b64decode(payload) == raw
    if schemas:
        assert doc["schema"] == {"type": "bytes", "optional": False}


def test_bytes_nested_in_schemaless_values_are_base64() -> None:
    out = json_converter(True)({"k": b"\xff", "l": [bytearray(b"\x00\x01")]})
    assert out == b'{"schema":null,"payload":{"k":"/w==","l":["AAE="]}}'


@pytest.mark.parametrize(("value", "text"), [
    (1.0, "1.0"), (100.0, "100.0"), (12.34, "12.34"), (0.001, "0.001"), (1e-4, "1.0E-4"), (1e7, "1.0E7"),
    (1234567.0, "1234567.0"), (12345678.9, "1.23456789E7"), (-0.0, "-0.0"), (1e23, "1.0E23"),
    (5e-324, "4.9E-324"), (1.7976931348623157e308, "1.7976931348623157E308"), (-2.5e-7, "-2.5E-7"),
])
def test_doubles_print_as_java(value: float, text: str) -> None:
    assert java_double_string(value) == text
    assert json_converter(False)(value) == text.encode()


def test_non_finite_doubles_are_quoted_as_jackson_does() -> None:
    assert json_converter(False)([math.nan, math.inf, -math.inf]) == b'["NaN","Infinity","-Infinity"]'


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_java_doubles_read_back_exactly(value: float) -> None:
    text = java_double_string(value)
    assert float(text) == value
    mantissa = text.lstrip("-").split("E")[0]
    assert "." in mantissa and not mantissa.endswith(".")


def test_control_characters_escape_with_upper_case_hex() -> None:
    out = json_converter(False)("a\x01\x1f\t\n\\u001f\x7f")
    assert out == b'"a\\u0001\\u001F\\t\\n\\\\u001f\x7f"'
    assert orjson.loads(out or b"") == "a\x01\x1f\t\n\\u001f\x7f"


def test_integers_beyond_int64_are_a_data_error() -> None:
    assert json_converter(False)(2 ** 63 - 1) == b"9223372036854775807"
    with pytest.raises(DataError):
        json_converter(False)(2 ** 63)


def test_types_without_a_connect_schema_are_a_data_error() -> None:
    with pytest.raises(DataError, match="does not have corresponding schema type"):
        json_converter(True)({"at": object()})


def test_tuples_and_nulls_nest() -> None:
    assert json_converter(False)({"t": (1, None), "n": None}) == b'{"t":[1,null],"n":null}'


def test_decimal_format_is_checked() -> None:
    numeric = converter_for("org.apache.kafka.connect.json.JsonConverter", {"decimal.format": "numeric"}, False)
    assert orjson.loads(numeric(Decimal("1.5")) or b"")["payload"] == 1.5
    with pytest.raises(ValueError, match="decimal.format"):
        json_converter(True, "HEX")


class _Upper(Converter):
    """A third-party converter, named by Python path."""

    def serializer(self) -> Serialize:
        return lambda value: None if value is None else str(value).upper().encode()


def test_converters_resolve_by_java_name_simple_name_and_python_path_through_load_class() -> None:
    assert converter_for("org.apache.kafka.connect.converters.ByteArrayConverter", {}, True) is byte_array
    assert converter_for("StringConverter", {}, False)("é") == "é".encode()
    assert converter_for("JsonConverter", {"schemas.enable": "false"}, False)({"a": 1}) == b'{"a":1}'
    assert converter_for(f"{__name__}:_Upper", {}, False)("x") == b"X"
    with pytest.raises(ClassLoadError, match="Class nope.Converter could not be found."):
        converter_for("nope.Converter", {}, False)
    assert converter_class("value.converter", "os:getcwd") == \
        "os:getcwd is not an instance of pyconnect.api.converter.Converter"
