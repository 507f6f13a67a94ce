"""Connect schemas to and from JsonConverter's JSON schema layout (asJsonSchema / asConnectSchema).

`{"type": "struct", "fields": [{"type": "int32", "optional": false, "field": "a"}], "optional": false,
"name": ..., "version": ..., "doc": ..., "parameters": {...}, "default": ...}`; arrays carry "items",
maps "keys" and "values". Both directions keep an LRU cache of `schemas.cache.size` entries, as Java
does: a sink reads the same schema in every record of a topic.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Generic, TypeVar

import orjson

from pyconnect.api.data import DECIMAL_NAME, DataException, Schema, SchemaBuilder, SchemaType
from pyconnect.converters.json_read import JsonReader
from pyconnect.converters.json_write import JsonWriter

_TYPE_NAMES = {
    SchemaType.BOOLEAN: "boolean", SchemaType.INT8: "int8", SchemaType.INT16: "int16",
    SchemaType.INT32: "int32", SchemaType.INT64: "int64", SchemaType.FLOAT32: "float",
    SchemaType.FLOAT64: "double", SchemaType.BYTES: "bytes", SchemaType.STRING: "string",
    SchemaType.ARRAY: "array", SchemaType.MAP: "map", SchemaType.STRUCT: "struct",
}
_TYPES = {name: t for t, name in _TYPE_NAMES.items()}

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """Kafka's LRUCache: at most `size` entries, the least recently used evicted first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)


def has_decimal(schema: Schema | None) -> bool:
    """Whether a Decimal appears anywhere in `schema` (its numbers must then be read exactly)."""
    if schema is None:
        return False
    if schema.name == DECIMAL_NAME:
        return True
    return (any(has_decimal(f.schema) for f in schema.fields)
            or has_decimal(schema.key_schema) or has_decimal(schema.value_schema))


class SchemaTranslator:
    """Both directions, cached, for one converter's settings."""

    def __init__(self, cache_size: int, writer: JsonWriter, reader: JsonReader) -> None:
        self.writer = writer
        self.reader = reader
        self.to_json_cache: LruCache[Schema, dict[str, Any]] = LruCache(cache_size)
        self.to_connect_cache: LruCache[bytes, tuple[Schema, bool]] = LruCache(cache_size)

    def as_json_schema(self, schema: Schema) -> dict[str, Any]:
        """The JSON layout of `schema` (asJsonSchema)."""
        cached = self.to_json_cache.get(schema)
        if cached is not None:
            return cached
        node: dict[str, Any] = {"type": _TYPE_NAMES[schema.type]}
        if schema.type is SchemaType.ARRAY:
            node["items"] = self._optional_json(schema.value_schema)
        elif schema.type is SchemaType.MAP:
            node["keys"] = self._optional_json(schema.key_schema)
            node["values"] = self._optional_json(schema.value_schema)
        elif schema.type is SchemaType.STRUCT:
            node["fields"] = [{**self.as_json_schema(f.schema), "field": f.name} for f in schema.fields]
        node["optional"] = schema.optional
        if schema.name is not None:
            node["name"] = schema.name
        if schema.version is not None:
            node["version"] = schema.version
        if schema.doc is not None:
            node["doc"] = schema.doc
        if schema.parameters is not None:
            node["parameters"] = dict(schema.parameters)
        if schema.default_value is not None:
            node["default"] = self.writer.to_json(schema, schema.default_value)
        self.to_json_cache.put(schema, node)
        return node

    def _optional_json(self, schema: Schema | None) -> dict[str, Any] | None:
        return None if schema is None else self.as_json_schema(schema)

    def as_connect_schema(self, node: Any) -> Schema | None:
        """The Connect schema of a JSON schema node (asConnectSchema); None for a JSON null."""
        return self.read_schema(node)[0]

    def read_schema(self, node: Any) -> tuple[Schema | None, bool]:
        """as_connect_schema, and whether the schema holds a Decimal (its numbers must be read exactly)."""
        if node is None:
            return None, False
        # Java keys its cache by the JsonNode, whose equality ignores field order: so do sorted keys.
        key = orjson.dumps(node, option=orjson.OPT_SORT_KEYS)
        cached = self.to_connect_cache.get(key)
        if cached is not None:
            return cached
        schema = self._build(node)
        entry = (schema, has_decimal(schema))
        self.to_connect_cache.put(key, entry)
        return entry

    def _build(self, node: Any) -> Schema:
        if not isinstance(node, dict) or not isinstance(node.get("type"), str):
            raise DataException("Schema must contain 'type' field")
        type_name = node["type"]
        schema_type = _TYPES.get(type_name)
        if schema_type is None:
            raise DataException(f"Unknown schema type: {type_name}")
        builder = self._builder(schema_type, node)
        if node.get("optional") is True:
            builder.optional()
        if isinstance(node.get("name"), str):
            builder.name(node["name"])
        version = node.get("version")
        if isinstance(version, int) and not isinstance(version, bool):
            builder.version(version)
        if isinstance(node.get("doc"), str):
            builder.doc(node["doc"])
        params = node.get("parameters")
        if isinstance(params, dict):
            if not all(isinstance(v, str) for v in params.values()):
                raise DataException("Schema parameters must have string values.")
            builder.parameters(params)
        if "default" in node:
            # The default is read with the schema as built so far, as Java reads it with the builder.
            builder.default_value(self.reader.to_connect(builder.build(), node["default"]))
        return builder.build()

    def _builder(self, schema_type: SchemaType, node: dict[str, Any]) -> SchemaBuilder:
        if schema_type is SchemaType.ARRAY:
            items = node.get("items")
            if items is None:
                raise DataException("Array schema did not specify the element type")
            return SchemaBuilder.array(self._required(items))
        if schema_type is SchemaType.MAP:
            if "keys" not in node:
                raise DataException("Map schema did not specify the key type")
            if "values" not in node:
                raise DataException("Map schema did not specify the value type")
            return SchemaBuilder.map(self.as_connect_schema(node["keys"]), self.as_connect_schema(node["values"]))
        if schema_type is SchemaType.STRUCT:
            fields = node.get("fields")
            if not isinstance(fields, list):
                raise DataException("Struct schema's \"fields\" argument is not an array.")
            builder = SchemaBuilder.struct()
            for field in fields:
                name = field.get("field") if isinstance(field, dict) else None
                if not isinstance(name, str):
                    raise DataException("Struct schema's field name not specified properly")
                builder.field(name, self._required(field))
            return builder
        return SchemaBuilder(schema_type)

    def _required(self, node: Any) -> Schema:
        schema = self.as_connect_schema(node)
        assert schema is not None  # callers pass non-null nodes
        return schema
