"""Every flow's three connector configs of an mm2.properties file, validated at load time.

MirrorMakerConfig derives each flow's MirrorSource, MirrorCheckpoint and MirrorHeartbeat configs from
top-level, `<alias>.` and `<source>-><target>.` keys. Before anything starts, each derived config is
validated as a connector write would be (the connector's ConfigDef, Connect's connector keys and the
input checks): an invalid value at any scope stops the process with `file:line: key: message`, the line
being the one the value came from. Otherwise the herder would write the config and every connector
would FAIL at start while the process ran on. Each flow's herder settings are checked too (they come
from `<target>.` and top-level keys). Typo'd keys get one warning naming file, line and key.

Placeholders are resolved before the values are checked where they can be (a `--check` of a file for
another machine cannot read its secrets): a key whose placeholder cannot be resolved here is checked
only for its provider being configured.
"""

from __future__ import annotations

import logging

from connectors.mirror.maker_config import CONNECTORS, Flow, MirrorMakerConfig
from pyconnect.config.properties import ConfigFileError
from pyconnect.config.providers import ProviderError, has_placeholder, providers_for, resolve
from pyconnect.config.worker import WorkerConfig
from pyconnect.plugins import registry
from pyconnect.runtime.herder import config_validation
from pyconnect.runtime.herder.errors import BadConfig
from replikafka.mirror_maker import worker_source

log = logging.getLogger(__name__)


def check_flows(config: MirrorMakerConfig) -> None:
    """Raise ConfigFileError for the first invalid value of any flow's worker or connector configs; log
    one warning per typo'd file key."""
    typos: dict[str, list[str]] = {}
    for flow in config.flows:
        _check_worker(config, flow)
        for connector in CONNECTORS:
            for key, suggestion in _check(config, flow, connector).items():
                message = f"{_file_key(config, flow, key)}: unknown key; did you mean {suggestion}?"
                typos.setdefault(message, []).append(f"{connector} of {flow}")
    for message, users in typos.items():
        key = message.split(": unknown key", 1)[0]
        log.warning("%s: %s (ignored by %s)", config.props.where(key), message, ", ".join(users))


def _check_worker(config: MirrorMakerConfig, flow: Flow) -> None:
    """The flow's herder settings, as build_workers will read them (listeners aside: the command line
    may replace them)."""
    values = {k: v for k, v in config.worker_config(flow).items() if k != "listeners"}
    WorkerConfig(values, worker_source(config, flow, values))


def _check(config: MirrorMakerConfig, flow: Flow, connector: str) -> dict[str, str]:
    """Raise for the first error of one connector config; its typo'd keys with their suggestions."""
    values, unresolved = _resolved(config.connector_config(flow, connector))
    try:
        infos, typos = config_validation.validated(registry, values)
    except BadConfig as exc:  # connector.class names no connector
        raise _error(config, flow, "connector.class", exc.message) from None
    for info in infos.configs:
        key = info.value.name
        errors = [e for e in info.value.errors if key not in unresolved or "config provider" in e]
        if errors:
            raise _error(config, flow, key, f"{errors[0]} (in {connector} of {flow})")
    return typos


def _resolved(config: dict[str, str]) -> tuple[dict[str, str], set[str]]:
    """The config with every placeholder that can be resolved here resolved, and the keys that could not."""
    try:
        providers = providers_for(config)
    except ProviderError:
        return config, set()  # the file's config.providers were checked when it was read
    out, unresolved = dict(config), set()
    for key, value in config.items():
        if has_placeholder(value):
            try:
                out[key] = resolve(value, providers)
            except ProviderError:
                unresolved.add(key)
    # Keys whose placeholders name no configured provider keep them, and the check reports them.
    return out, unresolved


def _file_keys(flow: Flow, key: str) -> list[str]:
    """The file keys a connector key can come from, the most specific first (as connector_config
    layers them: `<source>-><target>.` over `<alias>.` over the top level)."""
    keys = [f"{flow}.{key}"]
    for side, alias in (("source", flow.source), ("target", flow.target)):
        for prefix in (f"{side}.cluster.", f"{side}."):
            if key.startswith(prefix):
                keys += [f"{alias}.{key[len(prefix):]}", key[len(prefix):]]
                break
    return [*keys, key]


def _file_key(config: MirrorMakerConfig, flow: Flow, key: str) -> str:
    return next((k for k in _file_keys(flow, key) if config.props.line_of(k) is not None), key)


def _error(config: MirrorMakerConfig, flow: Flow, key: str, message: str) -> ConfigFileError:
    return config.props.error(_file_key(config, flow, key), message)

