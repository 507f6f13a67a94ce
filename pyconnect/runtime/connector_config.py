"""The keys every connector has (Connect's ConnectorConfig), validated under each plugin's own."""

from __future__ import annotations

from typing import Any

from pyconnect.api.config import (
    ConfigDef,
    ConfigKey,
    ConfigType,
    Importance,
    at_least,
    non_empty_string_without_control_chars,
)
from pyconnect.api.plugin_version import version_spec_validator
from pyconnect.config.auto_restart_keys import CONNECTOR_KEYS as AUTO_RESTART_KEYS
from pyconnect.config.worker import header_converter_class
from pyconnect.converters import converter_class
from pyconnect.runtime.errors.config_keys import ERROR_KEYS
from pyconnect.runtime.sink.config import SINK, sink_errors
from pyconnect.transforms import connector_config as transforms
from pyconnect.transforms.connector_config import ALIAS_KEYS


def case_insensitive_in(*allowed: str) -> Any:
    """Connect's CaseInsensitiveValidString.in(...)."""
    def check(_name: str, value: Any) -> str | None:
        if str(value).strip().lower() in allowed:
            return None
        return f"String must be one of (case insensitive): {', '.join(allowed)}"
    return check


def _null_or_at_least_zero(_name: str, value: Any) -> str | None:
    return None if value is None or value >= 0 else "Value must be at least 0"


def _non_empty_or_null(_name: str, value: Any) -> str | None:
    return None if value is None or str(value).strip() else "String may not be empty"


EOS = "Exactly Once Support"
# Keys every connector has (Connect's ConnectorConfig), merged under each plugin's own definition.
COMMON = ConfigDef([
    ConfigKey("name", ConfigType.STRING, importance=Importance.HIGH, group="Common", order=1,
              documentation="Globally unique name to use for this connector.",
              validator=non_empty_string_without_control_chars),
    ConfigKey("connector.class", ConfigType.STRING, importance=Importance.HIGH, group="Common", order=2,
              documentation="Name or alias of the class for this connector."),
    ConfigKey("tasks.max", ConfigType.INT, 1, Importance.HIGH, "Maximum number of tasks to use for this connector.",
              group="Common", order=3, validator=at_least(1)),
    # KIP-1004 (Kafka 3.8): pyconnect/runtime/tasks_max.py.
    ConfigKey("tasks.max.enforce", ConfigType.BOOLEAN, True, Importance.LOW, group="Common", order=4,
              documentation="(Deprecated) Whether to enforce that the tasks.max property is respected by the "
              "connector. By default, a connector that generates more task configs than tasks.max fails; set "
              "to false, the connector may generate more tasks than tasks.max, a warning is logged and they all "
              "run."),
    ConfigKey("key.converter", ConfigType.CLASS, None, Importance.LOW, group="Common", order=5,
              documentation="Converter class for the keys of this connector's records "
              "(unset: the worker's key.converter).",
              validator=converter_class),
    ConfigKey("value.converter", ConfigType.CLASS, None, Importance.LOW, group="Common", order=6,
              documentation="Converter class for the values of this connector's records "
              "(unset: the worker's value.converter).",
              validator=converter_class),
    ConfigKey("header.converter", ConfigType.CLASS, None, Importance.LOW, group="Common", order=7,
              documentation="HeaderConverter class for the header values of this connector's records "
              "(unset: the worker's header.converter).",
              validator=header_converter_class),
    # KIP-891's version requirements (Maven ranges); pyconnect.plugins.version_errors refuses a mismatch.
    *(ConfigKey(f"{what}.plugin.version", ConfigType.STRING, None, Importance.LOW, group="Common", order=order,
                documentation=f"Version (or Maven version range, e.g. [1.0,2.0)) that the installed {text} must "
                "have; a bare version is an exact requirement, 'latest' or unset is none. The version of a "
                "plugin is that of the Python distribution providing it (GET /connector-plugins lists it); "
                f"a mismatch refuses the config.", validator=version_spec_validator)
      for what, text, order in (("connector", "connector", 7), ("key.converter", "key converter", 8),
                                ("value.converter", "value converter", 9),
                                ("header.converter", "header converter", 10))),
    # Connect's SourceConnectorConfig keys of exactly-once support (KIP-618): see runtime/source/transactions.py.
    ConfigKey("exactly.once.support", ConfigType.STRING, "requested", Importance.MEDIUM, group=EOS, order=1,
              documentation="Permitted values are requested, required. If set to \"required\", forces a "
              "preflight check for the connector to ensure that it can provide exactly-once semantics with "
              "the given configuration.", validator=case_insensitive_in("requested", "required")),
    ConfigKey("transaction.boundary", ConfigType.STRING, "poll", Importance.MEDIUM, group=EOS, order=2,
              documentation="Permitted values are: poll, interval, connector. 'poll': one transaction per "
              "batch a task returns; 'interval': a transaction every transaction.boundary.interval.ms; "
              "'connector': the connector's own boundaries (no connector here defines them).",
              validator=case_insensitive_in("poll", "interval", "connector")),
    ConfigKey("transaction.boundary.interval.ms", ConfigType.LONG, None, Importance.LOW, group=EOS, order=3,
              documentation="With transaction.boundary=interval, how often tasks commit their transaction; "
              "unset, the worker's offset.flush.interval.ms.", validator=_null_or_at_least_zero),
    ConfigKey("offsets.storage.topic", ConfigType.STRING, None, Importance.LOW, group="offsets.topic", order=1,
              documentation="The name of a separate offsets topic to use for this connector, created on the "
              "cluster its producer writes to; unset, the worker's offsets topic (runtime/source/offset_stores.py).",
              validator=_non_empty_or_null),
    # Connect's transforms and predicates (pyconnect/transforms; each alias's keys are added per config).
    *ALIAS_KEYS.keys.values(),
    # Connect's error-handling keys (ConnectorConfig); sinks add the dead letter queue's (sink_config).
    *ERROR_KEYS.keys.values(),
    # Per-connector overrides of the worker's auto.restart.* settings (runtime/auto_restart.py).
    *AUTO_RESTART_KEYS.keys.values(),
])


def common_definition(sink: bool) -> ConfigDef:
    """The keys every connector of the kind has: COMMON, plus SinkConnectorConfig's for a sink."""
    return COMMON.merge(SINK) if sink else COMMON


def common_errors(config_def: ConfigDef, config: dict[str, Any] | Any, sink: bool = False) -> list[str]:
    """Errors of the common keys a plugin does not define itself, and of each transform's and
    predicate's keys, as `key: message` lines."""
    own = [f"{name}: {msg}" for name, value in common_definition(sink).validate_all(config).items()
           if name not in config_def.keys for msg in value.errors]
    if sink:
        own += [f"{name}: {msg}" for name, messages in sink_errors(config).items()
                for msg in messages]
    extra = transform_errors(transforms.validate(config), config)
    # `transforms`/`predicates` are COMMON keys too: each message once.
    return list(dict.fromkeys(own + [f"{name}: {msg}" for name, messages in extra.items() for msg in messages]))


def transform_errors(result: transforms.TransformValidation, config: Any) -> dict[str, list[str]]:
    """The per-key errors of the transform keys, plus what only building the chain finds (a predicate
    alias with no definition), on `transforms`. Adds the latter to `result`'s `transforms` value too."""
    errors = dict(result.errors)
    if errors or not transforms.aliases(config, transforms.TRANSFORMS):
        return errors
    try:
        transforms.build_chain(config).close()
    except Exception as exc:  # ConfigException, or a transform's own configure() refusing its settings
        result.values["transforms"].errors.append(str(exc))
        errors["transforms"] = [str(exc)]
    return errors
