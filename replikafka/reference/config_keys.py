"""Every ConfigDef key as Markdown tables: name, type, default, importance and documentation."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from connectors.mirror.maker_config import TOP_LEVEL
from pyconnect.api.config import NO_DEFAULT, ConfigDef, ConfigKey, ConfigType
from pyconnect.config.standalone import STANDALONE_CONFIG
from pyconnect.config.worker import WORKER_CONFIG
from pyconnect.converters.configs import CONVERTER_CONFIG, JSON_CONFIG, STRING_CONFIG
from pyconnect.plugins import registry
from pyconnect.runtime.connector_config import common_definition
from pyconnect.runtime.source.topic_creation import REFERENCE as TOPIC_CREATION
from pyconnect.transforms.connector_config import _IMPLICIT as TRANSFORM_KEYS
from pyconnect.transforms.registry import builtin_predicates, builtin_transforms, java_name
from pyconnect.transforms.spi import Predicate, Transformation

#: MirrorMaker's top-level keys of mm2.properties that belong to no connector or worker ConfigDef.
MM2_TOP_LEVEL_DOCS = {
    "clusters": "Aliases of the clusters (comma-separated); each alias's settings are given as `<alias>.<key>`, "
                "and each ordered pair `<source>-><target>.enabled = true` runs a flow.",
    "dedicated.mode.enable.internal.rest": "Whether each flow's worker serves the internal REST endpoints that "
                                           "forward requests to its leader (KIP-710). Only true is accepted: "
                                           "every flow's REST API is served on `listeners`.",
    "config.providers": "Config providers (comma-separated names) that resolve `${provider:path:key}` "
                        "placeholders in the file.",
    "listeners": "REST listeners of the dedicated MirrorMaker process (every flow's API is mounted under "
                 "`/<source>/<target>`).",
}


@dataclass(frozen=True)
class Section:
    """One table of the reference: a title, where the keys come from, and the keys."""

    title: str
    source: str
    keys: tuple[ConfigKey, ...]


def _keys(definition: ConfigDef, skip: Iterable[str] = ()) -> tuple[ConfigKey, ...]:
    """The definition's keys in order, without those named in `skip`."""
    skipped = set(skip)
    return tuple(k for name, k in definition.keys.items() if name not in skipped)


def _plugin_sections() -> list[Section]:
    """One section per installed connector plugin: its own `config_def()`."""
    out: list[Section] = []
    for info in registry.all():
        connector = info.cls()
        out.append(Section(f"{info.cls.__name__}", f"`{info.java_class}` ({info.cls.__module__})",
                           _keys(connector.config_def())))
    return out


def _transform_sections() -> list[Section]:
    """One section per built-in transformation and predicate."""
    out: list[Section] = []
    classes: list[type[Transformation] | type[Predicate]] = [*builtin_transforms(), *builtin_predicates()]
    for cls in classes:
        keys = _keys(cls().config_def())
        out.append(Section(java_name(cls).rsplit(".", 1)[-1], f"`{java_name(cls)}` ({cls.__module__})", keys))
    return out


def _mm2_top_level() -> Section:
    """mm2.properties' own top-level keys, which no ConfigDef holds."""
    keys = tuple(ConfigKey(name, ConfigType.STRING if name != "clusters" else ConfigType.LIST, None,
                           documentation=MM2_TOP_LEVEL_DOCS.get(name, "")) for name in sorted(TOP_LEVEL))
    return Section("MirrorMaker top-level keys (mm2.properties)", "connectors/mirror/maker_config.py", keys)


def config_sections() -> list[Section]:
    """Every section of the configuration reference, in the page's order."""
    standalone_only = set(STANDALONE_CONFIG.keys) - set(WORKER_CONFIG.keys)
    return [
        Section("Worker (distributed)", "pyconnect/config/worker.py", _keys(WORKER_CONFIG)),
        Section("Worker (standalone only)", "pyconnect/config/standalone.py",
                tuple(STANDALONE_CONFIG.keys[name] for name in STANDALONE_CONFIG.keys if name in standalone_only)),
        Section("Every source connector", "pyconnect/runtime/connector_config.py", _keys(common_definition(False))),
        Section("Topic creation of source connectors (`topic.creation.*`, KIP-158; any other "
                "`topic.creation.<group>.<key>` is a topic config of the topics the group creates)",
                "pyconnect/runtime/source/topic_creation.py", _keys(TOPIC_CREATION)),
        Section("Every sink connector (besides the source connector's)", "pyconnect/runtime/connector_config.py",
                _keys(common_definition(True), common_definition(False).keys)),
        *_plugin_sections(),
        _mm2_top_level(),
        Section("Every transformation (`transforms.<alias>.<key>`)", "pyconnect/transforms/connector_config.py",
                _keys(TRANSFORM_KEYS)),
        *_transform_sections(),
        Section("JsonConverter", "pyconnect/converters/configs.py", _keys(JSON_CONFIG)),
        Section("StringConverter", "pyconnect/converters/configs.py", _keys(STRING_CONFIG)),
        Section("ByteArrayConverter, BooleanConverter and the number converters (Short, Integer, Long, Float, "
                "Double)", "pyconnect/converters/configs.py", _keys(CONVERTER_CONFIG)),
    ]


def default_text(key: ConfigKey) -> str:
    """The default as a user writes it in a properties file; `(required)` for a key without one."""
    value: Any = key.default
    if value is NO_DEFAULT:
        return "(required)"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value) or '""'
    return str(value) if str(value) != "" else '""'


_NOT_A_TAG = re.compile(r"<(?!/?(?:code|p|ul|ol|li|br|b|i|em|strong|pre|tt|a)\b)")


def _cell(text: str, code: bool = False) -> str:
    """Text safe inside a Markdown table cell (`code`: the cell is one code span).

    Outside code spans a `<` that opens no HTML tag Kafka's documentation strings use (`<code>`, `<p>`, ...) is
    escaped: Markdown passes `<group.id>` through as an HTML tag, which the browser then hides
    (`connect-membership..internal`). Inside backticks it already shows as written.
    """
    escaped = text.replace("|", "\\|").replace("\n", " ")
    if code:
        return escaped
    parts = escaped.split("`")
    for i in range(0, len(parts), 2):
        parts[i] = _NOT_A_TAG.sub("&lt;", parts[i])
    return "`".join(parts)


def _table(section: Section) -> list[str]:
    """A section as a heading, its source and a table of its keys."""
    lines = [f"## {section.title}", "", f"Defined in {section.source}.", ""]
    if not section.keys:
        return [*lines, "No settings.", ""]
    lines += ["| Key | Type | Default | Importance | Documentation |", "|---|---|---|---|---|"]
    for key in section.keys:
        default = _cell(default_text(key), code=True)
        lines.append(f"| `{key.name}` | {key.type.value} | `{default}` | {key.importance.value} | "
                     f"{_cell(key.documentation)} |")
    return [*lines, ""]


def config_page() -> str:
    """The configuration reference page (Markdown)."""
    lines = ["# Configuration reference", "",
             "Generated from the code's ConfigDefs when the site is built: every key with its type, default and "
             "documentation. `GET /connector-plugins/<class>/config` answers with any plugin's keys (connector, "
             "converter, header converter, transformation, predicate). "
             "A transformation's and a predicate's keys are set as `transforms.<alias>.<key>` and "
             "`predicates.<alias>.<key>` in a connector config; a converter's as `key.converter.<key>` or "
             "`value.converter.<key>`.", ""]
    for section in config_sections():
        lines += _table(section)
    return "\n".join(lines)
