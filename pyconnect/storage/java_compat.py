"""How Connect's Java stores parse internal-topic keys and JSON values, for the stores to follow.

Java splits record keys with `String.split("-")` (which drops trailing empty pieces) and reads task
numbers with `Integer.parseInt`; JSON integers arrive as `Long` and other JSON types fail a cast. These
helpers reproduce exactly that, so a record Java would discard is discarded here too.
"""

from __future__ import annotations

import re
from typing import Any, TypeGuard

_JAVA_INT = re.compile(r"[+-]?\d+")  # \d is any Unicode decimal digit, as Character.digit takes
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def java_split(text: str, sep: str) -> list[str]:
    """`String.split(sep)` for a one-character literal separator: trailing empty pieces are dropped."""
    if not text:
        return [text]  # Java returns the input itself when there is nothing to split
    parts = text.split(sep)
    while parts and not parts[-1]:
        parts.pop()
    return parts


def parse_java_int(text: str) -> int | None:
    """`Integer.parseInt`: an optional sign and (Unicode) decimal digits within 32 bits, else None."""
    if not _JAVA_INT.fullmatch(text):
        return None
    value = int(text)
    return value if _INT32_MIN <= value <= _INT32_MAX else None


def task_key(key: str, name_starts_at: int) -> tuple[str, int] | None:
    """(connector, task) from a `<prefix>-<connector>-<task>` key, as Connect's key parsers do.

    `name_starts_at` is how many dash-separated words the prefix has (`task` is 1, `status-task` 2);
    the connector name is everything between the prefix and the last word, which must be a number.
    """
    parts = java_split(key, "-")
    if len(parts) < name_starts_at + 2:
        return None
    task = parse_java_int(parts[-1])
    if task is None:
        return None
    return "-".join(parts[name_starts_at:-1]), task


def is_json_integer(value: Any) -> TypeGuard[int]:
    """True for what Java's JsonConverter reads as a `Long` (JSON true/false are not numbers)."""
    return type(value) is int


def to_int32(value: int) -> int:
    """`Long.intValue()`: keep the low 32 bits, signed."""
    return (value - _INT32_MIN) % 2**32 + _INT32_MIN
