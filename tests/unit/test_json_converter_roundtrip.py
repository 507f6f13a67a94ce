"""Property: JsonConverter's fromConnectData then toConnectData gives back the schema and the value
(the round trip JsonConverterTest checks case by case), for generated schemas and values."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pyconnect.api.converter import SchemaAndValue
from pyconnect.api.data import (
    DATE_NAME,
    DECIMAL_NAME,
    TIME_NAME,
    TIMESTAMP_NAME,
    Schema,
    SchemaBuilder,
    SchemaType,
    Struct,
    date_builder,
    decimal_builder,
    time_builder,
    timestamp_builder,
)
from pyconnect.api.numbers import to_float32
from pyconnect.converters import deserializer_for, schema_serializer_for
from tests.hypothesis_profiles import examples

JSON = "org.apache.kafka.connect.json.JsonConverter"
_PRIMITIVES = [SchemaType.INT8, SchemaType.INT16, SchemaType.INT32, SchemaType.INT64, SchemaType.FLOAT32,
               SchemaType.FLOAT64, SchemaType.BOOLEAN, SchemaType.STRING, SchemaType.BYTES]
_BITS = {SchemaType.INT8: 8, SchemaType.INT16: 16, SchemaType.INT32: 32, SchemaType.INT64: 64}
_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)


def _finish(builder: SchemaBuilder, draw: Any) -> Schema:
    if draw(st.booleans()):
        builder.optional()
    if draw(st.integers(0, 3)) == 0:
        builder.doc(draw(st.text(max_size=5)))
    return builder.build()


@st.composite
def primitive_schemas(draw: Any) -> Schema:
    kind = draw(st.integers(0, 4))
    if kind == 0:
        builder = decimal_builder(draw(st.integers(-2, 6)))
    elif kind == 1:
        builder = draw(st.sampled_from([date_builder, time_builder, timestamp_builder]))()
    else:
        builder = SchemaBuilder(draw(st.sampled_from(_PRIMITIVES)))
        if draw(st.integers(0, 3)) == 0:
            builder.name("com.example." + draw(_NAMES)).version(draw(st.integers(1, 5)))
            builder.parameters(draw(st.dictionaries(_NAMES, st.text(max_size=4), max_size=2)))
    return _finish(builder, draw)


def schemas() -> st.SearchStrategy[Schema]:
    def containers(children: st.SearchStrategy[Schema]) -> st.SearchStrategy[Schema]:
        @st.composite
        def build(draw: Any) -> Schema:
            kind = draw(st.integers(0, 2))
            if kind == 0:
                return _finish(SchemaBuilder.array(draw(children)), draw)
            if kind == 1:
                keys = draw(st.sampled_from([SchemaType.STRING, SchemaType.INT32, SchemaType.INT64]))
                return _finish(SchemaBuilder.map(Schema(keys), draw(children)), draw)
            builder = SchemaBuilder.struct()
            for name in draw(st.lists(_NAMES, unique=True, max_size=4)):
                builder.field(name, draw(children))
            return _finish(builder, draw)
        return build()
    return st.recursive(primitive_schemas(), containers, max_leaves=8)


def _logical(draw: Any, schema: Schema) -> Any:
    if schema.name == DATE_NAME:
        return draw(st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31)))
    if schema.name == TIME_NAME:
        return draw(st.times()).replace(microsecond=draw(st.integers(0, 999)) * 1000)
    if schema.name == TIMESTAMP_NAME:
        moment = draw(st.datetimes(dt.datetime(1, 1, 2), dt.datetime(9999, 12, 30), timezones=st.just(dt.UTC)))
        return moment.replace(microsecond=moment.microsecond // 1000 * 1000)
    scale = int((schema.parameters or {})["scale"])
    unscaled = draw(st.integers(-(10 ** 30), 10 ** 30))
    return Decimal((0 if unscaled >= 0 else 1, tuple(int(d) for d in str(abs(unscaled))), -scale))


@st.composite
def values_of(draw: Any, schema: Schema) -> Any:
    if schema.optional and draw(st.integers(0, 4)) == 0:
        return None
    if schema.name in (DATE_NAME, TIME_NAME, TIMESTAMP_NAME, DECIMAL_NAME):
        return _logical(draw, schema)
    t = schema.type
    if t in _BITS:
        half = 1 << (_BITS[t] - 1)
        return draw(st.integers(-half, half - 1))
    if t is SchemaType.FLOAT32:
        return to_float32(draw(st.floats(width=32, allow_nan=False, allow_infinity=False)))
    if t is SchemaType.FLOAT64:
        return draw(st.floats(allow_nan=False, allow_infinity=False))
    simple = {SchemaType.BOOLEAN: st.booleans(), SchemaType.STRING: st.text(max_size=8),
              SchemaType.BYTES: st.binary(max_size=8)}
    if t in simple:
        return draw(simple[t])
    assert schema.value_schema is not None or t is SchemaType.STRUCT
    if t is SchemaType.ARRAY:
        assert schema.value_schema is not None
        return draw(st.lists(values_of(schema.value_schema), max_size=3))
    if t is SchemaType.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        return draw(st.dictionaries(values_of(schema.key_schema), values_of(schema.value_schema), max_size=3))
    struct = Struct(schema)
    for f in schema.fields:
        struct.put(f, draw(values_of(f.schema)))
    return struct


@st.composite
def schemas_and_values(draw: Any) -> SchemaAndValue:
    schema = draw(schemas())
    return SchemaAndValue(schema, draw(values_of(schema)))


@settings(max_examples=examples(300), deadline=None)
@given(schemas_and_values(), st.sampled_from(["BASE64", "NUMERIC"]))
def test_from_connect_then_to_connect_round_trips(data: SchemaAndValue, decimal_format: str) -> None:
    """JsonConverterTest's ...ToJson / ...ToConnect pairs, generalised."""
    configs = {"decimal.format": decimal_format}
    written = schema_serializer_for(JSON, configs, False)("t", data.schema, data.value)
    assert written is not None
    back = deserializer_for(JSON, configs, False)("t", written)
    assert back.schema == data.schema
    assert back.value == data.value
    if isinstance(data.value, Decimal):
        assert back.value.as_tuple().exponent == data.value.as_tuple().exponent


@settings(max_examples=examples(200), deadline=None)
@given(schemas_and_values())
def test_payload_round_trips_without_envelope(data: SchemaAndValue) -> None:
    """With schemas.enable=false the payload alone is written; read back schemaless, it is the JSON tree."""
    configs = {"schemas.enable": "false"}
    written = schema_serializer_for(JSON, configs, False)("t", data.schema, data.value)
    back = deserializer_for(JSON, configs, False)("t", written)
    assert back.schema is None
    enveloped = schema_serializer_for(JSON, {}, False)("t", data.schema, data.value)
    assert enveloped is not None and written is not None
    assert b'"payload":' + written + b"}" == enveloped[enveloped.index(b'"payload":'):]
