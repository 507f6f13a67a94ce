"""Connector config validation and config definitions as the herder reports them (Connect's
AbstractHerder.validateConnectorConfig and connectorPluginConfig)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigKey, ConfigValue, config_string
from pyconnect.api.connector import SourceConnector
from pyconnect.api.sink import SinkConnector
from pyconnect.config.worker import WorkerConfig
from pyconnect.plugins import PluginNotFound, PluginRegistry
from pyconnect.runtime.client_overrides import with_override_errors
from pyconnect.runtime.connector_config import common_definition, transform_errors
from pyconnect.runtime.errors import BadConfig, NotFound
from pyconnect.runtime.exactly_once_validation import exactly_once_errors
from pyconnect.runtime.results import ConfigInfo, ConfigInfos, ConfigKeyInfo, ConfigValueInfo
from pyconnect.runtime.sink_config import sink_errors
from pyconnect.transforms import connector_config as transforms

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
             worker: WorkerConfig | None = None) -> ConfigInfos:
    """The common keys plus the plugin's keys with per-key errors. Values are shown parsed, defaults
    filled in and passwords hidden; `name` is `connector.class` as given. `exactly_once`: the worker
    has `exactly.once.source.support=enabled`; `worker`: its client override rules apply."""
    class_name = config.get("connector.class")
    if class_name is None:
        raise BadConfig(f"Connector config {java_map_string(config)} contains no connector type")
    try:
        connector = plugins.resolve(class_name).cls()
    except PluginNotFound as exc:
        raise BadConfig(str(exc)) from None  # Connect's BadRequestException (Kafka 4.x)
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
    if sink:
        for name, messages in sink_errors(config).items():
            if name in values:
                values[name].errors.extend(m for m in messages if m not in values[name].errors)
    configs = [ConfigInfo(key_info(key), _value_info(name, key, values.get(name)))
               for name, key in definition.keys.items()]
    configs = with_override_errors(configs, config, sink, worker)
    groups = list(dict.fromkeys(k.group for k in definition.keys.values() if k.group))
    return ConfigInfos(class_name, sum(len(c.value.errors) for c in configs), groups, configs)


def require_valid(plugins: PluginRegistry, config: Mapping[str, str], exactly_once: bool = False,
                  worker: WorkerConfig | None = None) -> None:
    """Raise BadConfig listing every error of `config`, as a connector write does."""
    errors = [e for c in validate(plugins, config, exactly_once, worker).configs for e in c.value.errors]
    if errors:
        raise BadConfig(INVALID.format(count=len(errors), errors="\n".join(errors)))


def plugin_config(plugins: PluginRegistry, plugin: str) -> list[ConfigKeyInfo]:
    """The plugin's own keys first, then the common keys it does not define (Connect's order)."""
    try:
        connector = plugins.resolve(plugin).cls()
        own = connector.config_def()
    except PluginNotFound:
        raise NotFound(f"Unknown plugin {plugin}.") from None
    keys = dict(own.keys)
    for name, key in common_definition(isinstance(connector, SinkConnector)).keys.items():
        keys.setdefault(name, key)
    return [key_info(k) for k in keys.values()]
