"""Plugin discovery and resolution.

Connectors are found through the `pyconnect.plugins` entry-point group; JARs never load (a Java
class name that no plugin stands in for gets an error that says where Python plugins come from). A `connector.class`
value resolves, in order, by: exact entry-point name; Java class name (the simple name after the
last dot, so `org.apache.kafka.connect.mirror.MirrorSourceConnector` finds
`MirrorSourceConnector`); short name without the `Connector` suffix (`MirrorSource`); a Python
path `package.module:Class` or `package.module.Class`.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from pyconnect.api.config import ConfigDef
from pyconnect.api.connector import Connector
from pyconnect.api.converter import Converter, HeaderConverter
from pyconnect.api.loading import ClassLoadError, import_class, load_class
from pyconnect.api.plugin_version import mismatch, plugin_version
from pyconnect.converters import ALIASES as CONVERTER_ALIASES
from pyconnect.converters import GROUP as CONVERTER_GROUP
from pyconnect.converters.builtin import JAVA_NAMES as CONVERTER_JAVA_NAMES
from pyconnect.transforms.registry import (
    PREDICATE_GROUP,
    TRANSFORM_GROUP,
    builtin_predicates,
    builtin_transforms,
    java_name,
)
from pyconnect.transforms.spi import Predicate, Transformation

ENTRY_POINT_GROUP = "pyconnect.plugins"


class PluginNotFound(LookupError):
    """No plugin matches a class name."""


@dataclass(frozen=True)
class PluginInfo:
    name: str
    cls: type[Connector]

    @property
    def type(self) -> str:
        return str(getattr(self.cls, "connector_type", "unknown"))

    @property
    def java_class(self) -> str:
        return str(getattr(self.cls, "java_class_name", f"{self.cls.__module__}.{self.cls.__name__}"))

    def version(self) -> str:
        """The connector's `version()`: by default that of the distribution providing it
        (pyconnect.api.plugin_version)."""
        return declared_version(self.cls)


def declared_version(cls: builtins.type) -> str:
    """A plugin's version as Connect reads it, from an instance's `version()` (Versioned); the
    distribution's version for a class without one, or whose instance cannot be created bare."""
    if callable(getattr(cls, "version", None)):
        try:
            return str(cls().version())
        except Exception:  # noqa: BLE001 - a plugin that needs arguments or fails to build still gets listed
            pass
    return plugin_version(cls)


def _strip_suffix(name: str) -> str:
    return name[: -len("Connector")] if name.endswith("Connector") else name


class PluginRegistry:
    """Lazily loaded map of connector plugins."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._plugins: dict[str, PluginInfo] | None = None

    def register(self, name: str, cls: type[Connector]) -> None:
        with self._lock:
            plugins = self._load()
            plugins[name] = PluginInfo(name, cls)

    def _load(self) -> dict[str, PluginInfo]:
        if self._plugins is None:
            plugins: dict[str, PluginInfo] = {}
            for ep in entry_points(group=ENTRY_POINT_GROUP):
                cls = ep.load()
                plugins[ep.name] = PluginInfo(ep.name, cls)
            self._plugins = plugins
        return self._plugins

    def all(self) -> list[PluginInfo]:
        with self._lock:
            return sorted(self._load().values(), key=lambda p: p.java_class)

    def resolve(self, class_name: str) -> PluginInfo:
        """Find a plugin by any of its accepted names; raise PluginNotFound."""
        wanted = class_name.strip()
        with self._lock:
            plugins = self._load()
        if wanted in plugins:
            return plugins[wanted]
        simple = wanted.rsplit(".", 1)[-1].rsplit(":", 1)[-1]
        for info in plugins.values():
            names = {info.name, info.cls.__name__, info.java_class}
            if wanted in names or simple in names:
                return info
            if _strip_suffix(simple) in {_strip_suffix(n.rsplit(".", 1)[-1]) for n in names}:
                return info
        loaded = _import_path(wanted)
        if loaded is not None:
            return PluginInfo(wanted, loaded)
        raise PluginNotFound(f"Failed to find any class that implements Connector and which name matches "
                             f"{class_name}, available connectors are: "
                             f"{', '.join(p.java_class for p in plugins.values())}{java_hint(wanted)}")


def java_hint(class_name: str) -> str:
    """For a dotted name that is no Python class here (a Java connector's, most likely): where
    connectors come from instead."""
    if "." not in class_name or ":" in class_name:
        return ""
    return (f". {class_name} is not a Python class here: Java connectors (JARs, plugin.path) do not load in "
            f"replikafka. Connectors are Python classes, registered under the '{ENTRY_POINT_GROUP}' entry-point "
            f"group of a package installed in the worker's Python environment (pip install it), or named by "
            f"their Python path (package.module:Class)")


def _import_path(path: str) -> type[Connector] | None:
    try:
        obj = import_class(path)
    except ClassLoadError as exc:
        raise PluginNotFound(str(exc)) from None
    if isinstance(obj, type) and issubclass(obj, Connector):
        return obj
    return None


registry = PluginRegistry()


@dataclass(frozen=True)
class ComponentPlugin:
    """A converter, header converter, transformation or predicate as `/connector-plugins` lists it:
    its class name (the Java name of a built-in), Connect's PluginType name, and the class."""

    class_name: str
    type: str
    cls: builtins.type

    def version(self) -> str:
        """What the plugin's `version()` says (transforms, predicates); a converter's distribution version."""
        return declared_version(self.cls)

    def config_def(self) -> ConfigDef:
        """The plugin's keys (Connect's `config()` of a fresh instance)."""
        definition: ConfigDef = self.cls().config_def()
        return definition


def _entry_point_classes(group: str) -> list[type]:
    found: list[type] = []
    for ep in entry_points(group=group):
        try:
            found.append(ep.load())
        except Exception:  # noqa: BLE001 - a broken third-party plugin is left out of the listing, as Connect's scan does
            continue
    return found


def _name_of(cls: type) -> str:
    for name, known in CONVERTER_JAVA_NAMES.items():
        if known is cls:
            return name
    return java_name(cls)


def component_plugins() -> list[ComponentPlugin]:
    """Every converter, header converter, transformation and predicate installed: the built-ins and
    the classes of the `pyconnect.converters` / `pyconnect.transforms` / `pyconnect.predicates` entry
    points. A class that is both a Converter and a HeaderConverter is listed once as each, as Connect does."""
    converters = list(dict.fromkeys([*CONVERTER_JAVA_NAMES.values(), *_entry_point_classes(CONVERTER_GROUP)]))
    out = [ComponentPlugin(_name_of(c), kind, c) for c in converters
           for kind, base in (("converter", Converter), ("header_converter", HeaderConverter)) if issubclass(c, base)]
    for kind, base, classes in (
            ("transformation", Transformation, [*builtin_transforms(), *_entry_point_classes(TRANSFORM_GROUP)]),
            ("predicate", Predicate, [*builtin_predicates(), *_entry_point_classes(PREDICATE_GROUP)])):
        out += [ComponentPlugin(_name_of(c), kind, c) for c in dict.fromkeys(classes) if issubclass(c, base)]
    return sorted(out, key=lambda p: (p.type, p.class_name))


def find_component(name: str) -> ComponentPlugin | None:
    """The component plugin `name` stands for: its listed class name, its simple name (after the last
    dot), a converter alias, or a Python path to a component class; None when nothing matches."""
    wanted = name.strip()
    plugins = component_plugins()
    for plugin in plugins:
        if wanted in (plugin.class_name, plugin.class_name.rsplit(".", 1)[-1]):
            return plugin
    cls = CONVERTER_ALIASES.get(wanted)
    if cls is None:
        try:
            cls = import_class(wanted)
        except ClassLoadError:
            return None
    for plugin in plugins:
        if plugin.cls is cls:
            return plugin
    for kind, base in (("converter", Converter), ("header_converter", HeaderConverter),
                       ("transformation", Transformation), ("predicate", Predicate)):
        if isinstance(cls, type) and issubclass(cls, base):
            return ComponentPlugin(wanted, kind, cls)
    return None


# The class keys whose installed version a `<key>.plugin.version` may require, with their base class.
_VERSIONED_CLASS_KEYS: dict[str, builtins.type] = {
    "key.converter": Converter, "value.converter": Converter, "header.converter": HeaderConverter}


def version_errors(config: Mapping[str, Any], connector: PluginInfo,
                   worker_classes: Mapping[str, str]) -> dict[str, list[str]]:
    """KIP-891's check of `connector.plugin.version` and `key|value|header.converter.plugin.version`:
    the installed version of the connector, or of the converter the connector uses (its own
    `<side>.converter`, else the worker's in `worker_classes`), against the required range. A mismatch
    is Kafka's message on both the class key and the version key."""
    errors: dict[str, list[str]] = {}

    def report(class_key: str, version_key: str, message: str | None) -> None:
        if message:
            for key in (class_key, version_key):
                errors.setdefault(key, []).append(message)

    report("connector.class", "connector.plugin.version",
           mismatch(connector.java_class, connector.version(), config.get("connector.plugin.version")))
    for class_key, base in _VERSIONED_CLASS_KEYS.items():
        spec = config.get(f"{class_key}.plugin.version")
        name = config.get(class_key) or worker_classes.get(class_key)
        if spec is None or not name:
            continue
        try:
            cls = load_class(str(name), base, CONVERTER_ALIASES, CONVERTER_GROUP)
        except ClassLoadError:
            continue  # the class key's own validator reports it
        report(class_key, f"{class_key}.plugin.version", mismatch(_name_of(cls), declared_version(cls), spec))
    return errors
