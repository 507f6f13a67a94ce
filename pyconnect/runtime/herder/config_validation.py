"""Connector config validation and config definitions as the herder reports them (Connect's
AbstractHerder.validateConnectorConfig and connectorPluginConfig), with the input checks of
`input_checks` (null values, unknown config providers, typo'd keys)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigKey, ConfigValue, config_string
from pyconnect.api.connector import SourceConnector
from pyconnect.api.plugin_version import mismatch, version_spec_validator
from pyconnect.api.sink import SinkConnector
from pyconnect.config.worker import WorkerConfig
from pyconnect.plugins import PluginNotFound, PluginRegistry, find_component, version_errors
from pyconnect.runtime.client_overrides import with_override_errors
from pyconnect.runtime.connector_config import common_definition, transform_errors
from pyconnect.runtime.herder import input_checks
from pyconnect.runtime.herder.exactly_once_validation import exactly_once_errors
from pyconnect.runtime.herder.request_errors import BadConfig, NotFound
from pyconnect.runtime.results import ConfigInfo, ConfigInfos, ConfigKeyInfo, ConfigValueInfo
from pyconnect.runtime.sink.config import sink_errors
from pyconnect.runtime.source import topic_creation
from pyconnect.transforms import connector_config as transforms

log = logging.getLogger(__name__)

INVALID = ("Connector configuration is invalid and contains the following {count} error(s):\n{errors}\n"
           "You can also find the above list of errors at the endpoint "
           "`/connector-plugins/{{connectorType}}/config/validate`")


def java_map_string(config: Mapping[str, Any]) -> str:
    """A map as Java's `AbstractMap.toString` prints it: `{k=v, k2=v2}`."""
    return "{" + ", ".join(f"{k}={'null' if v is None else v}" for k, v in config.items()) + "}"


def key_info(key: ConfigKey) -> ConfigKeyInfo:
    """A key's definition; a required key has no default to show."""
    default = None if key.required else config_string(key.type, key.default)
    return ConfigKeyInfo(name=key.name, type=key.type.value, required=key.required, default_value=default,
                         importance=key.importance.value, documentation=key.documentation, group=key.group,
                         order=key.order, width=key.width, display_name=key.display_name or key.name,
                         dependents=list(key.dependents))


def _value_info(name: str, key: ConfigKey, value: ConfigValue | None) -> ConfigValueInfo:
    if value is None:  # a key the validators did not report on: shown empty and valid
        return ConfigValueInfo(name, config_string(key.type, None), [], [], True)
    return ConfigValueInfo(name, config_string(key.type, value.value), value.recommended_values, value.errors,
                           value.visible)


def validate(plugins: PluginRegistry, config: Mapping[str, str], exactly_once: bool = False,
             refuse_unknown: bool = False, worker: WorkerConfig | None = None) -> ConfigInfos:
    """The common keys plus the plugin's keys with per-key errors. Values are shown parsed, defaults
    filled in and passwords hidden; `name` is `connector.class` as given. `exactly_once`: the worker
    has `exactly.once.source.support=enabled`; `refuse_unknown`: `connector.config.unknown.keys=refuse`
    (a typo'd key is an error, not a warning); `worker`: its client override rules apply. Keys outside
    the definition that have errors or look like typos follow the definition's keys (see input_checks)."""
    return validated(plugins, config, exactly_once, refuse_unknown, worker)[0]


def validated(plugins: PluginRegistry, config: Mapping[str, str], exactly_once: bool = False,
              refuse_unknown: bool = False, worker: WorkerConfig | None = None) -> tuple[ConfigInfos, dict[str, str]]:
    """`validate`'s answer and the typo'd keys with their suggestions."""
    given = config
    config = {k: v for k, v in given.items() if v is not None}  # nulls are reported, not validated
    class_name = config.get("connector.class")
    if class_name is None:
        raise BadConfig(f"Connector config {java_map_string(config)} contains no connector type")
    try:
        info = plugins.resolve(class_name)
    except PluginNotFound as exc:
        raise BadConfig(str(exc)) from None  # Connect's BadRequestException (Kafka 4.x)
    connector = info.cls()
    own = connector.config_def()
    chain = transforms.validate(config)
    transform_errors(chain, config)
    sink = isinstance(connector, SinkConnector)
    base = common_definition(sink)
    definition = base.merge(own).merge(chain.config_def)
    common = {n: v for n, v in base.validate_all(config).items() if n not in own.keys}
    values = {**common, **chain.values, **connector.validate(config)}
    if isinstance(connector, SourceConnector):
        exactly_once_errors(connector, config, values, exactly_once)
        if worker is None or worker.values.get("topic.creation.enable", True):
            creation, creation_values = topic_creation.validation(config)
            definition = definition.merge(creation)
            values.update(creation_values)
    if sink:
        _add_errors(values, sink_errors(config))
    _add_errors(values, version_errors(config, info, _worker_converters(worker)))
    input_checks.report_errors(given, values)
    configs = [ConfigInfo(key_info(key), _value_info(name, key, values.get(name)))
               for name, key in definition.keys.items()]
    configs = with_override_errors(configs, config, sink, worker)
    # A connector may declare the prefixes and the extra keys it reads beyond its ConfigDef.
    prefixes = tuple(getattr(type(connector), "config_prefixes", ()))
    known = [*definition.keys, *getattr(type(connector), "config_keys", ())]
    typos = input_checks.unknown_keys(config, known, prefixes)
    configs += _outside_definition(given, definition.keys, values, typos, refuse_unknown)
    groups = list(dict.fromkeys(k.group for k in definition.keys.values() if k.group))
    return ConfigInfos(class_name, sum(len(c.value.errors) for c in configs), groups, configs), typos


def _outside_definition(config: Mapping[str, str | None], defined: Mapping[str, ConfigKey],
                        values: Mapping[str, ConfigValue], typos: Mapping[str, str], refuse: bool) -> list[ConfigInfo]:
    """Entries for given keys the definition lacks: with errors (as Connect adds them, definition null),
    or typo'd (a definition whose documentation has the suggestion; errors only when refused). As in
    Connect's `new ConfigValue(key)`, no value is shown: a typo'd `pasword` may hold a secret."""
    out = []
    for key in config:
        if key in defined or (key not in typos and not (key in values and values[key].errors)):
            continue
        errors = list(values[key].errors) if key in values else []
        definition = None
        if key in typos:
            definition = input_checks.unknown_key_info(key, typos[key])
            if refuse:
                errors.append(input_checks.unknown_key_message(key, typos[key]))
        out.append(ConfigInfo(definition, ConfigValueInfo(key, None, [], errors, True)))
    return out


def _named(key: str, error: str) -> str:
    """An error of a connector write names its key (Kafka's null-value message does not)."""
    return f"Invalid value null for configuration {key}: {error}" if error == input_checks.NULL_VALUE else error


def require_valid(plugins: PluginRegistry, config: Mapping[str, str], exactly_once: bool = False,
                  refuse_unknown: bool = False, worker: WorkerConfig | None = None) -> None:
    """Raise BadConfig listing every error of `config`, as a connector write does; log a warning for
    each typo'd key that is not refused."""
    infos, typos = validated(plugins, config, exactly_once, refuse_unknown, worker)
    errors = [_named(c.value.name, e) for c in infos.configs for e in c.value.errors]
    if errors:
        raise BadConfig(INVALID.format(count=len(errors), errors="\n".join(errors)))
    for key, suggestion in typos.items():  # only when the write goes ahead (refused typos are errors)
        log.warning("connector %s: %s (ignored; connector.config.unknown.keys=refuse makes it an error)",
                    config.get("name"), input_checks.unknown_key_message(key, suggestion))


def plugin_config(plugins: PluginRegistry, plugin: str, version: str | None = None) -> list[ConfigKeyInfo]:
    """A connector's own keys first, then the common keys it does not define (Connect's order); a
    converter's, header converter's, transformation's or predicate's own keys (Connect 3.x+). With
    `version` (a Maven range), a plugin whose installed version is outside it is a BadConfig."""
    try:
        info = plugins.resolve(plugin)
    except PluginNotFound:
        component = find_component(plugin)
        if component is None:
            raise NotFound(f"Unknown plugin {plugin}.") from None
        _require_version(component.class_name, component.version(), version)
        return [key_info(k) for k in component.config_def().keys.values()]
    _require_version(info.java_class, info.version(), version)
    connector = info.cls()
    own = connector.config_def()
    keys = dict(own.keys)
    for name, key in common_definition(isinstance(connector, SinkConnector)).keys.items():
        keys.setdefault(name, key)
    if isinstance(connector, SourceConnector):  # SourceConnectorConfig.configDef() defines the groups key
        keys.setdefault(topic_creation.GROUPS, topic_creation.GROUPS_KEY)
    return [key_info(k) for k in keys.values()]


def _worker_converters(worker: WorkerConfig | None) -> dict[str, str]:
    if worker is None:
        return {}
    settings = worker.settings
    return {"key.converter": settings.key_converter, "value.converter": settings.value_converter,
            "header.converter": settings.header_converter}


def _add_errors(values: dict[str, ConfigValue], errors: Mapping[str, list[str]]) -> None:
    for name, messages in errors.items():
        if name in values:
            values[name].errors.extend(m for m in messages if m not in values[name].errors)


def _require_version(class_name: str, installed: str, spec: str | None) -> None:
    problem = version_spec_validator("version", spec) or mismatch(class_name, installed, spec)
    if problem:
        raise BadConfig(problem)
