"""What a transform requires of the data it is given (Connect's transforms.util.Requirements)."""

from __future__ import annotations

from typing import Any

from pyconnect.api.data import DataException, Schema, Struct


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def require_map(value: Any, purpose: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise DataException(f"Only Map objects supported in absence of schema for [{purpose}], "
                            f"found: {_type_name(value)}")
    return value


def require_map_or_null(value: Any, purpose: str) -> dict[str, Any] | None:
    return None if value is None else require_map(value, purpose)


def require_struct(value: Any, purpose: str) -> Struct:
    if not isinstance(value, Struct):
        raise DataException(f"Only Struct objects supported for [{purpose}], found: {_type_name(value)}")
    return value


def require_struct_or_null(value: Any, purpose: str) -> Struct | None:
    return None if value is None else require_struct(value, purpose)


def require_schema(schema: Schema | None, purpose: str) -> Schema:
    if schema is None:
        raise DataException(f"Schema required for [{purpose}]")
    return schema
