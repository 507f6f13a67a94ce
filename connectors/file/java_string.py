"""A Connect value as Java's `String.valueOf` prints it, which is what FileStreamSinkTask writes per record."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import java_double_string
from pyconnect.api.data import Struct


def java_string(value: Any) -> str:
    """`null`, `true`, numbers as Java prints them, `[a, b]` for lists, `{k=v, k2=v2}` for maps and
    `Struct{f=v,g=w}` (non-null fields only) for structs. Bytes are decoded as UTF-8 (Java would print
    the array's identity, `[B@1b6d3586`, which helps nobody)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_string(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, Struct):
        fields = [(f.name, value.get_without_default(f)) for f in value.schema.fields]
        return "Struct{" + ",".join(f"{name}={java_string(v)}" for name, v in fields if v is not None) + "}"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{java_string(k)}={java_string(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(java_string(v) for v in value) + "]"
    return str(value)
