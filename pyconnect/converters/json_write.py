"""Connect data with a schema to a JSON tree, as JsonConverter.convertToJson builds it.

The tree is what `json_format.dumps` writes: floats are pre-rendered as Java prints them (FLOAT32 with
`Float.toString`), bytes are base64 text, maps with string keys are objects and other maps arrays of
`[key, value]` pairs. A value that does not fit its schema is a DataException, as the casts of Java's
convertToJson (and ConnectSchema.validateValue) make it.
"""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from pyconnect.api.data import (
    DATE_NAME,
    DECIMAL_NAME,
    DECIMAL_SCALE,
    EPOCH,
    TIME_NAME,
    TIMESTAMP_NAME,
    DataException,
    Schema,
    SchemaType,
    Struct,
    logical_to_millis,
)
from pyconnect.api.numbers import java_float_string
from pyconnect.converters.json_format import java_float, java_number, schemaless_json, unscaled_bytes

_INT_RANGES = {SchemaType.INT8: 1 << 7, SchemaType.INT16: 1 << 15, SchemaType.INT32: 1 << 31,
               SchemaType.INT64: 1 << 63}
_MILLIS_PER_DAY = 86_400_000


def decimal_scale(schema: Schema) -> int:
    """The `scale` parameter of a Decimal schema (Decimal.scale)."""
    text = (schema.parameters or {}).get(DECIMAL_SCALE)
    if text is None:
        raise DataException("Invalid Decimal schema: scale parameter not found.")
    try:
        return int(text)
    except ValueError:
        raise DataException(f"Invalid scale parameter found in Decimal schema: {text}") from None


def _invalid(schema: Schema, value: Any) -> DataException:
    return DataException(f"Invalid type for {schema.type}: {type(value)}")


def _decimal(schema: Schema, value: Any, numeric: bool) -> Any:
    if not isinstance(value, Decimal) or not value.is_finite():
        raise DataException(f"Invalid type for Decimal, expected BigDecimal but was {type(value)}")
    exponent = value.as_tuple().exponent
    assert isinstance(exponent, int)
    if -exponent != decimal_scale(schema):
        raise DataException(f"Decimal value has mismatching scale. Expected: {decimal_scale(schema)}, "
                            f"got: {-exponent}")
    if numeric:
        return java_number(str(value))  # BigDecimal.toString and str(Decimal) agree
    return base64.b64encode(unscaled_bytes(value)).decode("ascii")


def _date(_schema: Schema, value: Any) -> int:
    if not isinstance(value, dt.date):
        raise DataException(f"Invalid type for Date, expected Date but was {type(value)}")
    millis = logical_to_millis(value)
    if millis % _MILLIS_PER_DAY:
        raise DataException("Kafka Connect Date type should not have any time fields set to non-zero values.")
    return millis // _MILLIS_PER_DAY


def _time(_schema: Schema, value: Any) -> int:
    if isinstance(value, dt.time):
        return logical_to_millis(value)
    if not isinstance(value, dt.datetime):
        raise DataException(f"Invalid type for Time, expected Date but was {type(value)}")
    millis = logical_to_millis(value)
    if not 0 <= millis < _MILLIS_PER_DAY:
        raise DataException("Kafka Connect Time type should not have any date fields set to non-zero values.")
    return millis


def _timestamp(_schema: Schema, value: Any) -> int:
    if isinstance(value, dt.datetime):
        return logical_to_millis(value)
    if isinstance(value, dt.date):  # a java.util.Date at midnight is a Timestamp too
        return (value - EPOCH.date()).days * _MILLIS_PER_DAY
    raise DataException(f"Invalid type for Timestamp, expected Date but was {type(value)}")


_LOGICAL: dict[str, Callable[[Schema, Any], Any]] = {
    DATE_NAME: _date, TIME_NAME: _time, TIMESTAMP_NAME: _timestamp,
}


class JsonWriter:
    """convertToJson with the converter's `decimal.format` and `replace.null.with.default`."""

    def __init__(self, numeric_decimals: bool, replace_null_with_default: bool) -> None:
        self.numeric = numeric_decimals
        self.replace_null = replace_null_with_default

    def to_json(self, schema: Schema, value: Any) -> Any:
        """The JSON tree of `value`, valid for `schema` (a DataException otherwise)."""
        if value is None:
            if schema.default_value is not None and self.replace_null:
                return self.to_json(schema, schema.default_value)
            if schema.optional:
                return None
            raise DataException("Conversion error: null value for field that is required and has no default value")
        if schema.name is not None:
            if schema.name == DECIMAL_NAME:
                return self._checked_primitive(schema, _decimal(schema, value, self.numeric))
            logical = _LOGICAL.get(schema.name)
            if logical is not None:
                return self._primitive(schema, logical(schema, value))
        if schema.type is SchemaType.ARRAY:
            return self._array(schema, value)
        if schema.type is SchemaType.MAP:
            return self._map(schema, value)
        if schema.type is SchemaType.STRUCT:
            return self._struct(schema, value)
        return self._primitive(schema, value)

    def _any(self, schema: Schema | None, value: Any) -> Any:
        """An element of a container whose element schema may be None (any value, as Java allows)."""
        return schemaless_json(value) if schema is None else self.to_json(schema, value)

    def _checked_primitive(self, schema: Schema, rendered: Any) -> Any:
        if schema.type is not SchemaType.BYTES:
            raise DataException(f"Invalid schema type for Decimal: {schema.type}")
        return rendered

    @staticmethod
    def _primitive(schema: Schema, value: Any) -> Any:
        t = schema.type
        if t in _INT_RANGES:
            bound = _INT_RANGES[t]
            if isinstance(value, bool) or not isinstance(value, int):
                raise _invalid(schema, value)
            if not -bound <= value < bound:
                raise DataException(f"Invalid value for {t}: {value} is out of range")
            return value
        if t is SchemaType.FLOAT64 or t is SchemaType.FLOAT32:
            if not isinstance(value, float):
                raise _invalid(schema, value)
            if t is SchemaType.FLOAT64:
                return java_float(value)
            text = java_float_string(value)
            return text if text in ("NaN", "Infinity", "-Infinity") else java_number(text)
        if t is SchemaType.BOOLEAN and isinstance(value, bool) or t is SchemaType.STRING and isinstance(value, str):
            return value
        if t is SchemaType.BYTES and isinstance(value, (bytes, bytearray, memoryview)):
            return base64.b64encode(value).decode("ascii")
        raise _invalid(schema, value)

    def _array(self, schema: Schema, value: Any) -> list[Any]:
        if not isinstance(value, (list, tuple)):
            raise _invalid(schema, value)
        return [self._any(schema.value_schema, v) for v in value]

    def _map(self, schema: Schema, value: Any) -> Any:
        if not isinstance(value, Mapping):
            raise _invalid(schema, value)
        keys, values = schema.key_schema, schema.value_schema
        # Java writes an object for STRING keys, and for no key schema (like a schemaless map) when
        # every key is a string; otherwise an array of [key, value] pairs.
        object_mode = keys.type is SchemaType.STRING if keys is not None else all(isinstance(k, str) for k in value)
        if object_mode:
            out: dict[str, Any] = {}
            for k, v in value.items():
                key = self._any(keys, k)
                if not isinstance(key, str):  # a null key of an optional string schema
                    raise DataException("Map with string keys has a null key")
                out[key] = self._any(values, v)
            return out
        return [[self._any(keys, k), self._any(values, v)] for k, v in value.items()]

    def _struct(self, schema: Schema, value: Any) -> dict[str, Any]:
        if not isinstance(value, Struct):
            raise _invalid(schema, value)
        if value.schema != schema:
            raise DataException("Mismatching schema.")
        get = value.get if self.replace_null else value.get_without_default
        return {f.name: self.to_json(f.schema, get(f)) for f in schema.fields}
