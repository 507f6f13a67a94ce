"""Casting one value to a Connect primitive type with Java's conversions (the value half of Connect's
Cast transform): integers wrap to the target width, floats saturate first, strings parse strictly."""

from __future__ import annotations

import base64
import datetime as dt
import math
import struct
from decimal import Decimal
from typing import Any

from pyconnect.api.config import java_double_string
from pyconnect.api.data import (
    DATE_NAME,
    TIME_NAME,
    TIMESTAMP_NAME,
    DataException,
    Schema,
    SchemaType,
    Struct,
    logical_to_millis,
)
from pyconnect.transforms.values import MILLIS_PER_DAY, format_logical

INPUT_TYPES = (SchemaType.INT8, SchemaType.INT16, SchemaType.INT32, SchemaType.INT64, SchemaType.FLOAT32,
               SchemaType.FLOAT64, SchemaType.BOOLEAN, SchemaType.STRING, SchemaType.BYTES)
OUTPUT_TYPES = INPUT_TYPES[:-1]
_BITS = {SchemaType.INT8: 8, SchemaType.INT16: 16, SchemaType.INT32: 32, SchemaType.INT64: 64}


def _wrap(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >= 1 << bits - 1 else value


def _saturate(value: float, bits: int) -> int:
    if math.isnan(value):
        return 0
    low, high = -(1 << bits - 1), (1 << bits - 1) - 1
    return low if value <= low else high if value >= high else int(value)


def _to_int(value: Any, bits: int) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | Decimal):
        return _wrap(int(value), bits)
    if isinstance(value, float):
        # Java narrows a double to int (or long) saturating, then to byte/short by dropping high bits.
        return _wrap(_saturate(value, max(bits, 32)), bits)
    if isinstance(value, str):
        parsed = int(value.strip() if value.strip().lstrip("+-").isdigit() else "x")
        if parsed != _wrap(parsed, bits):
            raise ValueError(value)
        return parsed
    raise DataException(f"Unexpected type in Cast transformation: {type(value).__name__}")


def _to_float(value: Any, single: bool) -> float:
    if isinstance(value, bool):
        result = 1.0 if value else 0.0
    elif isinstance(value, int | float | Decimal | str):
        result = float(value)
    else:
        raise DataException(f"Unexpected type in Cast transformation: {type(value).__name__}")
    return struct.unpack("f", struct.pack("f", result))[0] if single and math.isfinite(result) else result


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | Decimal):
        return int(value) != 0
    if isinstance(value, float):
        return _saturate(value, 64) != 0  # Java: Number.longValue() != 0
    if isinstance(value, str):
        return value.lower() == "true"
    raise DataException(f"Unexpected type in Cast transformation: {type(value).__name__}")


def _to_string(value: Any) -> str:
    if isinstance(value, dt.date | dt.time):
        return format_logical(value)
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_string(value)
    return str(value)


def inferred_type(value: Any) -> SchemaType | None:
    """The Connect type of a schemaless value (Python int is INT64, float is FLOAT64)."""
    for cls, schema_type in ((bool, SchemaType.BOOLEAN), (int, SchemaType.INT64), (float, SchemaType.FLOAT64),
                             (str, SchemaType.STRING), (bytes, SchemaType.BYTES), (bytearray, SchemaType.BYTES),
                             (list, SchemaType.ARRAY), (dict, SchemaType.MAP), (Struct, SchemaType.STRUCT)):
        if isinstance(value, cls):
            return schema_type
    return None


def _encode_logical(schema: Schema, value: Any) -> Any:
    """Date, Time and Timestamp as the integers they are stored as (days, ms of day, epoch ms)."""
    if schema.name == DATE_NAME:
        return logical_to_millis(value) // MILLIS_PER_DAY
    if schema.name in (TIME_NAME, TIMESTAMP_NAME):
        return logical_to_millis(value)
    return value


def cast_value(schema: Schema | None, value: Any, target: SchemaType) -> Any:
    """`value` (of `schema`, or schemaless) cast to `target`; DataException when it cannot be."""
    if value is None:
        return None
    source = inferred_type(value) if schema is None else schema.type
    if source is None:
        raise DataException(f"Cast transformation was passed a value of type {type(value).__name__} "
                            "which is not supported by Connect's data API")
    if source not in INPUT_TYPES:
        raise DataException(f"Cast transformation does not support casting from {source}; supported types are "
                            f"{', '.join(INPUT_TYPES)}")
    if schema is not None and schema.name is not None and target is not SchemaType.STRING:
        value = _encode_logical(schema, value)
    try:
        if target in _BITS:
            return _to_int(value, _BITS[target])
        if target in (SchemaType.FLOAT32, SchemaType.FLOAT64):
            return _to_float(value, target is SchemaType.FLOAT32)
        if target is SchemaType.BOOLEAN:
            return _to_bool(value)
        if target is SchemaType.STRING:
            return _to_string(value)
    except ValueError:
        raise DataException(f"Value ({value}) was out of range for requested data type") from None
    raise DataException(f"{target} is not supported in the Cast transformation.")
