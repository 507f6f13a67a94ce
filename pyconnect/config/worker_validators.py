"""Validators of worker keys whose values the runtime accepts only in part (the worker config's definition,
pyconnect/config/worker.py, names them)."""

from __future__ import annotations

from typing import Any

from pyconnect.api.config import Validator


def implemented_class(kind: str, names: tuple[str, ...]) -> Validator:
    """Validator of a CLASS key the runtime implements only for `names` (Java name or simple name)."""
    accepted = set(names) | {n.rsplit(".", 1)[-1] for n in names}

    def check(_name: str, value: Any) -> str | None:
        if str(value).strip() in accepted:
            return None
        return f"Class {value} could not be found. The {kind} classes implemented here: {', '.join(names)}"
    return check


_rest_extension_class = implemented_class(
    "REST extension", ("org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension",))


def rest_extensions(name: str, value: Any) -> str | None:
    for item in value if isinstance(value, list) else [value]:
        message = _rest_extension_class(name, item)
        if message:
            return message
    return None


def unknown_keys_mode(_name: str, value: Any) -> str | None:
    if str(value).strip().lower() in ("warn", "refuse"):
        return None
    return "String must be one of (case insensitive): warn, refuse"


def exactly_once_source_support(_name: str, value: Any) -> str | None:
    if str(value).strip().lower() in ("disabled", "preparing", "enabled"):
        return None
    return "String must be one of (case insensitive): disabled, preparing, enabled"
