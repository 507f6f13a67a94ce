"""A JSON tree to Connect data, as JsonConverter.convertToConnect reads it.

The tree is what orjson (or, where a Decimal needs the exact digits, `json` with Decimal floats) parses.
With a schema every node is checked against it: a node of the wrong JSON type, or an integer out of its
type's range, is a DataException naming the schema type (Java's Jackson accessors would read such
nodes as 0, false or null instead). Without a schema the tree's own types decide: integers are INT64,
other numbers FLOAT64, objects maps, arrays lists.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from pyconnect.api.data import (
    DATE_NAME,
    DECIMAL_NAME,
    EPOCH,
    TIME_NAME,
    TIMESTAMP_NAME,
    DataException,
    Schema,
    SchemaType,
    Struct,
)
from pyconnect.api.numbers import to_float32
from pyconnect.converters.json_write import decimal_scale

_INT_RANGES = {SchemaType.INT8: 1 << 7, SchemaType.INT16: 1 << 15, SchemaType.INT32: 1 << 31,
               SchemaType.INT64: 1 << 63}
_MILLIS_PER_DAY = 86_400_000


def _node_type(node: Any) -> str:
    """Jackson's JsonNodeType name of a parsed node, for error messages."""
    if node is None:
        return "NULL"
    if isinstance(node, bool):
        return "BOOLEAN"
    if isinstance(node, (int, float, Decimal)):
        return "NUMBER"
    names: dict[type, str] = {str: "STRING", list: "ARRAY", dict: "OBJECT"}
    return names.get(type(node), type(node).__name__)


def _is_int(node: Any) -> bool:
    return isinstance(node, int) and not isinstance(node, bool)


def _is_number(node: Any) -> bool:
    return isinstance(node, (int, float, Decimal)) and not isinstance(node, bool)


def _unscaled(text: str) -> int:
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise DataException("Invalid bytes for Decimal field") from None
    if not raw:
        raise DataException("Invalid bytes for Decimal field")
    return int.from_bytes(raw, "big", signed=True)


def _decimal(schema: Schema, node: Any) -> Decimal:
    if _is_number(node):
        return node if isinstance(node, Decimal) else Decimal(node if _is_int(node) else repr(node))
    if isinstance(node, str):
        unscaled = _unscaled(node)
        try:
            digits = tuple(int(d) for d in str(abs(unscaled)))
        except ValueError:  # past Python's int-to-text digit limit
            raise DataException("Invalid bytes for Decimal field: too many digits") from None
        return Decimal((1 if unscaled < 0 else 0, digits, -decimal_scale(schema)))
    raise DataException("Invalid type for Decimal, underlying representation should be numeric or bytes "
                        f"but was {_node_type(node)}")


def _int32(node: Any, what: str, kind: str) -> int:
    if not _is_int(node) or not -(1 << 31) <= node < 1 << 31:
        raise DataException(f"Invalid type for {what}, underlying representation should be {kind} "
                            f"but was {_node_type(node)}")
    return int(node)


def _date(_schema: Schema, node: Any) -> dt.date:
    days = _int32(node, "Date", "integer")
    try:
        return EPOCH.date() + dt.timedelta(days=days)
    except OverflowError:
        raise DataException(f"Date out of the range Python can represent: {days} days") from None


def _time(_schema: Schema, node: Any) -> dt.time:
    millis = _int32(node, "Time", "integer")
    if not 0 <= millis < _MILLIS_PER_DAY:
        raise DataException("Time values must use number of milliseconds greater than 0 and less than 86400000")
    seconds, ms = divmod(millis, 1000)
    return dt.time(seconds // 3600, seconds // 60 % 60, seconds % 60, ms * 1000)


def _timestamp(_schema: Schema, node: Any) -> dt.datetime:
    if not _is_int(node):
        raise DataException("Invalid type for Timestamp, underlying representation should be integral "
                            f"but was {_node_type(node)}")
    try:
        return EPOCH + dt.timedelta(milliseconds=node)
    except OverflowError:
        raise DataException(f"Timestamp out of the range Python can represent: {node}") from None


_LOGICAL: dict[str, Callable[[Schema, Any], Any]] = {
    DECIMAL_NAME: _decimal, DATE_NAME: _date, TIME_NAME: _time, TIMESTAMP_NAME: _timestamp,
}


def schemaless(node: Any) -> Any:
    """Connect data of a JSON tree without a schema: the tree itself, Decimal floats as floats."""
    if isinstance(node, Decimal):
        return float(node)
    if isinstance(node, list):
        return [schemaless(v) for v in node]
    if isinstance(node, dict):
        return {k: schemaless(v) for k, v in node.items()}
    return node


class JsonReader:
    """convertToConnect with the converter's `replace.null.with.default`."""

    def __init__(self, replace_null_with_default: bool) -> None:
        self.replace_null = replace_null_with_default

    def to_connect(self, schema: Schema | None, node: Any) -> Any:
        """The Connect value of `node` read with `schema` (schemaless when None)."""
        if schema is None:
            return schemaless(node)
        if node is None:
            if schema.default_value is not None and self.replace_null:
                return schema.default_value
            if schema.optional:
                return None
            raise DataException(f"Invalid null value for required {schema.type} field")
        if schema.name is not None:
            logical = _LOGICAL.get(schema.name)
            if logical is not None:
                return logical(schema, node)
        t = schema.type
        if t is SchemaType.ARRAY:
            return self._array(schema, node)
        if t is SchemaType.MAP:
            return self._map(schema, node)
        if t is SchemaType.STRUCT:
            return self._struct(schema, node)
        return _primitive(schema, node)

    def _array(self, schema: Schema, node: Any) -> list[Any]:
        if not isinstance(node, list):
            raise DataException(f"Arrays should be encoded as JSON arrays, but found {_node_type(node)}")
        return [self.to_connect(schema.value_schema, v) for v in node]

    def _map(self, schema: Schema, node: Any) -> dict[Any, Any]:
        keys, values = schema.key_schema, schema.value_schema
        if keys is None or keys.type is SchemaType.STRING:
            if not isinstance(node, dict):
                raise DataException("Maps with string fields should be encoded as JSON objects, but found "
                                    + _node_type(node))
            return {k: self.to_connect(values, v) for k, v in node.items()}
        if not isinstance(node, list):
            raise DataException("Maps with non-string fields should be encoded as JSON array of tuples, but found "
                                + _node_type(node))
        out: dict[Any, Any] = {}
        for entry in node:
            if not isinstance(entry, list):
                raise DataException(f"Found invalid map entry instead of array tuple: {_node_type(entry)}")
            if len(entry) != 2:
                raise DataException(f"Found invalid map entry, expected length 2 but found :{len(entry)}")
            key = self.to_connect(keys, entry[0])
            try:
                out[key] = self.to_connect(values, entry[1])
            except TypeError:
                raise DataException(f"Map key of type {type(key).__name__} cannot key a Python dict") from None
        return out

    def _struct(self, schema: Schema, node: Any) -> Struct:
        if not isinstance(node, dict):
            raise DataException(f"Structs should be encoded as JSON objects, but found {_node_type(node)}")
        result = Struct(schema)
        for f in schema.fields:
            result.put(f, self.to_connect(f.schema, node.get(f.name)))
        return result


def _primitive(schema: Schema, node: Any) -> Any:
    t = schema.type
    if t in _INT_RANGES:
        bound = _INT_RANGES[t]
        if not _is_int(node) or not -bound <= node < bound:
            raise DataException(f"Invalid value for {t}: {_node_type(node)} {node!r} does not fit")
        return int(node)
    if t is SchemaType.FLOAT64 or t is SchemaType.FLOAT32:
        if not _is_number(node):
            raise DataException(f"Invalid value for {t}: expected a number but found {_node_type(node)}")
        return float(node) if t is SchemaType.FLOAT64 else to_float32(float(node))
    if t is SchemaType.BOOLEAN and isinstance(node, bool) or t is SchemaType.STRING and isinstance(node, str):
        return node
    if t is SchemaType.BYTES and isinstance(node, str):
        try:
            return base64.b64decode(node, validate=True)
        except (binascii.Error, ValueError):
            raise DataException("Invalid bytes field") from None
    raise DataException(f"Invalid value for {t}: found {_node_type(node)}")
