"""Checks of a connector config that Connect's ConfigDefs do not make, run with every validation
(`/config/validate`, creation, config updates, standalone and mm2.properties connector files):

- a connector `name` that the REST paths cannot address (`a/b`: `/connectors/a%2Fb` is routed as
  `/connectors/a/b`; `.` and `..`: clients remove such path segments) is an error on `name`. Connect
  itself takes them; a connector that could be created but never read or deleted is refused here;
- a null value is an error on its key, with Kafka's message (AbstractHerder.validateConnectorConfig);
- a `${provider:[path:]key}` placeholder naming a provider that is not configured is an error on its
  key. Kafka's ConfigTransformer leaves such a placeholder as it is and the connector runs with the
  literal text; here it is refused, so a typo in a secret's provider cannot start a connector;
- a key that neither the connector's definition nor Connect's connector prefixes know, and that is close
  to a key they know (difflib), is reported with the suggestion: "topcis: unknown key; did you mean
  topics?". The worker's `connector.config.unknown.keys` says whether that is a warning (`warn`, the
  default: the key stays in the config and is ignored, as in Connect) or an error (`refuse`).

Invariant: these checks report and never change the config; the config a connector is created with is
the one the caller sent. Extra keys are shown in the validation answer as Connect shows keys outside the
definition (a ConfigInfo of its own); see `unknown_key_info` for the shape of a typo's entry.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from pyconnect.api.config import ConfigValue
from pyconnect.config.providers import ProviderError, placeholder_providers, providers_for
from pyconnect.runtime.results import ConfigKeyInfo

NULL_VALUE = "Null value can not be supplied as the configuration value."
UNKNOWN_KEYS_MODES = ("warn", "refuse")
# Connect's prefixes of connector keys that no ConfigDef names (ConnectorConfig, SourceConnectorConfig,
# the client overrides of KIP-458, and the converters' own settings).
CONNECT_PREFIXES = ("producer.override.", "consumer.override.", "admin.override.", "transforms.", "predicates.",
                    "key.converter.", "value.converter.", "header.converter.", "topic.creation.", "config.providers.")
_CUTOFF = 0.8  # "topcis"/"topics" is 0.83; unrelated keys of a shared prefix stay below


def report_errors(config: Mapping[str, str | None], values: dict[str, ConfigValue]) -> None:
    """Add the errors of every check but the typo check to `values` (by key, created if need be)."""
    null_values(config, values)
    unaddressable_name(config, values)
    unknown_providers(config, values)


def unaddressable_name(config: Mapping[str, str | None], values: dict[str, ConfigValue]) -> None:
    """An error on `name` when no REST path can name the connector (see the module docstring)."""
    name = config.get("name")
    if name is None:
        return
    reason = None
    if "/" in name:
        reason = "a connector name may not contain '/': the REST API could not address the connector " \
                 "(an encoded slash in /connectors/<name> is read as a path separator)"
    elif name in (".", ".."):
        reason = "a connector name may not be '.' or '..': HTTP clients remove such path segments, so the REST " \
                 "API could not address the connector"
    if reason:
        values.setdefault("name", ConfigValue("name", name)).errors.append(
            f"Invalid value {name} for configuration name: {reason}")


def null_values(config: Mapping[str, str | None], values: dict[str, ConfigValue]) -> None:
    """Kafka's error on every key given as null (added to the key's ConfigValue, created if need be)."""
    for key, value in config.items():
        if value is None:
            values.setdefault(key, ConfigValue(key, None)).errors.append(NULL_VALUE)


def unknown_providers(config: Mapping[str, str | None], values: dict[str, ConfigValue]) -> None:
    """An error on every key whose value has a placeholder naming a provider that is not configured."""
    try:
        declared = providers_for({k: v for k, v in config.items() if v is not None})
    except ProviderError as exc:
        key = str(getattr(exc, "key", "config.providers"))
        values.setdefault(key, ConfigValue(key, config.get(key))).errors.append(str(exc))
        return
    for key, value in config.items():
        if value is None:
            continue
        for name in placeholder_providers(value):
            if name not in declared:
                known = ", ".join(sorted(declared)) or "none"
                # Not the whole value: it may hold a secret next to the placeholder.
                values.setdefault(key, ConfigValue(key, value)).errors.append(
                    f"Invalid value ${{{name}:...}} for configuration {key}: the placeholder names config provider "
                    f"{name!r}, which is not configured (configured providers: {known}; declare it with "
                    f"config.providers={name} and config.providers.{name}.class on the worker)")


def unknown_keys(config: Iterable[str], known: Iterable[str], prefixes: tuple[str, ...]) -> dict[str, str]:
    """`{key: suggestion}` for each key outside `known` and `prefixes` that is close to a known key."""
    names = list(known)
    known_set = set(names)
    out = {}
    for key in config:
        if key in known_set or key.startswith(CONNECT_PREFIXES + prefixes):
            continue
        close = difflib.get_close_matches(key, names, n=1, cutoff=_CUTOFF)
        if close:
            out[key] = close[0]
    return out


def unknown_key_message(key: str, suggestion: str) -> str:
    """The warning (or, with connector.config.unknown.keys=refuse, the error) for a typo'd key."""
    return f"{key}: unknown key; did you mean {suggestion}?"


def unknown_key_info(key: str, suggestion: str) -> ConfigKeyInfo:
    """The definition shown for a typo'd key in a validation answer. Connect's shape is kept: a full
    ConfigKeyInfo (a STRING of no group) whose documentation carries the suggestion. The suggestion is
    not put in the value's `errors` unless refused: Connect clients count errors as failures."""
    return ConfigKeyInfo(name=key, type="STRING", required=False, default_value=None, importance="LOW",
                         documentation=f"{unknown_key_message(key, suggestion)} (not a setting of this connector: "
                                       f"it is ignored)", group=None, order=-1, width="NONE",
                         display_name=key, dependents=[])
