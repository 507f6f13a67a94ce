"""Typed configuration definitions, like Connect's `ConfigDef`.

A plugin declares its keys once; the same definition parses string configs into typed values,
reports per-key errors (what `/config/validate` returns) and describes itself
(`/connector-plugins/{p}/config`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
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
    raise ValueError("Expected value to be either true or false")


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
        # Java's LIST keeps empty items (`a,,b` is three items); only an empty value is an empty list.
        return [item.strip() for item in text.split(",")] if text else []
    return str(raw).strip() if t is not ConfigType.PASSWORD else str(raw)


@dataclass
class ConfigValue:
    """One key's validation result, as Connect's ConfigValue: `value` is the parsed value (the
    default when the key is unset, None when it does not parse), shown by `config_string`."""

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
            cv = ConfigValue(name, None)
            result[name] = cv
            if raw is None:
                if key.required:
                    cv.errors.append(f"Missing required configuration \"{name}\" which has no default value.")
                    continue
                cv.value = key.default
            else:
                try:
                    cv.value = parse_value(key, raw)
                except ValueError as exc:
                    cv.errors.append(f"Invalid value {raw} for configuration {name}: {exc}")
                    continue
            if key.validator is not None and cv.value is not None:
                message = key.validator(name, cv.value)
                if message:
                    cv.errors.append(f"Invalid value {raw if raw is not None else cv.value} "
                                     f"for configuration {name}: {message}")
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


def _closer_two_digits(value: float, digit: str, point: int) -> tuple[str, int]:
    """JDK 19's rule when one digit reads back: a two-digit decimal that also reads back and lies
    closer to `value` wins (Double.MIN_VALUE is 4.9E-324, not 5.0E-324)."""
    exact = Decimal(value)
    best, best_point = digit, point
    best_error = abs(Decimal(int(digit)).scaleb(point - 1) - exact)
    for p in (point, point - 1):  # candidates 0.nn * 10**p, on this decade and the one below
        n = int(exact.scaleb(2 - p).to_integral_value(ROUND_HALF_EVEN))
        if 10 <= n <= 99 and n % 10 and float(f"{n}e{p - 2}") == value:
            error = abs(Decimal(n).scaleb(p - 2) - exact)
            if error < best_error:
                best, best_point, best_error = str(n), p, error
    return best, best_point


def java_double_string(value: float) -> str:
    """Java's `Double.toString` (JDK 19+): the shortest digits that read back as `value` (two when one
    digit would do but two are closer), plain between 1e-3 and 1e7, else `d.dddE<n>`."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    # Python's repr is the shortest round-tripping decimal too: take its digits and the position of
    # the decimal point, so that abs(value) == 0.<digits> * 10**point.
    mantissa, _, exp_text = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    significant = (whole + fraction).lstrip("0")
    point = len(whole) + int(exp_text or 0) - (len(whole + fraction) - len(significant))
    digits = significant.rstrip("0")
    if len(digits) == 1:
        digits, point = _closer_two_digits(abs(value), digits, point)
    sign = "-" if value < 0 else ""
    if 1e-3 <= abs(value) < 1e7:
        if point <= 0:
            return f"{sign}0.{'0' * -point}{digits}"
        whole_part = digits[:point].ljust(point, "0")
        return f"{sign}{whole_part}.{digits[point:] or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{point - 1}"


def config_string(key_type: ConfigType | None, value: Any) -> str | None:
    """How Connect shows a parsed config value (`ConfigDef.convertToString`): PASSWORD as
    `[hidden]`, booleans in lower case, lists comma-joined, doubles as Java prints them."""
    if value is None:
        return None
    if key_type is ConfigType.PASSWORD:
        return "[hidden]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if key_type is ConfigType.LIST and isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if key_type is ConfigType.DOUBLE and isinstance(value, (int, float)):
        return java_double_string(float(value))
    return str(value)


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


def non_empty_string_without_control_chars(_name: str, value: Any) -> str | None:
    """Connect's NonEmptyStringWithoutControlChars (a connector's `name`)."""
    text = str(value)
    if not text:
        return "String may not be empty"
    # Character.isISOControl: U+0000-U+001F and U+007F-U+009F.
    found = [str(ord(c)) for c in text if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F]
    if found:
        return f"String may not contain control sequences but had the following ASCII chars: {', '.join(found)}"
    return None


def regex_list(_name: str, value: Any) -> str | None:
    for pattern in value if isinstance(value, list) else [value]:
        try:
            re.compile(pattern)
        except re.error as exc:
            return f"Invalid regular expression {pattern!r}: {exc}"
    return None
