"""Converters: turn a SourceRecord's key/value into bytes, named as Connect's converter classes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

Converter = Callable[[Any], bytes | None]


def byte_array(value: Any) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"ByteArrayConverter needs bytes, got {type(value).__name__}")


def string(value: Any) -> bytes | None:
    if value is None:
        return None
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


def json_converter(schemas_enable: bool) -> Converter:
    def convert(value: Any) -> bytes | None:
        if value is None:
            return None
        if isinstance(value, bytes):
            value = value.decode("utf-8")
        # With schemas.enable=true Connect wraps schemaless data as {"schema": null, "payload": ...}.
        return orjson.dumps({"schema": None, "payload": value} if schemas_enable else value)
    return convert


def converter_for(class_name: str, schemas_enable: bool) -> Converter:
    simple = class_name.rsplit(".", 1)[-1]
    if simple == "ByteArrayConverter":
        return byte_array
    if simple == "StringConverter":
        return string
    if simple == "JsonConverter":
        return json_converter(schemas_enable)
    raise ValueError(f"unsupported converter {class_name}: use ByteArrayConverter, StringConverter "
                     "or JsonConverter")
