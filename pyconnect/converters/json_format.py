"""JSON in Kafka's JsonConverter format, for `pyconnect.converters.JsonConverter`.

`JsonConverter` writes what Kafka's `org.apache.kafka.connect.json.JsonConverter` writes for the
same data. A Python record carries no Connect schema, so the value's type stands in for one:

- bytes, `decimal.Decimal`, `datetime.date`, `datetime.time` and `datetime.datetime` get the schema a
  Java connector declares for them (`bytes`, and the Decimal / Date / Time / Timestamp logical
  types), because without one the JSON could not be read back as the same Connect value: bytes are
  base64 text, a Decimal is its base64 two's-complement unscaled value (or a number with
  `decimal.format=NUMERIC`), dates and times are integers;
- everything else is schemaless (Java's null schema), which reads back as the same value: `None`,
  bool, int (INT64), float (FLOAT64), str, lists/tuples/sets and dicts, nested at will. Inside them
  bytes are base64 text too, a dict whose keys are not all strings is an array of `[key, value]`
  pairs, and a Decimal or date has no schema to carry its type, so it is an error, as in Java.

With `schemas.enable=true` the JSON is the envelope `{"schema": ..., "payload": ...}`; a `None`
value is a tombstone (no bytes) either way. The text is Jackson's: floats as Java's
`Double.toString` prints them (`1.0E10`, `"NaN"`), upper-case `\\u00XX` escapes.
"""

from __future__ import annotations

import base64
import datetime as dt
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import orjson

from pyconnect.api.config import java_double_string
from pyconnect.api.converter import Serialize
from pyconnect.api.data import DataException

_INT64 = (-(2 ** 63), 2 ** 63 - 1)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_ONE_MS = dt.timedelta(milliseconds=1)
# Jackson escapes control characters as \u00XX with upper-case hex; orjson uses lower case. The
# look-behind skips a `\\u00..` that is an escaped backslash followed by text.
_LOWER_ESCAPE = re.compile(rb"(?<!\\)((?:\\\\)*)\\u00([0-9a-f]{2})")
_NON_FINITE = {"NaN", "Infinity", "-Infinity"}


class DataError(DataException, ValueError):
    """Connect's DataException: a value the converter cannot represent (a ValueError too, as before)."""


def _schema(type_name: str, logical: str | None = None, **parameters: str) -> dict[str, Any]:
    """A JSON schema in Jackson's field order: type, optional, name, version, parameters."""
    schema: dict[str, Any] = {"type": type_name, "optional": False}
    if logical is not None:
        schema.update(name=f"org.apache.kafka.connect.data.{logical}", version=1)
    if parameters:
        schema["parameters"] = parameters
    return schema


BYTES_SCHEMA = _schema("bytes")
DATE_SCHEMA = _schema("int32", "Date")
TIME_SCHEMA = _schema("int32", "Time")
TIMESTAMP_SCHEMA = _schema("int64", "Timestamp")


def _base64(data: bytes | bytearray | memoryview) -> str:
    return base64.b64encode(data).decode("ascii")


def unscaled_bytes(value: Decimal) -> bytes:
    """Decimal.fromLogical: the unscaled value as BigInteger.toByteArray writes it (big-endian two's
    complement, shortest form with a sign bit). The scale is the Decimal's own exponent."""
    sign, digits, _ = value.as_tuple()
    unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
    bits = (unscaled if unscaled >= 0 else ~unscaled).bit_length()
    return unscaled.to_bytes(bits // 8 + 1, "big", signed=True)


def java_number(text: str) -> Any:
    """A number already rendered as Java prints it, written into the JSON as is."""
    return orjson.Fragment(text.encode())


def _decimal(value: Decimal, numeric: bool) -> tuple[dict[str, Any], Any]:
    """Connect's Decimal logical type: the scale is the Decimal's own."""
    if not value.is_finite():
        raise DataError(f"Invalid type for Decimal: {value} is not a finite number")
    exponent = value.as_tuple().exponent
    assert isinstance(exponent, int)
    schema = _schema("bytes", "Decimal", scale=str(-exponent))
    if numeric:
        return schema, orjson.Fragment(str(value).encode())  # BigDecimal.toString: same notation
    return schema, _base64(unscaled_bytes(value))


def _logical(value: Any, numeric: bool) -> tuple[dict[str, Any], Any] | None:
    """Schema and payload for a value whose type implies a Connect schema, else None."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return BYTES_SCHEMA, _base64(value)
    if isinstance(value, Decimal):
        return _decimal(value, numeric)
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
        return TIMESTAMP_SCHEMA, (aware - _EPOCH) // _ONE_MS
    if isinstance(value, dt.date):
        return DATE_SCHEMA, (value - dt.date(1970, 1, 1)).days
    if isinstance(value, dt.time):
        micros = ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
        return TIME_SCHEMA, micros // 1000
    return None


def java_float(value: float) -> Any:
    """A FLOAT64 as Jackson writes it (Double.toString; non-finite values quoted)."""
    return _float(value)


def _float(value: float) -> Any:
    text = java_double_string(value)
    # Jackson quotes non-finite numbers (QUOTE_NON_NUMERIC_NUMBERS), which JSON cannot hold.
    return text if text in _NON_FINITE else orjson.Fragment(text.encode())


def schemaless_json(value: Any) -> Any:
    """The JSON tree of a value without a schema (Java's convertToJson with a null schema)."""
    return _schemaless(value)


def _schemaless(value: Any) -> Any:
    """Java's conversion with a null schema: the JSON tree, with floats pre-rendered."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if not _INT64[0] <= value <= _INT64[1]:
            raise DataError(f"Integer {value} does not fit Connect's INT64")
        return value
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _base64(value)
    if isinstance(value, Mapping):
        if all(isinstance(k, str) for k in value):
            return {k: _schemaless(v) for k, v in value.items()}
        return [[_schemaless(k), _schemaless(v)] for k, v in value.items()]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_schemaless(v) for v in value]
    raise DataError(f"Python class {type(value).__name__} does not have corresponding schema type.")


def dumps(document: Any) -> bytes:
    """The JSON text of a tree whose floats are pre-rendered, with Jackson's escapes."""
    return _dumps(document)


def _dumps(document: Any) -> bytes:
    out = orjson.dumps(document)
    if b"\\u00" in out:
        out = _LOWER_ESCAPE.sub(lambda m: m.group(1) + b"\\u00" + m.group(2).upper(), out)
    return out


def json_converter(schemas_enable: bool, decimal_format: str = "BASE64") -> Serialize:
    """JsonConverter with `schemas.enable` and `decimal.format` (BASE64 or NUMERIC)."""
    fmt = decimal_format.strip().upper()
    if fmt not in ("BASE64", "NUMERIC"):
        raise ValueError(f"Invalid value {decimal_format} for configuration decimal.format: "
                         "String must be one of: BASE64, NUMERIC")
    numeric = fmt == "NUMERIC"

    def convert(value: Any) -> bytes | None:
        if value is None:
            return None  # a tombstone, with or without schemas
        typed = _logical(value, numeric)
        schema, payload = typed if typed is not None else (None, _schemaless(value))
        return _dumps({"schema": schema, "payload": payload} if schemas_enable else payload)
    return convert
