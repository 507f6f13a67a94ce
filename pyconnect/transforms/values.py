"""Connect's `Values` date/time printing that transforms use (Cast to string). Parsing a literal
(Values.parseString, InsertHeader's `value.literal`) is pyconnect.api.values_parse."""

from __future__ import annotations

import datetime as dt

from pyconnect.api.data import logical_to_millis, timestamp_from_millis
from pyconnect.transforms.java_text import SimpleDateFormat

MILLIS_PER_DAY = 86_400_000
DATE_FORMAT = SimpleDateFormat("yyyy-MM-dd")
TIME_FORMAT = SimpleDateFormat("HH:mm:ss.SSS'Z'")
TIMESTAMP_FORMAT = SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")


def date_format_for(value: dt.date | dt.time) -> SimpleDateFormat:
    """Connect's `Values.dateFormatFor`: chosen by the instant, as Java sees a java.util.Date."""
    millis = logical_to_millis(value)
    if 0 <= millis < MILLIS_PER_DAY:
        return TIME_FORMAT
    return DATE_FORMAT if millis % MILLIS_PER_DAY == 0 else TIMESTAMP_FORMAT


def format_logical(value: dt.date | dt.time) -> str:
    return date_format_for(value).format(timestamp_from_millis(logical_to_millis(value)))
