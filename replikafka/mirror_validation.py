"""Every flow's three connector configs of an mm2.properties file, validated at load time.

MirrorMakerConfig derives each flow's MirrorSource, MirrorCheckpoint and MirrorHeartbeat configs from
top-level, `<alias>.` and `<source>-><target>.` keys. Before anything starts, each derived config is
validated as a connector write would be (the connector's ConfigDef, Connect's connector keys and the
input checks): an invalid value at any scope stops the process with `file:line: key: message`, the line
being the one the value came from. Otherwise the herder would write the config and every connector
would FAIL at start while the process ran on. Each flow's herder settings are checked too (they come
from `<target>.` and top-level keys). Typo'd keys get one warning naming file, line and key, or, when
the flow's herder has `connector.config.unknown.keys = refuse`, stop the start as a REST write would.

One kind of error does not stop the start: Java's MirrorCheckpointConnector.validate refuses a config the
file turns off (`emit.offset-syncs.enabled = false`, KIP-1031; or both `emit.checkpoints.enabled` and
`sync.group.offsets.enabled` false). Java's dedicated MirrorMaker then fails to write that connector's
config (its herder validates every write) and runs the flow's other connectors. So here: the connector
goes into `config.not_started` with the reason, one warning says why, and the flow's herder neither
writes nor keeps it (replikafka.mirror_maker), and its /health names it.

Placeholders are resolved before the values are checked where they can be (a `--check` of a file for
another machine cannot read its secrets): a key whose placeholder cannot be resolved here is checked
only for its provider being configured.
"""

from __future__ import annotations

import logging

from connectors.mirror.maker_config import CONNECTORS, Flow, MirrorMakerConfig
from connectors.mirror.maker_keys import REFUSED
from pyconnect.config.properties import ConfigFileError
from pyconnect.config.providers import ProviderError, has_placeholder, providers_for, resolve
from pyconnect.config.worker import WorkerConfig
from pyconnect.plugins import registry
from pyconnect.runtime.herder import config_validation
from pyconnect.runtime.herder.request_errors import BadConfig
from replikafka.mirror_maker import worker_source

log = logging.getLogger(__name__)


# The start of the errors Java's MirrorCheckpointConnector.validate adds when the file turns the connector off.
SWITCHED_OFF = "MirrorCheckpointConnector can't run"


def check_flows(config: MirrorMakerConfig) -> None:
    """Raise ConfigFileError for the first invalid value of any flow's worker or connector configs, or for
    a typo'd key of a flow whose herder refuses them; log one warning per typo'd file key otherwise. A
    connector the file turns off goes into `config.not_started`, with one warning per reason."""
    typos: dict[str, list[str]] = {}
    off: dict[tuple[str, str], list[str]] = {}
    for flow in config.flows:
        _check_worker(config, flow)
        for connector in CONNECTORS:
            found, reason = _check(config, flow, connector)
            for key, suggestion in found.items():
                file_key = _file_key(config, flow, connector, key)
                if config.refuses_unknown_keys(flow):
                    raise config.props.error(file_key, f"unknown key; did you mean {suggestion}? {REFUSED}")
                typos.setdefault(f"{file_key}: unknown key; did you mean {suggestion}?", []).append(
                    f"{connector} of {flow}")
            if reason is not None:
                config.not_started.setdefault(flow, {})[connector] = reason
                off.setdefault((connector, reason), []).append(str(flow))
    for message, users in typos.items():
        key = message.split(": unknown key", 1)[0]
        log.warning("%s: %s (ignored by %s)", config.props.where(key), message, ", ".join(users))
    for (connector, reason), flows in off.items():
        log.warning("%s of %s is not started: %s; the flow's other connectors run (Java's MirrorMaker refuses "
                    "this config too)", connector, ", ".join(flows), reason)


def _check_worker(config: MirrorMakerConfig, flow: Flow) -> None:
    """The flow's herder settings, as build_workers will read them (listeners aside: the command line
    may replace them)."""
    values = {k: v for k, v in config.worker_config(flow).items() if k != "listeners"}
    WorkerConfig(values, worker_source(config, flow, values))


def _check(config: MirrorMakerConfig, flow: Flow, connector: str) -> tuple[dict[str, str], str | None]:
    """Raise for the first error of one connector config that is not Java's "switched off" refusal; its
    typo'd keys with their suggestions, and why it is not started (None: it is)."""
    values, unresolved = _resolved(config.connector_config(flow, connector))
    try:
        infos, typos = config_validation.validated(registry, values)
    except BadConfig as exc:  # connector.class names no connector
        raise _error(config, flow, connector, "connector.class", exc.message) from None
    reasons = []
    for info in infos.configs:
        key = info.value.name
        for error in (e for e in info.value.errors if key not in unresolved or "config provider" in e):
            if not error.startswith(SWITCHED_OFF):
                raise _error(config, flow, connector, key, f"{error} (in {connector} of {flow})")
            file_key = _file_key(config, flow, connector, key)
            reasons.append(f"{error} ({config.props.where(file_key)}: {file_key})")
    # Java puts the same refusal on each key involved: the first names them all.
    return typos, reasons[0] if reasons else None


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


def _file_keys(flow: Flow, connector: str, key: str) -> list[str]:
    """The file keys a connector key can come from, the most specific first (as connector_config
    layers them: `<source>-><target>.<Connector>.` over `<source>-><target>.` over `<alias>.` over the
    top level)."""
    keys = [f"{flow}.{connector}.{key}", f"{flow}.{key}"]
    for side, alias in (("source", flow.source), ("target", flow.target)):
        for prefix in (f"{side}.cluster.", f"{side}."):
            if key.startswith(prefix):
                keys += [f"{alias}.{key[len(prefix):]}", key[len(prefix):]]
                break
    return [*keys, key]


def _file_key(config: MirrorMakerConfig, flow: Flow, connector: str, key: str) -> str:
    return next((k for k in _file_keys(flow, connector, key) if config.props.line_of(k) is not None), key)


def _error(config: MirrorMakerConfig, flow: Flow, connector: str, key: str, message: str) -> ConfigFileError:
    return config.props.error(_file_key(config, flow, connector, key), message)
