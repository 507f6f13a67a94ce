"""Resolving pluggable class names, the values of Kafka's `ConfigDef.Type.CLASS` keys.

One function, `load_class`, serves every kind of pluggable class (replication policies, mirror
filters, config providers, ...). A name resolves, in order, as:

1. an alias: the Java name of a built-in (`org.apache.kafka.connect.mirror.DefaultTopicFilter`) or its
   simple name (`DefaultTopicFilter`), as the caller lists them (see `java_aliases`);
2. an entry point of the kind's group (e.g. `pyconnect.topic_filters`), by entry-point name;
3. a Python path, `package.module:Class` (nested: `package.module:Outer.Inner`) or `package.module.Class`.

The class must subclass the kind's base class. Anything else raises `ClassLoadError` with Kafka's
wording (`Class x could not be found.`), which `class_validator` turns into a ConfigDef error, so
`/config/validate` and connector creation report it on the key.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from importlib.metadata import entry_points
from typing import Any

from pyconnect.api.config import Validator


class ClassLoadError(ValueError):
    """A class name that resolves to no class, or to one of the wrong kind."""


def java_aliases(package: str, classes: Iterable[type]) -> dict[str, type]:
    """`{package.Simple: cls, Simple: cls}` for built-ins that stand in for Java classes."""
    out: dict[str, type] = {}
    for cls in classes:
        out[f"{package}.{cls.__name__}"] = cls
        out[cls.__name__] = cls
    return out


def import_class(path: str) -> Any:
    """The object a Python path names, or None when no such module or attribute exists.

    Raises ClassLoadError when the module exists but fails to import (a broken plugin should say so,
    not look missing)."""
    module_name, sep, attr = path.partition(":")
    if not sep:
        module_name, _, attr = path.rpartition(".")
    if not module_name or not attr:
        return None
    try:
        obj: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        # Only the named module (or a parent package) missing means "not found"; a module that
        # exists but imports something missing is a broken plugin.
        if exc.name is not None and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            return None
        raise ClassLoadError(f"Class {path} could not be loaded: {exc}") from None
    except Exception as exc:
        raise ClassLoadError(f"Class {path} could not be loaded: {type(exc).__name__}: {exc}") from None
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _from_entry_point(name: str, group: str | None) -> Any:
    if group is None:
        return None
    for ep in entry_points(group=group):
        if ep.name == name:
            try:
                return ep.load()
            except Exception as exc:
                raise ClassLoadError(f"Class {name} could not be loaded from entry point {ep.value}: "
                                     f"{type(exc).__name__}: {exc}") from None
    return None


def load_class(name: str, base: type, aliases: Mapping[str, type] | None = None,
               group: str | None = None) -> type[Any]:
    """Resolve `name` to a subclass of `base` (see the module docstring); raise ClassLoadError.

    `base` is typed `type` rather than `type[T]` because the bases are abstract classes, which mypy
    refuses for `type[T]`; callers annotate the result with the base they passed."""
    wanted = str(name).strip()
    if not wanted:
        raise ClassLoadError("Class name is empty")
    cls = (aliases or {}).get(wanted)
    if cls is None:
        cls = _from_entry_point(wanted, group)
    if cls is None:
        cls = import_class(wanted)
    if cls is None:
        raise ClassLoadError(f"Class {wanted} could not be found.")
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise ClassLoadError(f"{wanted} is not an instance of {base.__module__}.{base.__qualname__}")
    return cls


def new_instance(name: str, base: type, aliases: Mapping[str, type] | None = None, group: str | None = None,
                 config: Mapping[str, Any] | None = None) -> Any:
    """An instance of the resolved class, `configure(config)`d when it has a `configure` method and a
    config is given (Kafka's `getConfiguredInstance`, which passes the connector's original config)."""
    instance = load_class(name, base, aliases, group)()
    configure = getattr(instance, "configure", None)
    if config is not None and callable(configure):
        configure(config)
    return instance


def class_validator(base: type, aliases: Mapping[str, type] | None = None, group: str | None = None) -> Validator:
    """A ConfigDef validator for a CLASS key: the loader's error message, or None."""
    def check(_name: str, value: Any) -> str | None:
        try:
            load_class(str(value), base, aliases, group)
        except ClassLoadError as exc:
            return str(exc)
        return None
    return check
