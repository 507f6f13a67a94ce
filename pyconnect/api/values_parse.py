"""Connect's `Values.parseString`: header text back to the narrowest Connect value.

`true`/`false` are BOOLEAN, `null` a null, integers the smallest of INT8..INT64 that holds them (then a
Decimal of scale 0), other numbers FLOAT32 when finite as a float, else FLOAT64, else Decimal; ISO-8601
`yyyy-MM-dd`, `HH:mm:ss.SSSZ` and `yyyy-MM-ddTHH:mm:ss.SSSZ` are Date, Time and Timestamp; `[...]` is
an ARRAY and `{k:v,...}` a MAP whose element schemas are the common schema of the elements (numbers
widen: INT8 < INT16 < INT32 < INT64 < FLOAT32 < FLOAT64), or None when the elements do not agree.
Anything else is the STRING itself.

Deliberate differences from Java's parser (each fixes a Java quirk, not a format):
- a top-level value must span the whole text: Java reads `10:30 meeting` as INT8 10, this the string;
- quoted strings inside lists and maps are unescaped (`\\"` is `"`), so they round-trip;
- temporal literals are read in UTC with strict field ranges (Java's SimpleDateFormat is lenient);
- the common schema of logical (named) or container schemas that differ is None rather than the last.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

from pyconnect.api.converter import NULL_SCHEMA_AND_VALUE, SchemaAndValue
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
    DataException,
    Schema,
    SchemaBuilder,
    SchemaType,
    decimal_builder,
)
from pyconnect.api.numbers import to_float32
from pyconnect.api.values_tokens import Parser

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_TIME = re.compile(r"(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_UNESCAPE = re.compile(r"\\(.)", re.DOTALL)
_INTS = ((INT8_SCHEMA, 1 << 7), (INT16_SCHEMA, 1 << 15), (INT32_SCHEMA, 1 << 31), (INT64_SCHEMA, 1 << 63))
_RANK = {SchemaType.INT8: 0, SchemaType.INT16: 1, SchemaType.INT32: 2, SchemaType.INT64: 3,
         SchemaType.FLOAT32: 4, SchemaType.FLOAT64: 5}
_TEMPORAL = {DATE_SCHEMA.name, TIME_SCHEMA.name, TIMESTAMP_SCHEMA.name}


def parse_string(text: str | None) -> SchemaAndValue:
    """Values.parseString (see the module docstring)."""
    if text is None:
        return NULL_SCHEMA_AND_VALUE
    if not text:
        return SchemaAndValue(STRING_SCHEMA, text)
    parser = Parser(text)
    try:
        result = _parse(parser, embedded=False)
    except DataException:
        return SchemaAndValue(STRING_SCHEMA, text)
    if parser.has_more_content():
        return SchemaAndValue(STRING_SCHEMA, text)
    return result if result is not None else NULL_SCHEMA_AND_VALUE


def _parse(parser: Parser, embedded: bool) -> SchemaAndValue | None:
    """One value; None for a `null`."""
    if not parser.has_next():
        return None
    if embedded and parser.can_consume('"'):
        return _quoted(parser)
    for literal, result in (("null", None), ("true", SchemaAndValue(BOOLEAN_SCHEMA, True)),
                            ("false", SchemaAndValue(BOOLEAN_SCHEMA, False))):
        if parser.can_consume_literal(literal, embedded):
            return result
    start = parser.mark()
    try:
        if parser.can_consume("["):
            return _array(parser)
        if parser.can_consume("{"):
            return _map(parser)
    except DataException:
        parser.rewind_to(start)  # not a well-formed list or map: read it as text
    return _scalar(parser, embedded)


def _quoted(parser: Parser) -> SchemaAndValue:
    parts: list[str] = []
    while parser.has_next():
        if parser.can_consume('"', trim=False):
            break
        parts.append(parser.next())
    content = _UNESCAPE.sub(r"\1", "".join(parts))
    temporal = _temporal(content)
    return temporal if temporal is not None else SchemaAndValue(STRING_SCHEMA, content)


def _array(parser: Parser) -> SchemaAndValue:
    items: list[Any] = []
    element: Schema | None = None
    mixed = False
    while parser.has_next():
        if parser.can_consume("]"):
            return SchemaAndValue(SchemaBuilder.array(element).build(), _align(element, items))
        if parser.can_consume(","):
            raise DataException(f"Unable to parse an empty array element: {parser.original}")
        parsed = _parse(parser, embedded=True)
        element, mixed = merge_schema(element, mixed, parsed)
        items.append(parsed.value if parsed is not None else None)
        position = parser.mark()
        if parser.can_consume("]"):
            parser.rewind_to(position)
        elif not parser.can_consume(","):
            raise DataException("Array elements missing ',' delimiter")
    raise DataException(f"Array is missing terminating ']': {parser.original}")


def _map(parser: Parser) -> SchemaAndValue:
    entries: dict[Any, Any] = {}
    keys: Schema | None = None
    values: Schema | None = None
    mixed_keys = mixed_values = False
    while parser.has_next():
        if parser.can_consume("}"):
            schema = SchemaBuilder.map(keys, values).build()
            aligned = dict(zip(_align(keys, list(entries)), _align(values, list(entries.values())), strict=True))
            return SchemaAndValue(schema, aligned)
        if parser.can_consume(","):
            raise DataException(f"Unable to parse a map entry with no key or value: {parser.original}")
        key = _parse(parser, embedded=True)
        if key is None or key.value is None:
            raise DataException(f"Map entry may not have a null key: {parser.original}")
        if not parser.can_consume(":"):
            raise DataException(f"Map entry is missing ':' in {parser.original}")
        value = _parse(parser, embedded=True)
        try:
            entries[key.value] = value.value if value is not None else None
        except TypeError:
            raise DataException(f"Map key {key.value!r} cannot key a map") from None
        parser.can_consume(",")
        keys, mixed_keys = merge_schema(keys, mixed_keys, key)
        values, mixed_values = merge_schema(values, mixed_values, value)
    raise DataException(f"Map is missing terminating '}}': {parser.original}")


def merge_schema(previous: Schema | None, mixed: bool, latest: SchemaAndValue | None) -> tuple[Schema | None, bool]:
    """Values.commonSchemaFor over a list's or map's elements so far: (the common schema, whether they
    already disagree). Nulls fit any schema; once elements disagree the schema stays None."""
    if mixed or latest is None or latest.schema is None:
        return previous, mixed
    if previous is None:
        return latest.schema, False
    common = common_schema(previous, latest.schema)
    return common, common is None


def common_schema(previous: Schema, new: Schema) -> Schema | None:
    """The schema both fit: equal schemas, or the wider of two numbers; else None."""
    if previous == new:
        return previous
    if previous.name is None and new.name is None and previous.type in _RANK and new.type in _RANK:
        return previous if _RANK[previous.type] >= _RANK[new.type] else new
    return None


def _align(schema: Schema | None, values: list[Any]) -> list[Any]:
    """Values.alignListEntriesWithSchema for numbers: ints widened to a FLOAT schema become floats."""
    if schema is None or schema.name is not None or schema.type not in (SchemaType.FLOAT32, SchemaType.FLOAT64):
        return values
    convert = to_float32 if schema.type is SchemaType.FLOAT32 else float
    return [convert(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in values]


def _scalar(parser: Parser, embedded: bool) -> SchemaAndValue:
    token = parser.next()
    if not token.strip():
        return SchemaAndValue(STRING_SCHEMA, token)
    token = token.strip()
    if token[0].isdigit():
        # A time or timestamp is split by its colons into five tokens.
        position = parser.mark()
        rest = parser.next_n(4)
        if rest is not None:
            temporal = _temporal(token + rest)
            if temporal is not None:
                return temporal
        parser.rewind_to(position)
        temporal = _temporal(token)
        if temporal is not None:
            return temporal
    if token[0].isdigit() or token[0] in "+-":
        number = parse_number(token)
        if number is not None:
            return number
    if embedded:
        raise DataException("Failed to parse embedded value")
    return SchemaAndValue(STRING_SCHEMA, parser.original)


def parse_number(token: str) -> SchemaAndValue | None:
    """The narrowest numeric schema for a BigDecimal literal, as Values.parse picks it; None if not one."""
    if not _NUMBER.fullmatch(token):
        return None
    decimal = Decimal(token)
    # adjusted() bounds the digits before the point: past 19 no long holds it, and int() of a literal
    # like 1e999999999 would build a billion-digit integer.
    if decimal.adjusted() < 19 and decimal == decimal.to_integral_value():
        whole = int(decimal)
        for schema, bound in _INTS:
            if -bound <= whole < bound:
                return SchemaAndValue(schema, whole)
    exponent = decimal.as_tuple().exponent
    assert isinstance(exponent, int)
    if exponent != 0:  # BigDecimal.scale() != 0
        as_float32 = to_float32(float(decimal))
        if abs(as_float32) != float("inf"):
            return SchemaAndValue(FLOAT32_SCHEMA, as_float32)
        as_double = float(decimal)
        if abs(as_double) != float("inf"):
            return SchemaAndValue(FLOAT64_SCHEMA, as_double)
    return SchemaAndValue(decimal_builder(-exponent).build(), decimal)


def _temporal(token: str) -> SchemaAndValue | None:
    """A Date, Time or Timestamp literal (escaped colons allowed), else None."""
    token = token.replace("\\:", ":")
    try:
        if len(token) == 13 and (m := _TIME.fullmatch(token)):
            hour, minute, second, milli = (int(g) for g in m.groups())
            return SchemaAndValue(TIME_SCHEMA, dt.time(hour, minute, second, milli * 1000))
        if len(token) == 10 and (m := _DATE.fullmatch(token)):
            return SchemaAndValue(DATE_SCHEMA, dt.date(*(int(g) for g in m.groups())))
        if len(token) == 24 and token[10] == "T" and (d := _DATE.fullmatch(token[:10])) \
                and (t := _TIME.fullmatch(token[11:])):
            day = dt.date(*(int(g) for g in d.groups()))
            hour, minute, second, milli = (int(g) for g in t.groups())
            return SchemaAndValue(TIMESTAMP_SCHEMA, dt.datetime.combine(
                day, dt.time(hour, minute, second, milli * 1000), tzinfo=dt.UTC))
    except ValueError:
        return None  # a field out of range
    return None
