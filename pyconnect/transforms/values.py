"""Connect's `Values` conversions that transforms use: inferring a schema'd value from a literal string
(InsertHeader's `value.literal`) and printing date/time values (Cast to string)."""

from __future__ import annotations

import datetime as dt
import re
import struct
from decimal import Decimal, InvalidOperation
from typing import Any

from pyconnect.api.data import (
    BOOLEAN_SCHEMA,
    DATE_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    STRING_SCHEMA,
    TIME_SCHEMA,
    TIMESTAMP_SCHEMA,
    Schema,
    logical_to_millis,
    timestamp_from_millis,
)
from pyconnect.transforms.java_text import SimpleDateFormat

MILLIS_PER_DAY = 86_400_000
DATE_FORMAT = SimpleDateFormat("yyyy-MM-dd")
TIME_FORMAT = SimpleDateFormat("HH:mm:ss.SSS'Z'")
TIMESTAMP_FORMAT = SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")

_INT_SCHEMAS = ((8, INT8_SCHEMA), (16, INT16_SCHEMA), (32, INT32_SCHEMA), (64, INT64_SCHEMA))
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME = re.compile(r"\d{2}:\d{2}:\d{2}\.\d{3}Z")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")


def date_format_for(value: dt.date | dt.time) -> SimpleDateFormat:
    """Connect's `Values.dateFormatFor`: chosen by the instant, as Java sees a java.util.Date."""
    millis = logical_to_millis(value)
    if 0 <= millis < MILLIS_PER_DAY:
        return TIME_FORMAT
    return DATE_FORMAT if millis % MILLIS_PER_DAY == 0 else TIMESTAMP_FORMAT


def format_logical(value: dt.date | dt.time) -> str:
    return date_format_for(value).format(timestamp_from_millis(logical_to_millis(value)))


def _number(text: str) -> tuple[Schema, Any] | None:
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    if not number.is_finite():
        return None
    if number == number.to_integral_value() and "." not in text and "e" not in text.lower():
        whole = int(number)
        for bits, schema in _INT_SCHEMAS:
            if -(1 << bits - 1) <= whole < 1 << bits - 1:
                return schema, whole
        return None
    as_float = float(number)
    # FLOAT32 only when the literal survives a float32 round trip, else FLOAT64 (Connect's preference).
    if struct.unpack("f", struct.pack("f", as_float))[0] == as_float:
        return FLOAT32_SCHEMA, as_float
    return FLOAT64_SCHEMA, as_float


def _temporal(text: str) -> tuple[Schema, Any] | None:
    if _TIMESTAMP.fullmatch(text):
        return TIMESTAMP_SCHEMA, dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.UTC)
    if _DATE.fullmatch(text):
        return DATE_SCHEMA, dt.date.fromisoformat(text)
    if _TIME.fullmatch(text):
        return TIME_SCHEMA, dt.datetime.strptime(text, "%H:%M:%S.%fZ").time()
    return None


def parse_string(text: str) -> tuple[Schema | None, Any]:
    """The schema and value Connect infers for a literal (Values.parseString): booleans, the smallest
    integer type that holds it, floats, ISO dates/times/timestamps, otherwise the string itself."""
    if text == "":
        return STRING_SCHEMA, text
    stripped = text.strip()
    if stripped.lower() in ("true", "false"):
        return BOOLEAN_SCHEMA, stripped.lower() == "true"
    return _number(stripped) or _temporal(stripped) or (STRING_SCHEMA, text)
