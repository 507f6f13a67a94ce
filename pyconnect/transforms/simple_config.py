"""Parsing a transform's or predicate's keys with Connect's semantics (Connect's SimpleConfig), and the
validators the built-in transforms use, with Connect's messages."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigException, ConfigKey, ConfigType, Importance, parse_value

# The key most field transforms share (KIP-1040): whether a null field with a default reads as the default.
REPLACE_NULL_WITH_DEFAULT = ConfigKey(
    "replace.null.with.default", ConfigType.BOOLEAN, True, Importance.MEDIUM,
    "Whether to replace fields that have a default value and that are null to the default value. "
    "When set to true, the default value is used, otherwise null is used.")


def key_errors(key: ConfigKey, props: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """One key's parsed value and its errors. Unlike `ConfigDef.validate_all`, a key present with a
    None value is set to null rather than missing (Java's `containsKey`), and its validator decides."""
    name = key.name
    if name not in props:
        if key.required:
            return None, [f"Missing required configuration \"{name}\" which has no default value."]
        return key.default, []
    raw = props[name]
    try:
        value = parse_value(key, raw)
    except ValueError as exc:
        return None, [f"Invalid value {raw} for configuration {name}: {exc}"]
    if key.validator is None:
        return value, []
    try:
        message = key.validator(name, value)
    except TypeError:  # a validator written for non-null values, given an explicit null
        message = None
    shown = "null" if raw is None else (",".join(raw) if isinstance(raw, list) else raw)
    return value, [f"Invalid value {shown} for configuration {name}: {message}"] if message else []


def simple_config(config_def: ConfigDef, props: Mapping[str, Any]) -> dict[str, Any]:
    """Typed values of every key of `config_def`; raise ConfigException with the first error as Connect
    does (`errors` holds them all)."""
    parsed: dict[str, Any] = {}
    errors: dict[str, list[str]] = {}
    for name, key in config_def.keys.items():
        parsed[name], messages = key_errors(key, props)
        if messages:
            errors[name] = messages
    if errors:
        raise ConfigException(next(iter(errors.values()))[0], errors)
    return parsed


def non_empty_string(_name: str, value: Any) -> str | None:
    """Connect's ConfigDef.NonEmptyString (null passes)."""
    return "String must be non-empty" if value is not None and not str(value) else None


def non_null(_name: str, value: Any) -> str | None:
    return "entry must be non null" if value is None else None


def non_null_non_empty_string(name: str, value: Any) -> str | None:
    return non_null(name, value) or non_empty_string(name, value)


def regex(_name: str, value: Any) -> str | None:
    """Connect's RegexValidator."""
    if value is None:
        return None
    try:
        re.compile(str(value))
    except re.error as exc:
        return f"Invalid regex: {exc}"
    return None


def non_empty_list(_name: str, value: Any) -> str | None:
    """Connect's NonEmptyListValidator."""
    return "Empty list" if not value else None


def one_of_lower(*allowed: str) -> Any:
    """Connect's ValidString.in(...) over lower-case values."""
    def check(_name: str, value: Any) -> str | None:
        if value is None or str(value) in allowed:
            return None
        return f"String must be one of: {', '.join(allowed)}"
    return check
