"""Connect's `Values.convertToString`: any Connect value as the text SimpleHeaderConverter writes.

Strings and bytes (base64) are bare at the top level and quoted inside lists and maps (`\\` and `"`
escaped), numbers and booleans as Java prints them (a FLOAT32 with `Float.toString`), lists as
`[a,b]`, maps and structs as `{"k":v}`, dates and times in ISO-8601 chosen as Java's
`Values.dateFormatFor` chooses: by the epoch milliseconds, before one day a time, on a day boundary a
date, else a timestamp.
"""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from pyconnect.api.config import java_double_string
from pyconnect.api.data import EPOCH, DataException, Schema, SchemaType, Struct, logical_to_millis
from pyconnect.api.numbers import java_float_string

MILLIS_PER_DAY = 86_400_000


def convert_to_string(schema: Schema | None, value: Any) -> str | None:
    """Values.convertToString: the text of `value` (None for None). `schema`, where given, tells a
    FLOAT32 (which Java knows by the value's class) from a FLOAT64."""
    if value is None:
        return None
    out: list[str] = []
    _append(out, schema, value, embedded=False)
    return "".join(out)


def escape(text: str) -> str:
    """Values.escape: backslashes doubled, then quotes backslash-escaped."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def format_temporal(value: dt.date | dt.time) -> str:
    """Values.dateFormatFor and the format it picks, in UTC."""
    millis = logical_to_millis(value)
    moment = EPOCH + dt.timedelta(milliseconds=millis)
    clock = f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}.{moment.microsecond // 1000:03d}Z"
    if millis < MILLIS_PER_DAY:
        return clock
    day = f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
    return day if millis % MILLIS_PER_DAY == 0 else f"{day}T{clock}"


def _number(schema: Schema | None, value: int | float | Decimal) -> str:
    if isinstance(value, float):
        if schema is not None and schema.type is SchemaType.FLOAT32:
            return java_float_string(value)
        return java_double_string(value)
    return str(value)  # int, and Decimal (BigDecimal.toString uses the same notation)


def _append(out: list[str], schema: Schema | None, value: Any, embedded: bool) -> None:
    if value is None:
        out.append("null")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, (int, float, Decimal)):
        out.append(_number(schema, value))
    elif isinstance(value, str):
        out.append(f'"{escape(value)}"' if embedded else value)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        text = base64.b64encode(value).decode("ascii")
        out.append(f'"{text}"' if embedded else text)
    elif isinstance(value, (list, tuple)):
        items = schema.value_schema if schema is not None else None
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _append(out, items, item, embedded=True)
        out.append("]")
    elif isinstance(value, Mapping):
        _append_map(out, schema, value)
    elif isinstance(value, Struct):
        out.append("{")
        for i, f in enumerate(value.schema.fields):
            if i:
                out.append(",")
            _append(out, None, f.name, embedded=True)
            out.append(":")
            _append(out, f.schema, value.get(f), embedded=True)
        out.append("}")
    elif isinstance(value, (dt.date, dt.time)):
        out.append(format_temporal(value))
    else:
        raise DataException(f"Failed to serialize unexpected value type {type(value).__qualname__}: {value!r}")


def _append_map(out: list[str], schema: Schema | None, value: Mapping[Any, Any]) -> None:
    keys = schema.key_schema if schema is not None else None
    values = schema.value_schema if schema is not None else None
    out.append("{")
    for i, (k, v) in enumerate(value.items()):
        if i:
            out.append(",")
        _append(out, keys, k, embedded=True)
        out.append(":")
        _append(out, values, v, embedded=True)
    out.append("}")
