"""MirrorMaker 2 dedicated-mode configuration (`mm2.properties`, compat-spec §C.1).

From one properties file this derives, for every ordered cluster pair S->T that runs a herder, the
worker config (on T, group `S-mm2`, topics `mm2-*.S.internal`) and the three connector configs,
with MM2's layering and defaults. Problems are reported as `file:line: key: reason`; secret values
never appear in messages.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from connectors.mirror.config import CHECKPOINT, HEARTBEAT, SOURCE
from connectors.mirror.filters import compile_list
from pyconnect.config.properties import ConfigFileError, Properties, load_properties, split_list
from pyconnect.config.providers import ProviderError, resolve
from pyconnect.kafka.config import is_client_key

log = logging.getLogger(__name__)

CONNECTORS = {
    "MirrorSourceConnector": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    "MirrorCheckpointConnector": "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
    "MirrorHeartbeatConnector": "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector",
}
CONNECTOR_KEYS = set(SOURCE.keys) | set(CHECKPOINT.keys) | set(HEARTBEAT.keys) | {"tasks.max"}
WORKER_PREFIXES = ("offset.storage", "config.storage", "status.storage", "key.converter", "value.converter",
                   "header.converter", "task", "worker", "replication.policy")
TOP_LEVEL = {"clusters", "dedicated.mode.enable.internal.rest", "config.providers"}
BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter"
_SECRET = ("password", "secret", "jaas", "token")


@dataclass(frozen=True)
class Flow:
    source: str
    target: str

    def __str__(self) -> str:
        return f"{self.source}->{self.target}"


def _resolve(value: str, path: str, key: str, line: int | None) -> str:
    try:
        return resolve(value)
    except ProviderError as exc:
        raise ConfigFileError(path, line, key, str(exc)) from None


class MirrorMakerConfig:
    def __init__(self, props: Properties, target_filter: list[str] | None = None, resolve_providers: bool = True
                 ) -> None:
        self.props = props
        self.path = props.path
        raw = props.values()
        if "clusters" not in raw:
            raise ConfigFileError(self.path, None, "clusters", "required: the list of cluster aliases")
        self.clusters = split_list(raw["clusters"])
        if not self.clusters:
            raise ConfigFileError(self.path, props.line_of("clusters"), "clusters", "no cluster aliases given")
        # Worker (client) settings are resolved here; connector configs keep their placeholders, which
        # the worker resolves when it starts them (secrets stay out of the config topic and REST).
        self.raw_values = dict(raw)
        # resolve_providers=False checks a file for another machine (e.g. a rendered Helm ConfigMap whose
        # ${directory:...} secrets exist only in the pod).
        self.values = ({k: _resolve(v, self.path, k, props.line_of(k)) for k, v in raw.items()}
                       if resolve_providers else dict(raw))
        self._validate()
        wanted = set(target_filter or self.clusters)
        unknown = wanted - set(self.clusters)
        if unknown:
            raise ConfigFileError(self.path, None, "--clusters", f"unknown cluster alias(es) {sorted(unknown)}")
        self.flows = [f for f in self._pairs() if f.target in wanted]

    # validation ------------------------------------------------------------------------------

    def _error(self, key: str, reason: str) -> ConfigFileError:
        return ConfigFileError(self.path, self.props.line_of(key), key, reason)

    def _validate(self) -> None:
        aliases = set(self.clusters)
        for alias in self.clusters:
            if f"{alias}.bootstrap.servers" not in self.values:
                raise ConfigFileError(self.path, self.props.line_of("clusters"), f"{alias}.bootstrap.servers",
                                      f"cluster {alias!r} is listed in clusters but has no bootstrap.servers")
        for key, value in self.values.items():
            if "->" in key.split(".", 1)[0]:
                source, _, rest = key.partition("->")
                target = rest.split(".", 1)[0]
                for alias in (source, target):
                    if alias not in aliases:
                        raise self._error(key, f"unknown cluster alias {alias!r} (clusters = "
                                               f"{', '.join(self.clusters)})")
                setting = rest[len(target) + 1:]
            elif key.split(".", 1)[0] in aliases:
                setting = key.split(".", 1)[1] if "." in key else ""
            else:
                setting = key
                known = (key in TOP_LEVEL or key in CONNECTOR_KEYS or is_client_key(key)
                         or key.startswith(WORKER_PREFIXES + ("config.providers.", "producer.", "consumer.", "admin.")))
                if not known:
                    log.warning("%s:%s: unknown key %r is ignored", self.path, self.props.line_of(key), key)
            if setting in ("topics", "topics.exclude", "groups", "groups.exclude"):
                self._check_regex(key, value)

    def _check_regex(self, key: str, value: str) -> None:
        stripped = value.strip()
        if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "\"'":
            log.warning("%s:%s: %s: the value is wrapped in quotes, which are kept literally (Java properties "
                        "have no quoting): only names starting and ending with %s match", self.path,
                        self.props.line_of(key), key, stripped[0])
        try:
            compile_list(split_list(value))
        except ValueError as exc:
            raise self._error(key, str(exc)) from None

    # derivation ------------------------------------------------------------------------------

    def _flow_value(self, flow: Flow, key: str) -> str | None:
        return self.values.get(f"{flow}.{key}", self.values.get(key))

    def _pairs(self) -> list[Flow]:
        """A herder per ordered pair that is enabled or emits heartbeats (default: every pair)."""
        out = []
        for s in self.clusters:
            for t in self.clusters:
                if s == t:
                    continue
                flow = Flow(s, t)
                enabled = (self.values.get(f"{flow}.enabled") or "false").strip().lower() == "true"
                heartbeats = (self._flow_value(flow, "emit.heartbeats.enabled") or "true").strip().lower() == "true"
                if enabled or heartbeats:
                    out.append(flow)
        return out

    def cluster_props(self, alias: str, raw: bool = False) -> dict[str, str]:
        prefix = alias + "."
        source = self.raw_values if raw else self.values
        return {k[len(prefix):]: v for k, v in source.items() if k.startswith(prefix)}

    def worker_config(self, flow: Flow) -> dict[str, str]:
        """Worker settings of the herder for `flow` (it runs against the target cluster)."""
        config = dict(self.cluster_props(flow.target))
        for client in ("producer", "consumer", "admin"):
            for scope in (self.cluster_props(flow.target), self.values):  # the target's own, then global
                for key, value in scope.items():
                    if key == "bootstrap.servers" or key.startswith(("security.", "sasl.", "ssl.")):
                        config.setdefault(f"{client}.{key}", value)
        for key, value in self.values.items():
            if key.startswith(WORKER_PREFIXES):
                config.setdefault(key, value)
        s = flow.source
        defaults = {"client.id": str(flow), "group.id": f"{s}-mm2", "offset.storage.topic": f"mm2-offsets.{s}.internal",
                    "status.storage.topic": f"mm2-status.{s}.internal",
                    "config.storage.topic": f"mm2-configs.{s}.internal",
                    "key.converter": BYTE_ARRAY, "value.converter": BYTE_ARRAY, "header.converter": BYTE_ARRAY}
        for key, value in defaults.items():
            config.setdefault(key, value)
        return config

    def connector_config(self, flow: Flow, connector: str) -> dict[str, str]:
        """MM2's connectorBaseConfig for one of the three connectors of `flow`."""
        config = {k: v for k, v in self.raw_values.items()
                  if k in CONNECTOR_KEYS or k.startswith(("config.providers", "replication.policy"))}
        for side, alias in (("source", flow.source), ("target", flow.target)):
            for key, value in self.cluster_props(alias, raw=True).items():
                if key.startswith(("producer.", "consumer.", "admin.")):
                    config[f"{side}.{key}"] = value
                elif "->" not in key:
                    config[f"{side}.cluster.{key}"] = value
        config.setdefault("name", connector)
        config.setdefault("connector.class", CONNECTORS[connector])
        config.setdefault("source.cluster.alias", flow.source)
        config.setdefault("target.cluster.alias", flow.target)
        prefix = f"{flow}."
        config.update({k[len(prefix):]: v for k, v in self.raw_values.items() if k.startswith(prefix)})
        config.setdefault("enabled", "false")
        return config


def redacted(config: dict[str, str]) -> dict[str, str]:
    return {k: "[hidden]" if any(s in k.lower() for s in _SECRET) else v for k, v in config.items()}


def load(path: str | Path, clusters: list[str] | None = None) -> MirrorMakerConfig:
    return MirrorMakerConfig(load_properties(path), clusters)
