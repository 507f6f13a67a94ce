"""Typed configuration definitions, like Connect's `ConfigDef`.

A plugin declares its keys once; the same definition parses string configs into typed values,
reports per-key errors (what `/config/validate` returns) and describes itself
(`/connector-plugins/{p}/config`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class ConfigType(StrEnum):
    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    INT = "INT"
    SHORT = "SHORT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    LIST = "LIST"
    CLASS = "CLASS"
    PASSWORD = "PASSWORD"


class Importance(StrEnum):
    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


class ConfigException(Exception):
    """Invalid configuration; `errors` maps a key to its messages."""

    def __init__(self, message: str, errors: Mapping[str, list[str]] | None = None) -> None:
        super().__init__(message)
        self.errors: dict[str, list[str]] = dict(errors or {})


NO_DEFAULT: Any = object()
Validator = Callable[[str, Any], str | None]


@dataclass(frozen=True)
class ConfigKey:
    """One configuration key. `validator(name, parsed) -> error message or None`."""

    name: str
    type: ConfigType
    default: Any = NO_DEFAULT
    importance: Importance = Importance.MEDIUM
    documentation: str = ""
    group: str | None = None
    order: int = -1
    width: str = "NONE"
    display_name: str | None = None
    validator: Validator | None = None
    dependents: tuple[str, ...] = ()

    @property
    def required(self) -> bool:
        return self.default is NO_DEFAULT


def _parse_bool(raw: str) -> bool:
    low = raw.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    raise ValueError(f"Expected value to be either true or false, but got {raw!r}")


def parse_value(key: ConfigKey, raw: Any) -> Any:
    """Parse one raw value (str or already typed) into the key's type; raise ValueError."""
    if raw is None:
        return None
    t = key.type
    if t is ConfigType.BOOLEAN:
        return raw if isinstance(raw, bool) else _parse_bool(str(raw))
    if t in (ConfigType.INT, ConfigType.SHORT, ConfigType.LONG):
        if isinstance(raw, bool):
            raise ValueError("Expected an integer")
        try:
            return int(str(raw).strip())
        except ValueError:
            raise ValueError(f"Not a number of type {t.value}") from None
    if t is ConfigType.DOUBLE:
        try:
            return float(str(raw).strip())
        except ValueError:
            raise ValueError("Not a number of type DOUBLE") from None
    if t is ConfigType.LIST:
        if isinstance(raw, list):
            return [str(x) for x in raw]
        text = str(raw).strip()
        return [item.strip() for item in text.split(",") if item.strip()] if text else []
    return str(raw).strip() if t is not ConfigType.PASSWORD else str(raw)


@dataclass
class ConfigValue:
    name: str
    value: Any
    errors: list[str] = field(default_factory=list)
    recommended_values: list[str] = field(default_factory=list)
    visible: bool = True


class ConfigDef:
    """An ordered set of ConfigKeys."""

    def __init__(self, keys: Iterable[ConfigKey] = ()) -> None:
        self.keys: dict[str, ConfigKey] = {}
        for key in keys:
            self.define(key)

    def define(self, key: ConfigKey) -> ConfigDef:
        self.keys[key.name] = key
        return self

    def merge(self, other: ConfigDef) -> ConfigDef:
        merged = ConfigDef(self.keys.values())
        for key in other.keys.values():
            merged.define(key)
        return merged

    def validate_all(self, props: Mapping[str, Any]) -> dict[str, ConfigValue]:
        """Per-key parse + validation, never raising (the `/config/validate` view)."""
        result: dict[str, ConfigValue] = {}
        for name, key in self.keys.items():
            raw = props.get(name)
            cv = ConfigValue(name, raw)
            if raw is None:
                if key.required:
                    cv.errors.append(f"Missing required configuration \"{name}\" which has no default value.")
                    result[name] = cv
                    continue
                parsed = key.default
            else:
                try:
                    parsed = parse_value(key, raw)
                except ValueError as exc:
                    cv.errors.append(f"Invalid value {raw} for configuration {name}: {exc}")
                    result[name] = cv
                    continue
            if key.validator is not None and parsed is not None:
                message = key.validator(name, parsed)
                if message:
                    cv.errors.append(f"Invalid value {raw if raw is not None else parsed} "
                                     f"for configuration {name}: {message}")
            result[name] = cv
        return result

    def parse(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """Typed values for every defined key; raise ConfigException listing all errors."""
        values = self.validate_all(props)
        errors = {n: v.errors for n, v in values.items() if v.errors}
        if errors:
            lines = [msg for msgs in errors.values() for msg in msgs]
            raise ConfigException("; ".join(lines), errors)
        parsed: dict[str, Any] = {}
        for name, key in self.keys.items():
            raw = props.get(name)
            parsed[name] = key.default if raw is None else parse_value(key, raw)
        return parsed


# Reusable validators -----------------------------------------------------------------------

def at_least(minimum: float) -> Validator:
    def check(_name: str, value: Any) -> str | None:
        return f"Value must be at least {minimum}" if value < minimum else None
    return check


def one_of(*allowed: str, case_sensitive: bool = False) -> Validator:
    def check(_name: str, value: Any) -> str | None:
        text = str(value) if case_sensitive else str(value).lower()
        options = allowed if case_sensitive else tuple(a.lower() for a in allowed)
        return None if text in options else f"String must be one of: {', '.join(allowed)}"
    return check


def non_empty_string(_name: str, value: Any) -> str | None:
    return "String may not be empty" if not str(value).strip() else None


def regex_list(_name: str, value: Any) -> str | None:
    for pattern in value if isinstance(value, list) else [value]:
        try:
            re.compile(pattern)
        except re.error as exc:
            return f"Invalid regular expression {pattern!r}: {exc}"
    return None
