"""TimestampConverter: converts a timestamp between string, unix epoch, Date, Time and Timestamp, for
the whole key/value or one field of it (Connect's TimestampConverter$Key / TimestampConverter$Value).

Invariant: every conversion goes through epoch milliseconds (Java's java.util.Date pivot), so sub-
millisecond precision of a `unix.precision` of micro- or nanoseconds is lost, as in Connect. String
timestamps are read and written in UTC with the SimpleDateFormat pattern `format`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigException, ConfigKey, ConfigType, Importance
from pyconnect.api.data import (
    DATE_NAME,
    EPOCH,
    TIME_NAME,
    TIMESTAMP_NAME,
    DataException,
    Schema,
    SchemaBuilder,
    SchemaType,
    Struct,
    copy_schema_basics,
    date_builder,
    logical_to_millis,
    time_builder,
    timestamp_builder,
    timestamp_from_millis,
)
from pyconnect.transforms.java_text import SimpleDateFormat
from pyconnect.transforms.record import ConnectRecord
from pyconnect.transforms.requirements import require_map_or_null, require_struct_or_null
from pyconnect.transforms.simple_config import REPLACE_NULL_WITH_DEFAULT, one_of_lower, simple_config
from pyconnect.transforms.spi import KeyOrValue, OnKey, OnValue, Transformation

TYPES = ("string", "unix", "Date", "Time", "Timestamp")
PRECISIONS = ("nanoseconds", "microseconds", "milliseconds", "seconds")
PURPOSE = "converting timestamp formats"
MILLIS_PER_DAY = 86_400_000
# Milliseconds per unit of each `unix.precision`, as a (multiplier, divisor) pair.
_PER_MILLI = {"seconds": (1, 1000), "milliseconds": (1, 1), "microseconds": (1000, 1), "nanoseconds": (1_000_000, 1)}


def _truncated(value: int, divisor: int) -> int:
    """Java's TimeUnit conversion: integer division rounding toward zero."""
    return value // divisor if value >= 0 else -((-value) // divisor)


def type_schema(target: str, optional: bool) -> Schema:
    """The schema of a converted value (optional when the input was)."""
    builder = {"string": lambda: SchemaBuilder(SchemaType.STRING), "unix": lambda: SchemaBuilder(SchemaType.INT64),
               "Date": date_builder, "Time": time_builder, "Timestamp": timestamp_builder}[target]()
    return (builder.optional() if optional else builder).build()


def schema_type(schema: Schema) -> str:
    """The timestamp type a schema carries; DataException for one that carries none."""
    logical = {TIMESTAMP_NAME: "Timestamp", DATE_NAME: "Date", TIME_NAME: "Time"}.get(schema.name or "")
    if logical is not None:
        return logical
    if schema.type is SchemaType.INT64:
        return "unix"
    if schema.type is SchemaType.STRING:
        return "string"
    raise DataException(f"Schema {schema} does not correspond to a known timestamp type format")


def value_type(value: Any) -> str:
    """The timestamp type of a schemaless value, inferred from its Python type."""
    if isinstance(value, str):
        return "string"
    if isinstance(value, int) and not isinstance(value, bool):
        return "unix"
    if isinstance(value, dt.datetime):
        return "Timestamp"
    if isinstance(value, dt.date):
        return "Date"
    if isinstance(value, dt.time):
        return "Time"
    raise DataException(f"TimestampConverter does not support {type(value)} objects as timestamps")


class TimestampConverter(Transformation, KeyOrValue):
    """Shared logic; use TimestampConverter$Key or TimestampConverter$Value."""

    CONFIG_DEF = ConfigDef([
        ConfigKey("field", ConfigType.STRING, "", Importance.HIGH,
                  "The field containing the timestamp, or empty if the entire value is a timestamp"),
        ConfigKey("target.type", ConfigType.STRING, importance=Importance.HIGH,
                  documentation="The desired timestamp representation: string, unix, Date, Time, or Timestamp",
                  validator=one_of_lower(*TYPES)),
        ConfigKey("format", ConfigType.STRING, "", Importance.MEDIUM,
                  "A SimpleDateFormat-compatible format for the timestamp. Used to generate the output when "
                  "type=string or used to parse the input if the input is a string."),
        ConfigKey("unix.precision", ConfigType.STRING, "milliseconds", Importance.LOW,
                  "The desired Unix precision for the timestamp: seconds, milliseconds, microseconds, or "
                  "nanoseconds. Used to generate the output when type=unix or used to parse the input if the "
                  "input is a Long. Note: This SMT will cause precision loss during conversions from, and to, "
                  "values with sub-millisecond components.", validator=one_of_lower(*PRECISIONS)),
        REPLACE_NULL_WITH_DEFAULT,
    ])

    def __init__(self) -> None:
        self._field = ""
        self._target = "Timestamp"
        self._format: SimpleDateFormat | None = None
        self._precision = "milliseconds"
        self._replace_null = True
        self._schema_cache: dict[Schema, Schema] = {}

    def config_def(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, config: Mapping[str, Any]) -> None:
        values = simple_config(self.CONFIG_DEF, config)
        self._field, self._target = values["field"], values["target.type"]
        self._precision, self._replace_null = values["unix.precision"], values["replace.null.with.default"]
        pattern = str(values["format"] or "").strip()
        if self._target == "string" and not pattern:
            raise ConfigException("TimestampConverter requires format option to be specified when using string "
                                  "timestamps")
        self._format = None
        if pattern:
            try:
                self._format = SimpleDateFormat(pattern)
            except ValueError:
                raise ConfigException("TimestampConverter requires a SimpleDateFormat-compatible pattern for "
                                      f"string timestamps: {pattern}") from None
        self._schema_cache = {}

    # the pivot: epoch milliseconds ------------------------------------------------------------

    def _to_millis(self, value: Any, kind: str) -> int:
        if kind == "string":
            if self._format is None:
                raise DataException("TimestampConverter requires format option to be specified when using "
                                    "string timestamps")
            try:
                return logical_to_millis(self._format.parse(str(value)))
            except ValueError:
                raise DataException(f"Could not parse timestamp: value ({value}) does not match pattern "
                                    f"({self._format.pattern})") from None
        if kind == "unix":
            multiplier, divisor = _PER_MILLI[self._precision]
            return _truncated(int(value), multiplier) * divisor
        return logical_to_millis(value)

    def _from_millis(self, millis: int) -> Any:
        target = self._target
        if target == "string":
            assert self._format is not None  # configure requires a format for string targets
            return self._format.format(timestamp_from_millis(millis))
        if target == "unix":
            multiplier, divisor = _PER_MILLI[self._precision]
            return _truncated(millis, divisor) * multiplier
        if target == "Date":
            return EPOCH.date() + dt.timedelta(days=millis // MILLIS_PER_DAY)
        if target == "Time":
            return (EPOCH + dt.timedelta(milliseconds=millis % MILLIS_PER_DAY)).time()
        return timestamp_from_millis(millis)

    def _convert(self, value: Any, kind: str | None) -> Any:
        if value is None:
            return None
        return self._from_millis(self._to_millis(value, kind or value_type(value)))

    # records ------------------------------------------------------------------------------------

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema = self.operating_schema(record)
        value = self.operating_value(record)
        if schema is None:
            if not self._field:
                return self.updated(record, None, self._convert(value, None))
            data = require_map_or_null(value, PURPOSE)
            if data is None:
                return self.updated(record, None, None)
            updated = dict(data)
            updated[self._field] = self._convert(data.get(self._field), None)
            return self.updated(record, None, updated)
        if not self._field:
            return self.updated(record, type_schema(self._target, schema.optional),
                                self._convert(value, schema_type(schema)))
        return self._apply_to_field(record, schema, require_struct_or_null(value, PURPOSE))

    def _apply_to_field(self, record: ConnectRecord, schema: Schema, struct: Struct | None) -> ConnectRecord:
        updated = self._schema_cache.get(schema)
        if updated is None:
            builder = copy_schema_basics(schema, SchemaBuilder.struct())
            if schema.optional:
                builder.optional()
            for f in schema.fields:
                builder.field(f.name, type_schema(self._target, f.schema.optional) if f.name == self._field
                              else f.schema)
            updated = self._schema_cache[schema] = builder.build()
        if struct is None:
            return self.updated(record, updated, None)
        out = Struct(updated)
        for f in schema.fields:
            item = struct.get(f.name) if self._replace_null else struct.get_without_default(f.name)
            out.put(f.name, self._convert(item, schema_type(f.schema)) if f.name == self._field else item)
        return self.updated(record, updated, out)


class TimestampConverterKey(OnKey, TimestampConverter):
    """TimestampConverter on the record key (Connect's TimestampConverter$Key)."""


class TimestampConverterValue(OnValue, TimestampConverter):
    """TimestampConverter on the record value (Connect's TimestampConverter$Value)."""
