"""Field paths (Connect's transforms.field.SingleFieldPath, KIP-821): with `field.syntax.version=V1` a
path is one top-level field name; with V2 it is dotted (`a.b.c`), and a step holding dots is written in
backticks (`` `a.b`.c ``)."""

from __future__ import annotations

from typing import Any

from pyconnect.api.config import ConfigKey, ConfigType, Importance
from pyconnect.api.data import Field, Schema, SchemaType, Struct

SYNTAX_VERSION_KEY = "field.syntax.version"


def _syntax_version(_name: str, value: Any) -> str | None:
    return None if str(value).upper() in ("V1", "V2") else "String must be one of (case insensitive): V1, V2"


SYNTAX_VERSION_CONFIG = ConfigKey(
    SYNTAX_VERSION_KEY, ConfigType.STRING, "V1", Importance.HIGH,
    "Defines the version of the syntax to access fields. If set to `V1`, then the field paths are limited "
    "to access the elements at the root level of the struct or map. If set to `V2`, the syntax will support "
    "accessing nested elements. To access nested elements, dotted notation is used. If dots are already "
    "included in the field name, then backtick pairs can be used to wrap field names containing dots.",
    validator=_syntax_version)


def _split_v2(path: str) -> list[str]:
    steps: list[str] = []
    i = 0
    while i <= len(path):
        if path.startswith("`", i):
            end = path.find("`", i + 1)
            while end >= 0 and end + 1 < len(path) and path[end + 1] != ".":
                end = path.find("`", end + 1)
            if end >= 0:
                steps.append(path[i + 1:end])
                i = end + 2
                continue
        end = path.find(".", i)
        end = len(path) if end < 0 else end
        steps.append(path[i:end])
        i = end + 1
    return steps


class SingleFieldPath:
    """A path to one field of a (possibly nested) map or struct."""

    def __init__(self, path: str, version: str = "V1") -> None:
        self.path = path
        self.version = version.upper()
        self.steps = _split_v2(path) if self.version == "V2" else [path]

    def __str__(self) -> str:
        return f"SingleFieldPath{{version={self.version}, path={self.path}}}"

    def field_from(self, schema: Schema) -> Field | None:
        """The field the path names in `schema`, or None."""
        current: Field | None = None
        for step in self.steps:
            if schema.type is not SchemaType.STRUCT:
                return None
            current = schema.field(step)
            if current is None:
                return None
            schema = current.schema
        return current

    def value_from_map(self, value: dict[str, Any]) -> Any:
        """The value at the path in nested maps, or None when a step is missing."""
        current: Any = value
        for step in self.steps:
            if not isinstance(current, dict):
                return None
            current = current.get(step)
        return current

    def value_from_struct(self, value: Struct, replace_null_with_default: bool = True) -> Any:
        current: Any = value
        for step in self.steps:
            if not isinstance(current, Struct):
                return None
            current = current.get(step) if replace_null_with_default else current.get_without_default(step)
        return current
