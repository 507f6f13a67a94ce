"""A connector's `transforms` and `predicates` keys, with Connect's ConnectorConfig semantics: the keys
each alias adds (`enrich`), their per-key errors (`/config/validate`) and the chain they build."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigException, ConfigKey, ConfigType, ConfigValue, Importance
from pyconnect.api.loading import ClassLoadError
from pyconnect.api.plugin_version import mismatch, version_spec_validator
from pyconnect.transforms.chain import TransformationChain, TransformationStage
from pyconnect.transforms.registry import concrete_subclasses, java_name, resolve_class
from pyconnect.transforms.simple_config import key_errors
from pyconnect.transforms.spi import Predicate, Transformation

TRANSFORMS = "transforms"
PREDICATES = "predicates"
PREDICATE_KEY = "predicate"
NEGATE_KEY = "negate"
VERSION_KEY = "plugin.version"


def _unique_aliases(_name: str, value: Any) -> str | None:
    aliases = list(value or [])
    return "Duplicate alias provided." if len(aliases) > len(set(aliases)) else None


# The two base keys, as Connect defines them; the runtime's common connector keys take these over.
ALIAS_KEYS = ConfigDef([
    ConfigKey(TRANSFORMS, ConfigType.LIST, [], Importance.LOW, "Aliases for the transformations to be applied "
              "to records.", group="Transforms", order=7, display_name="Transforms", validator=_unique_aliases),
    ConfigKey(PREDICATES, ConfigType.LIST, [], Importance.LOW, "Aliases for the predicates used by "
              "transformations.", group="Predicates", order=8, display_name="Predicates", validator=_unique_aliases),
])
_VERSION = ConfigKey(VERSION_KEY, ConfigType.STRING, None, Importance.LOW,
                     "Version (or Maven version range, e.g. [1.0,2.0)) that the installed plugin of this alias "
                     "(transformation or predicate) must have (KIP-891); unset or 'latest' is no requirement, a "
                     "mismatch refuses the config.",
                     validator=version_spec_validator)
_IMPLICIT = ConfigDef([
    ConfigKey(PREDICATE_KEY, ConfigType.STRING, None, Importance.MEDIUM,
              "The alias of a predicate used to determine whether to apply this transformation."),
    ConfigKey(NEGATE_KEY, ConfigType.BOOLEAN, False, Importance.MEDIUM,
              "Whether the configured predicate should be negated."),
    _VERSION,
])
_BASES: dict[str, type] = {"Transformation": Transformation, "Predicate": Predicate}


def aliases(config: Mapping[str, Any], key: str) -> list[str]:
    """The aliases listed under `key`, each once, in order."""
    raw = config.get(key)
    items = raw if isinstance(raw, list) else [a.strip() for a in str(raw or "").split(",") if a.strip()]
    return list(dict.fromkeys(items))


def plugin_class(name: Any, kind: str) -> type:
    """The concrete class `name` gives for the kind; ValueError with Connect's message."""
    if name is None:
        raise ValueError(f"Not a {kind}")
    try:
        cls = resolve_class(str(name), kind)
    except ClassLoadError as exc:
        raise ValueError(str(exc)) from None
    if not issubclass(cls, _BASES[kind]):
        raise ValueError(f"Class {name} does not implement the {kind} interface")
    if inspect.isabstract(cls):
        children = concrete_subclasses(cls)
        hint = f" Did you mean {', '.join(children)}?" if children else ""
        raise ValueError(f"{kind} is abstract and cannot be created.{hint}")
    return cls


def _own_config_def(name: Any, kind: str) -> ConfigDef:
    cls = plugin_class(name, kind)
    try:
        own: ConfigDef = cls().config_def()
    except Exception as exc:
        raise ValueError(f"Error getting config definition from {kind}: {exc}") from None
    # the implicit keys mask a plugin's keys of the same names
    implicit = _IMPLICIT if kind == "Transformation" else ConfigDef([_VERSION])
    return implicit.merge(ConfigDef(k for k in own.keys.values() if k.name not in implicit.keys))


def _type_validator(config: Mapping[str, Any], prefix: str, kind: str) -> Any:
    def check(_name: str, value: Any) -> str | None:
        if kind == "Transformation" and prefix + NEGATE_KEY in config and prefix + PREDICATE_KEY not in config:
            return (f"Config '{prefix}{NEGATE_KEY}' was provided but there is no config '{prefix}{PREDICATE_KEY}' "
                    "defining a predicate to be negated.")
        try:
            _own_config_def(value, kind)
        except ValueError as exc:
            return str(exc)
        return None
    return check


def _enrich_kind(into: ConfigDef, config: Mapping[str, Any], key: str, kind: str, require_full: bool) -> None:
    for alias in aliases(config, key):
        prefix = f"{key}.{alias}."
        group = f"{key.capitalize()}: {alias}"
        type_key = prefix + "type"
        into.define(ConfigKey(type_key, ConfigType.CLASS, importance=Importance.HIGH, group=group, order=0,
                              width="LONG", display_name=f"{kind} type for {alias}",
                              documentation=f"Class for the '{alias}' {kind.lower()}.",
                              validator=_type_validator(config, prefix, kind)))
        try:
            own = _own_config_def(config.get(type_key), kind)
        except ValueError as exc:
            if require_full:
                raise ConfigException(f"Invalid value {config.get(type_key)} for configuration {type_key}: {exc}",
                                      {type_key: [str(exc)]}) from None
            continue
        for order, k in enumerate(own.keys.values(), start=1):
            into.define(ConfigKey(prefix + k.name, k.type, k.default, k.importance, k.documentation, group,
                                  order, k.width, k.display_name, k.validator, k.dependents))


def enrich(config: Mapping[str, Any], require_full: bool = False) -> ConfigDef:
    """The keys `transforms`/`predicates` add to a connector's ConfigDef (Connect's `ConnectorConfig.enrich`):
    for each alias its `.type`, the implicit `predicate`/`negate` of transforms, and the plugin's own keys
    under the alias prefix. With `require_full`, an alias whose class cannot be used raises ConfigException;
    without, its own keys are left out and the `.type` key carries the error."""
    extra = ConfigDef()
    _enrich_kind(extra, config, TRANSFORMS, "Transformation", require_full)
    _enrich_kind(extra, config, PREDICATES, "Predicate", require_full)
    return extra


@dataclass(frozen=True)
class TransformValidation:
    """What `/config/validate` shows for the transform keys: the extra keys and each key's value and errors
    (`transforms` and `predicates` included)."""

    config_def: ConfigDef
    values: dict[str, ConfigValue]

    @property
    def errors(self) -> dict[str, list[str]]:
        return {name: v.errors for name, v in self.values.items() if v.errors}


def validate(config: Mapping[str, Any]) -> TransformValidation:
    """Per-key validation of the transform and predicate keys of a connector config; never raises."""
    extra = enrich(config, require_full=False)
    values: dict[str, ConfigValue] = {}
    for key in [*ALIAS_KEYS.keys.values(), *extra.keys.values()]:
        value, errors = key_errors(key, config)
        values[key.name] = ConfigValue(key.name, value, errors)
    _version_errors(config, values)
    return TransformValidation(extra, values)


def _version_errors(config: Mapping[str, Any], values: dict[str, ConfigValue]) -> None:
    """Kafka's version check of each alias's plugin (AbstractHerder): a mismatch is an error on both
    the alias's `type` and its `plugin.version`."""
    for key, kind in ((TRANSFORMS, "Transformation"), (PREDICATES, "Predicate")):
        for alias in aliases(config, key):
            type_key, version_key = f"{key}.{alias}.type", f"{key}.{alias}.{VERSION_KEY}"
            if version_key not in values or values[version_key].errors or values[type_key].errors:
                continue
            cls = plugin_class(config.get(type_key), kind)
            problem = mismatch(java_name(cls), cls().version(), config.get(version_key))
            if problem:
                values[type_key].errors.append(problem)
                values[version_key].errors.append(problem)


def _with_prefix(config: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    return {k[len(prefix):]: v for k, v in config.items() if k.startswith(prefix)}


def _stage(config: Mapping[str, Any], alias: str, defined: ConfigDef) -> TransformationStage:
    prefix = f"{TRANSFORMS}.{alias}."
    transformation: Transformation = plugin_class(config[prefix + "type"], "Transformation")()
    own = _with_prefix(config, prefix)
    predicate_alias = own.pop(PREDICATE_KEY, None)
    negate = str(own.pop(NEGATE_KEY, "false")).strip().lower() == "true"
    own.pop(VERSION_KEY, None)  # the runtime's requirement (checked by validate), not the transform's setting
    transformation.configure(own)
    if predicate_alias is None:
        return TransformationStage(transformation, alias=alias)
    predicate_prefix = f"{PREDICATES}.{predicate_alias}."
    if predicate_prefix + "type" not in defined.keys:
        raise ConfigException(f"Unknown configuration '{predicate_prefix}type'")
    predicate: Predicate = plugin_class(config[predicate_prefix + "type"], "Predicate")()
    predicate.configure({k: v for k, v in _with_prefix(config, predicate_prefix).items() if k != VERSION_KEY})
    return TransformationStage(transformation, predicate, negate, alias)


def build_chain(config: Mapping[str, Any]) -> TransformationChain:
    """The connector's transformation chain (Connect's `transformationStages`); ConfigException with
    Connect's message for the first invalid key."""
    extra = enrich(config, require_full=True)
    result = validate(config)
    for messages in result.errors.values():
        raise ConfigException(messages[0], result.errors)
    try:
        return TransformationChain([_stage(config, alias, extra) for alias in aliases(config, TRANSFORMS)])
    except ValueError as exc:
        raise ConfigException(str(exc)) from exc
