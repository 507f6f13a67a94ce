"""A minimal Connect data model (org.apache.kafka.connect.data): schemas, fields and structs.

Only what the single message transforms need: the primitive and container types, optional/default,
name/version/doc/parameters, struct fields, a builder that copies a schema's basics, and the logical
types by their Connect names. Values are plain Python objects: int for INT8..INT64, float for
FLOAT32/64, bool, str, bytes, list, dict, and `Struct`; the logical types use decimal.Decimal
(Decimal), datetime.date (Date), datetime.time (Time) and timezone-aware datetime.datetime (Timestamp).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import Any


class DataException(Exception):
    """A value does not fit its schema, or a transform cannot handle the data it was given."""


class SchemaType(StrEnum):
    INT8 = "INT8"
    INT16 = "INT16"
    INT32 = "INT32"
    INT64 = "INT64"
    FLOAT32 = "FLOAT32"
    FLOAT64 = "FLOAT64"
    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    BYTES = "BYTES"
    ARRAY = "ARRAY"
    MAP = "MAP"
    STRUCT = "STRUCT"


DECIMAL_NAME = "org.apache.kafka.connect.data.Decimal"
DATE_NAME = "org.apache.kafka.connect.data.Date"
TIME_NAME = "org.apache.kafka.connect.data.Time"
TIMESTAMP_NAME = "org.apache.kafka.connect.data.Timestamp"
DECIMAL_SCALE = "scale"
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

_INT_BITS = {SchemaType.INT8: 8, SchemaType.INT16: 16, SchemaType.INT32: 32, SchemaType.INT64: 64}


@dataclass(frozen=True)
class Field:
    """One field of a struct schema: its name, position and schema (Connect's Field)."""

    name: str
    index: int
    schema: Schema


@dataclass(frozen=True)
class Schema:
    """An immutable Connect schema (ConnectSchema). Equal when every attribute is equal."""

    type: SchemaType
    optional: bool = False
    default_value: Any = None
    name: str | None = None
    version: int | None = None
    doc: str | None = None
    parameters: Mapping[str, str] | None = None
    fields: tuple[Field, ...] = ()
    key_schema: Schema | None = None
    value_schema: Schema | None = None

    # Defined by hand because default values and parameters may be unhashable; schemas key caches.
    def __hash__(self) -> int:
        return hash((self.type, self.optional, self.name, self.version, tuple(f.name for f in self.fields)))

    def field(self, name: str) -> Field | None:
        """The struct field called `name`, or None; a DataException on a schema that is not a struct."""
        if self.type is not SchemaType.STRUCT:
            raise DataException("Cannot look up fields on non-struct type")
        for f in self.fields:
            if f.name == name:
                return f
        return None


class SchemaBuilder:
    """Builds a Schema step by step, as Connect's SchemaBuilder (each setter returns the builder)."""

    def __init__(self, schema_type: SchemaType) -> None:
        self.type = schema_type
        self._optional = False
        self._default: Any = None
        self._name: str | None = None
        self._version: int | None = None
        self._doc: str | None = None
        self._parameters: dict[str, str] | None = None
        self._fields: list[Field] = []
        self._key: Schema | None = None
        self._value: Schema | None = None

    @staticmethod
    def of(schema_type: SchemaType) -> SchemaBuilder:
        return SchemaBuilder(schema_type)

    @staticmethod
    def struct() -> SchemaBuilder:
        return SchemaBuilder(SchemaType.STRUCT)

    @staticmethod
    def array(value_schema: Schema | None) -> SchemaBuilder:
        """An ARRAY builder; a None element schema is Values' "array of anything" (SchemaBuilder.arrayOfNull)."""
        builder = SchemaBuilder(SchemaType.ARRAY)
        builder._value = value_schema
        return builder

    @staticmethod
    def map(key_schema: Schema | None, value_schema: Schema | None) -> SchemaBuilder:
        """A MAP builder; None key or value schemas are what Values and the JSON reader build for
        values of mixed types (SchemaBuilder.mapOfNull / mapWithNullValues)."""
        builder = SchemaBuilder(SchemaType.MAP)
        builder._key, builder._value = key_schema, value_schema
        return builder

    def optional(self) -> SchemaBuilder:
        self._optional = True
        return self

    def required(self) -> SchemaBuilder:
        self._optional = False
        return self

    def default_value(self, value: Any) -> SchemaBuilder:
        self._default = value
        return self

    def name(self, name: str | None) -> SchemaBuilder:
        self._name = name
        return self

    def version(self, version: int | None) -> SchemaBuilder:
        self._version = version
        return self

    def doc(self, doc: str | None) -> SchemaBuilder:
        self._doc = doc
        return self

    def parameters(self, parameters: Mapping[str, str] | None) -> SchemaBuilder:
        if parameters:
            self._parameters = {**(self._parameters or {}), **parameters}
        return self

    def field(self, name: str, schema: Schema | SchemaBuilder) -> SchemaBuilder:
        if self.type is not SchemaType.STRUCT:
            raise DataException("Cannot create fields on type " + self.type)
        if any(f.name == name for f in self._fields):
            raise DataException(f"Cannot create field because of field name duplication {name}")
        built = schema.build() if isinstance(schema, SchemaBuilder) else schema
        self._fields.append(Field(name, len(self._fields), built))
        return self

    def build(self) -> Schema:
        schema = Schema(self.type, self._optional, None, self._name, self._version, self._doc,
                        dict(self._parameters) if self._parameters else None, tuple(self._fields),
                        self._key, self._value)
        if self._default is None:
            return schema
        validate_value(schema, self._default, "default value")
        return Schema(self.type, self._optional, self._default, self._name, self._version, self._doc,
                      schema.parameters, schema.fields, self._key, self._value)


def copy_schema_basics(source: Schema, builder: SchemaBuilder | None = None) -> SchemaBuilder:
    """A builder with `source`'s name, version, doc and parameters (Connect's SchemaUtil.copySchemaBasics);
    a struct builder unless one is given. Fields, optionality and the default are not copied."""
    target = builder if builder is not None else SchemaBuilder.struct()
    return target.name(source.name).version(source.version).doc(source.doc).parameters(source.parameters)


def _primitive(schema_type: SchemaType, optional: bool = False) -> Schema:
    return Schema(schema_type, optional)


INT8_SCHEMA = _primitive(SchemaType.INT8)
INT16_SCHEMA = _primitive(SchemaType.INT16)
INT32_SCHEMA = _primitive(SchemaType.INT32)
INT64_SCHEMA = _primitive(SchemaType.INT64)
FLOAT32_SCHEMA = _primitive(SchemaType.FLOAT32)
FLOAT64_SCHEMA = _primitive(SchemaType.FLOAT64)
BOOLEAN_SCHEMA = _primitive(SchemaType.BOOLEAN)
STRING_SCHEMA = _primitive(SchemaType.STRING)
BYTES_SCHEMA = _primitive(SchemaType.BYTES)
OPTIONAL_INT8_SCHEMA = _primitive(SchemaType.INT8, True)
OPTIONAL_INT16_SCHEMA = _primitive(SchemaType.INT16, True)
OPTIONAL_INT32_SCHEMA = _primitive(SchemaType.INT32, True)
OPTIONAL_INT64_SCHEMA = _primitive(SchemaType.INT64, True)
OPTIONAL_FLOAT32_SCHEMA = _primitive(SchemaType.FLOAT32, True)
OPTIONAL_FLOAT64_SCHEMA = _primitive(SchemaType.FLOAT64, True)
OPTIONAL_BOOLEAN_SCHEMA = _primitive(SchemaType.BOOLEAN, True)
OPTIONAL_STRING_SCHEMA = _primitive(SchemaType.STRING, True)
OPTIONAL_BYTES_SCHEMA = _primitive(SchemaType.BYTES, True)


def decimal_builder(scale: int) -> SchemaBuilder:
    return SchemaBuilder(SchemaType.BYTES).name(DECIMAL_NAME).version(1).parameters({DECIMAL_SCALE: str(scale)})


def date_builder() -> SchemaBuilder:
    return SchemaBuilder(SchemaType.INT32).name(DATE_NAME).version(1)


def time_builder() -> SchemaBuilder:
    return SchemaBuilder(SchemaType.INT32).name(TIME_NAME).version(1)


def timestamp_builder() -> SchemaBuilder:
    return SchemaBuilder(SchemaType.INT64).name(TIMESTAMP_NAME).version(1)


DATE_SCHEMA = date_builder().build()
TIME_SCHEMA = time_builder().build()
TIMESTAMP_SCHEMA = timestamp_builder().build()


def timestamp_from_millis(millis: int) -> dt.datetime:
    """The Timestamp logical value of epoch milliseconds."""
    return EPOCH + dt.timedelta(milliseconds=millis)


def logical_to_millis(value: dt.date | dt.time) -> int:
    """Epoch milliseconds of a Date/Time/Timestamp value: Java's `java.util.Date.getTime()` of it."""
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return (aware - EPOCH) // dt.timedelta(milliseconds=1)
    if isinstance(value, dt.date):
        return (value - EPOCH.date()).days * 86_400_000
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000


_LOGICAL_CLASSES: dict[str, tuple[type, ...]] = {
    DECIMAL_NAME: (Decimal,), DATE_NAME: (dt.date,), TIME_NAME: (dt.time,), TIMESTAMP_NAME: (dt.datetime,),
}


def _fits(schema: Schema, value: Any) -> bool:
    logical = _LOGICAL_CLASSES.get(schema.name or "")
    if logical is not None:
        return isinstance(value, logical)
    t = schema.type
    if t in _INT_BITS:
        bits = _INT_BITS[t]
        return isinstance(value, int) and not isinstance(value, bool) and -(1 << bits - 1) <= value < 1 << bits - 1
    checks: dict[SchemaType, tuple[type, ...]] = {
        SchemaType.FLOAT32: (float,), SchemaType.FLOAT64: (float,), SchemaType.BOOLEAN: (bool,),
        SchemaType.STRING: (str,), SchemaType.BYTES: (bytes, bytearray), SchemaType.ARRAY: (list, tuple),
        SchemaType.MAP: (dict,), SchemaType.STRUCT: (Struct,),
    }
    return isinstance(value, checks[t])


def validate_value(schema: Schema, value: Any, what: str = "value") -> None:
    """Raise DataException unless `value` is valid for `schema` (Connect's ConnectSchema.validateValue)."""
    if value is None:
        if not schema.optional:
            raise DataException(f"Invalid value: null used for required {what}, schema type: {schema.type}")
        return
    if not _fits(schema, value):
        raise DataException(f"Invalid Java object for schema with type {schema.type}: {type(value)} for {what}")
    if schema.type is SchemaType.STRUCT and value.schema != schema:
        raise DataException(f"Struct schemas do not match for {what}.")
    if schema.type is SchemaType.ARRAY and schema.value_schema is not None:
        for item in value:
            validate_value(schema.value_schema, item, what)
    if schema.type is SchemaType.MAP and schema.key_schema is not None and schema.value_schema is not None:
        for k, v in value.items():
            validate_value(schema.key_schema, k, what)
            validate_value(schema.value_schema, v, what)


@dataclass(eq=False)
class Struct:
    """A value of a STRUCT schema (Connect's Struct): fields set with `put`, read with `get`."""

    schema: Schema
    _values: list[Any] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.schema.type is not SchemaType.STRUCT:
            raise DataException("Not a struct schema: " + str(self.schema))
        self._values = [None] * len(self.schema.fields)

    def _lookup(self, name: str | Field) -> Field:
        found = self.schema.field(name) if isinstance(name, str) else name
        if found is None:
            raise DataException(f"{name} is not a valid field name")
        return found

    def put(self, name: str | Field, value: Any) -> Struct:
        """Set a field, validating the value against the field's schema; returns the struct."""
        f = self._lookup(name)
        validate_value(f.schema, value, f'field: "{f.name}"')
        self._values[f.index] = value
        return self

    def get(self, name: str | Field) -> Any:
        """The field's value, or its schema's default when it is null."""
        f = self._lookup(name)
        value = self._values[f.index]
        return f.schema.default_value if value is None else value

    def get_without_default(self, name: str | Field) -> Any:
        return self._values[self._lookup(name).index]

    def validate(self) -> None:
        """Raise DataException if a required field without a default is unset."""
        for f in self.schema.fields:
            value = self._values[f.index]
            validate_value(f.schema, value if value is not None else f.schema.default_value, f'field: "{f.name}"')

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Struct) and self.schema == other.schema and self._values == other._values

    def __hash__(self) -> int:
        return hash(self.schema)

    def __repr__(self) -> str:
        inner = ",".join(f"{f.name}={self._values[f.index]!r}" for f in self.schema.fields)
        return f"Struct{{{inner}}}"
