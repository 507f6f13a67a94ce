"""The converters shipped with the runtime, under the Java class names Connect users write."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.converter import Converter, Serialize
from pyconnect.converters.json_format import json_converter


def byte_array(value: Any) -> bytes | None:
    """ByteArrayConverter: bytes pass through unchanged."""
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"ByteArrayConverter needs bytes, got {type(value).__name__}")


def string(value: Any) -> bytes | None:
    """StringConverter: text as UTF-8 (bytes pass through)."""
    if value is None:
        return None
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


class ByteArrayConverter(Converter):
    """org.apache.kafka.connect.converters.ByteArrayConverter."""

    def serializer(self) -> Serialize:
        return byte_array


class StringConverter(Converter):
    """org.apache.kafka.connect.storage.StringConverter (UTF-8, Connect's default encoding)."""

    def serializer(self) -> Serialize:
        return string


class JsonConverter(Converter):
    """org.apache.kafka.connect.json.JsonConverter: `schemas.enable` (default true), `decimal.format`."""

    def __init__(self) -> None:
        self._serialize = json_converter(True)

    def configure(self, configs: Mapping[str, str], is_key: bool) -> None:
        schemas = str(configs.get("schemas.enable", "true")).strip().lower() == "true"
        self._serialize = json_converter(schemas, str(configs.get("decimal.format", "BASE64")))

    def serializer(self) -> Serialize:
        return self._serialize


JAVA_NAMES = {
    "org.apache.kafka.connect.converters.ByteArrayConverter": ByteArrayConverter,
    "org.apache.kafka.connect.storage.StringConverter": StringConverter,
    "org.apache.kafka.connect.json.JsonConverter": JsonConverter,
}
