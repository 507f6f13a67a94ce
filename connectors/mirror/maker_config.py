"""MirrorMaker 2 dedicated-mode configuration (`mm2.properties`, compat-spec §C.1).

From one properties file this derives, for every ordered cluster pair S->T that runs a herder, the
worker config (on T, group `S-mm2`, topics `mm2-*.S.internal`) and the three connector configs, as
Kafka's MirrorMakerConfig does (clusterPairs, clusterProps, workerConfig, connectorBaseConfig):
- top-level bootstrap.servers, security.protocol and client SSL/SASL settings apply to every cluster
  (as the cluster's own and as its producer/consumer/admin settings), below `<alias>.` values;
- top-level worker settings (offset.storage*, config.storage*, status.storage*, *.converter*, task*,
  worker*, replication.policy*) override `<alias>.` values in every worker config;
- top-level keys whose names are connector settings (every name in the MM2 connectors' ConfigDefs,
  Connect's connector settings such as transforms, errors.* and the converters, and the client
  security settings) go to every connector config, below `<source>-><target>.` values; other top-level
  keys (e.g. `transforms.x.type`, `linger.ms`) are not used, as in Kafka, and a warning says so
  (connectors.mirror.maker_keys: a typo gets a suggestion, never advice that repeats it as a key).
- `connector.config.unknown.keys` (a worker setting: `warn` or `refuse`) may be set at the top level for
  every flow's herder, below `<target>.` values. With `refuse` for any flow, a typo'd top-level key stops
  the start (`file:line: key: ...`); replikafka.mirror_validation does the same for each flow's keys.
- `not_started` holds, per flow, the connectors dedicated mode does not start because Java's validation
  refuses their config as the file turns them off (set by replikafka.mirror_validation.check_flows).
- `<source>-><target>.<Connector>.<key>` (Connector: MirrorSourceConnector, MirrorCheckpointConnector or
  MirrorHeartbeatConnector) is this project's per-connector scope (Strimzi's per-connector settings of
  KafkaMirrorMaker2's mirrors): it goes to that connector only, above `<source>-><target>.` values, and
  `<source>-><target>.<Connector>.state` (running, paused or stopped; nowhere else) is the state the
  flow's leader gives the connector when the process starts (`connector_state`).
Where Java's reading of a value differs from the obvious one (a flag with trailing whitespace, an
empty list item) the file is read as Java reads it, with a warning naming file and line. Problems
are reported as `file:line: key: reason`; secret values never appear in messages.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from connectors.mirror.config import CHECKPOINT, HEARTBEAT, SOURCE
from connectors.mirror.filters import compile_list
from connectors.mirror.maker_keys import REFUSED, UNKNOWN_KEYS, refuses, unused
from connectors.mirror.schema_config import CLUSTER_KEYS
from pyconnect.api.config import ConfigType
from pyconnect.api.states import TargetState
from pyconnect.config.auto_restart_keys import CONNECTOR_KEYS as AUTO_RESTART_KEYS
from pyconnect.config.properties import ConfigFileError, Properties, load_properties, split_list
from pyconnect.config.providers import ProviderError, has_placeholder, providers_for, resolve
from pyconnect.kafka.config import MIRROR_CLIENT_KEYS, invalid_security_protocol, is_mirror_client_key

log = logging.getLogger(__name__)

CONNECTORS = {
    "MirrorSourceConnector": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    "MirrorCheckpointConnector": "org.apache.kafka.connect.mirror.MirrorCheckpointConnector",
    "MirrorHeartbeatConnector": "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector",
}
# ConnectorConfig.configDef()'s names (Kafka 3.9), part of every MM2 connector's ConfigDef.
CONNECT_CONNECTOR_KEYS = {
    "name", "connector.class", "tasks.max", "tasks.max.enforce", "key.converter", "value.converter",
    "header.converter", "config.action.reload", "transforms", "predicates", "errors.retry.timeout",
    "errors.retry.delay.max.ms", "errors.tolerance", "errors.log.enable", "errors.log.include.messages",
}
_DEFS = (SOURCE, CHECKPOINT, HEARTBEAT)
# MirrorMakerConfig.allConfigNames(): MirrorConnectorConfig's base also defines the client security
# settings (not bootstrap.servers).
# SourceConnectorConfig's keys are not in those ConfigDefs in Kafka, so not passed on from the top level.
# Plus this runtime's auto-restart keys (pyconnect/runtime/auto_restart.py): at the top level or per flow.
CONNECTOR_KEYS = (({name for d in _DEFS for name in d.keys} - {"exactly.once.support", "transaction.boundary"})
                  | CONNECT_CONNECTOR_KEYS | (MIRROR_CLIENT_KEYS - {"bootstrap.servers"})
                  | set(AUTO_RESTART_KEYS.keys))
LIST_KEYS = ({name for d in _DEFS for name, k in d.keys.items() if k.type is ConfigType.LIST}
             | {"transforms", "predicates", "config.providers", "clusters"})
WORKER_PREFIXES = ("offset.storage", "config.storage", "status.storage", "key.converter", "value.converter",
                   "header.converter", "task", "worker", "replication.policy")
TOP_LEVEL = {"clusters", "dedicated.mode.enable.internal.rest", "config.providers", "listeners"}
BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter"
_CLIENT_PREFIXES = ("consumer", "producer", "admin")  # Java's regex `^consumer.*|^producer.*|^admin.*`
STATES = {"running": TargetState.STARTED, "paused": TargetState.PAUSED, "stopped": TargetState.STOPPED}
_FLOW_FLAGS = ("enabled", "emit.heartbeats.enabled")  # read with Boolean.parseBoolean by clusterPairs


@dataclass(frozen=True)
class Flow:
    """One ordered cluster pair: a herder on `target` that replicates from `source`."""

    source: str
    target: str

    def __str__(self) -> str:
        return f"{self.source}->{self.target}"


def java_boolean(value: str | None) -> bool:
    """`Boolean.parseBoolean`: true only for "true" in any case, with no whitespace around it."""
    return value is not None and value.lower() == "true"


class MirrorMakerConfig:
    """An mm2.properties file as Kafka's MirrorMakerConfig reads it (see the module docstring)."""

    def __init__(self, props: Properties, target_filter: list[str] | None = None, resolve_providers: bool = True
                 ) -> None:
        self.props = props
        self.path = props.path
        raw = props.values()
        if "clusters" not in raw:
            raise ConfigFileError(self.path, None, "clusters", "required: the list of cluster aliases")
        self.clusters = split_list(raw["clusters"])
        if not self.clusters:
            raise props.error("clusters", "no cluster aliases given")
        if "" in self.clusters:
            raise props.error("clusters", "empty cluster alias: Java's LIST type keeps it as a cluster named '' "
                                          "(remove the extra comma)")
        # Connector configs keep their placeholders (the worker resolves them when it starts them, so
        # secrets stay out of the config topic and REST); worker and client settings are resolved here.
        self.raw_values = dict(raw)
        # resolve_providers=False checks a file for another machine (e.g. a rendered Helm ConfigMap whose
        # ${directory:...} secrets exist only in the pod).
        self.values = self._resolved(raw) if resolve_providers else dict(raw)
        self._validate()
        wanted = set(target_filter or self.clusters)
        unknown = wanted - set(self.clusters)
        if unknown:
            raise ConfigFileError(self.path, None, "--clusters", f"unknown cluster alias(es) {sorted(unknown)}")
        self.flows = [f for f in self._pairs() if f.target in wanted]
        self.not_started: dict[Flow, dict[str, str]] = {}  # flow -> connector -> why (see the module docstring)

    def _resolved(self, raw: dict[str, str]) -> dict[str, str]:
        """Values with `${provider:path:key}` placeholders resolved by the file's config.providers."""
        try:
            providers = providers_for(raw)
        except ProviderError as exc:
            key = str(getattr(exc, "key", "config.providers"))
            raise self.props.error(key, str(getattr(exc, "reason", exc))) from None
        out = dict(raw)
        for key, value in raw.items():
            if has_placeholder(value):
                try:
                    out[key] = resolve(value, providers)
                except ProviderError as exc:
                    raise self.props.error(key, str(exc)) from None
        return out

    # validation ------------------------------------------------------------------------------

    def _validate(self) -> None:
        aliases = set(self.clusters)
        for alias in self.clusters:
            if f"{alias}.bootstrap.servers" not in self.values and "bootstrap.servers" not in self.values:
                raise ConfigFileError(self.path, self.props.line_of("clusters"), f"{alias}.bootstrap.servers",
                                      f"cluster {alias!r} is listed in clusters but has no bootstrap.servers")
        for key, value in self.values.items():
            setting = self._setting(key, aliases)
            self._check_state(key, setting, value)
            if setting in ("topics", "topics.exclude", "groups", "groups.exclude"):
                self._check_regex(key, value)
            if setting in AUTO_RESTART_KEYS.keys:  # this runtime's keys: a bad value stops the start, as Connect's
                errors = AUTO_RESTART_KEYS.validate_all({setting: value})[setting].errors
                if errors:
                    raise self.props.error(key, errors[0])
            if key == "security.protocol":  # MirrorMakerConfig's own ConfigDef checks only the top level
                error = invalid_security_protocol(value)
                if error:
                    raise self.props.error(key, error)
            if key == "dedicated.mode.enable.internal.rest" and value.strip().lower() != "true":
                raise self.props.error(key, internal_rest_error(value))
            if setting in LIST_KEYS and "" in split_list(value):
                log.warning("%s: %s: the list %r has an empty item, which Java's LIST type keeps (as a pattern it "
                            "matches the empty name); remove the extra comma", self.props.where(key), key, value)
        self._warn_flow_flags()

    def _setting(self, key: str, aliases: set[str]) -> str:
        """The setting a key names once its `<alias>.` or `<source>-><target>.` scope is removed."""
        head = key.split(".", 1)[0]
        if "->" in head:
            source, _, rest = key.partition("->")
            target = rest.split(".", 1)[0]
            for alias in (source, target):
                if alias not in aliases:
                    raise self.props.error(key, f"unknown cluster alias {alias!r} (clusters = "
                                                f"{', '.join(self.clusters)})")
            setting = rest[len(target) + 1:]
            connector, _, scoped = setting.partition(".")
            return scoped if connector in CONNECTORS and scoped else setting
        if head in aliases:
            return key.split(".", 1)[1] if "." in key else ""
        if not self._used_at_top_level(key):
            self._unused_top_level(key)
        return key

    def _unused_top_level(self, key: str) -> None:
        """A warning for a top-level key Kafka does not pass on; a typo'd one stops the start when any
        flow's herder has `connector.config.unknown.keys = refuse`."""
        found = unused(key, [*TOP_LEVEL, *CONNECTOR_KEYS, *MIRROR_CLIENT_KEYS, UNKNOWN_KEYS])
        if found.suggestion is None:
            log.warning("%s: top-level key %r is not used: %s", self.props.where(key), key, found.advice())
        elif any(self.refuses_unknown_keys(flow) for flow in self._pairs()):
            raise self.props.error(key, f"{found.typo()} {REFUSED}")
        else:
            log.warning("%s: %s: %s (ignored)", self.props.where(key), key, found.typo())

    def refuses_unknown_keys(self, flow: Flow) -> bool:
        """The flow's herder has `connector.config.unknown.keys = refuse` (`<target>.` over the top level)."""
        return refuses(self.values.get(f"{flow.target}.{UNKNOWN_KEYS}", self.values.get(UNKNOWN_KEYS)))

    def _check_state(self, key: str, setting: str, value: str) -> None:
        """`state` only in a connector's scope, and one of STATES."""
        if setting != "state":
            return
        head, _, rest = key.partition(".")
        if "->" not in head or rest.split(".", 1)[0] not in CONNECTORS:
            raise self.props.error(key, "a connector's state is set per connector: "
                                        "<source>-><target>.<MirrorSourceConnector|MirrorCheckpointConnector|"
                                        "MirrorHeartbeatConnector>.state")
        if value.strip().lower() not in STATES:
            raise self.props.error(key, f"invalid state {value.strip()!r}: must be running, paused or stopped")

    @staticmethod
    def _used_at_top_level(key: str) -> bool:
        return (key in TOP_LEVEL or key in CONNECTOR_KEYS or is_mirror_client_key(key) or key == UNKNOWN_KEYS
                or key.startswith(WORKER_PREFIXES + ("config.providers.",)))

    def _warn_flow_flags(self) -> None:
        """Flags clusterPairs reads with Boolean.parseBoolean, which does not trim: `true ` is false."""
        keys = ["emit.heartbeats.enabled"] + [f"{Flow(s, t)}.{flag}" for s in self.clusters for t in self.clusters
                                              if s != t for flag in _FLOW_FLAGS]
        for key in keys:
            value = self.values.get(key)
            if value is not None and not java_boolean(value) and value.strip().lower() == "true":
                log.warning("%s: %s = %r is false to Java's MirrorMakerConfig when it picks the flows that get a "
                            "herder (Boolean.parseBoolean does not trim whitespace), and so it is here; remove the "
                            "whitespace to mean true", self.props.where(key), key, value)

    def _check_regex(self, key: str, value: str) -> None:
        stripped = value.strip()
        if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "\"'":
            log.warning("%s: %s: the value is wrapped in quotes, which are kept literally (Java properties "
                        "have no quoting): only names starting and ending with %s match", self.props.where(key),
                        key, stripped[0])
        try:
            compile_list(split_list(value))
        except ValueError as exc:
            raise self.props.error(key, str(exc)) from None

    # derivation ------------------------------------------------------------------------------

    def _pairs(self) -> list[Flow]:
        """MirrorMakerConfig.clusterPairs: a herder per ordered pair that is enabled or emits heartbeats."""
        heartbeats = java_boolean(self.values["emit.heartbeats.enabled"]) \
            if "emit.heartbeats.enabled" in self.values else True
        out = []
        for s in self.clusters:
            for t in self.clusters:
                if s == t:
                    continue
                flow = Flow(s, t)
                flow_heartbeats = java_boolean(self.values[f"{flow}.emit.heartbeats.enabled"]) \
                    if f"{flow}.emit.heartbeats.enabled" in self.values else heartbeats
                if java_boolean(self.values.get(f"{flow}.enabled")) or flow_heartbeats:
                    out.append(flow)
        return out

    def cluster_props(self, alias: str, raw: bool = False) -> dict[str, str]:
        """MirrorMakerConfig.clusterProps: `<alias>.*` (prefix stripped); its client settings copied to
        producer./consumer./admin. when absent there; then the top-level client settings, each where absent."""
        source = self.raw_values if raw else self.values
        prefix = alias + "."
        props = {k[len(prefix):]: v for k, v in source.items() if k.startswith(prefix)}
        own = [(k, v) for k, v in props.items() if is_mirror_client_key(k)]
        top = [(k, v) for k, v in source.items() if is_mirror_client_key(k)]
        for key, value in own + top:
            for client in _CLIENT_PREFIXES:
                props.setdefault(f"{client}.{key}", value)
        for key, value in top:
            props.setdefault(key, value)
        return props

    def worker_config(self, flow: Flow) -> dict[str, str]:
        """Worker settings of the herder for `flow` (it runs against the target cluster)."""
        # A cluster's schema registry is its flows' connectors' setting (schema_config.py), not the herder's.
        config = {k: v for k, v in self.cluster_props(flow.target).items() if k not in CLUSTER_KEYS}
        # Top-level worker settings win over the target's own (MirrorMakerConfig.workerConfig's putAll).
        config.update({k: v for k, v in self.values.items() if k.startswith(WORKER_PREFIXES)})
        config.update({k: v for k, v in self.raw_values.items() if k.startswith("config.providers")})
        if UNKNOWN_KEYS in self.values:  # every herder's, below its target's own (see the module docstring)
            config.setdefault(UNKNOWN_KEYS, self.values[UNKNOWN_KEYS])
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
                config[f"{side}.{key}" if key.startswith(_CLIENT_PREFIXES) else f"{side}.cluster.{key}"] = value
        config.setdefault("name", connector)
        config.setdefault("connector.class", CONNECTORS[connector])
        config.setdefault("source.cluster.alias", flow.source)
        config.setdefault("target.cluster.alias", flow.target)
        prefix = f"{flow}."
        flow_keys = {k[len(prefix):]: v for k, v in self.raw_values.items() if k.startswith(prefix)}
        config.update({k: v for k, v in flow_keys.items() if k.split(".", 1)[0] not in CONNECTORS})
        own = f"{connector}."
        config.update({k[len(own):]: v for k, v in flow_keys.items() if k.startswith(own) and k != own + "state"})
        config.setdefault("enabled", "false")
        return config

    def connector_state(self, flow: Flow, connector: str) -> TargetState | None:
        """The state `<flow>.<connector>.state` asks for (None: not set, the stored state stays)."""
        value = self.values.get(f"{flow}.{connector}.state")
        return None if value is None else STATES[value.strip().lower()]

    def not_started_notes(self, flow: Flow) -> tuple[str, ...]:
        """What the flow's /health adds: each connector that is not started, and why."""
        return tuple(f"{name} is not started: {why}." for name, why in self.not_started.get(flow, {}).items())

    def client_config(self, alias: str) -> dict[str, str]:
        """MirrorMakerConfig.clientConfig's properties (for a MirrorClientConfig): every top-level value
        overlaid with the cluster's properties, resolved."""
        return {**self.values, **self.cluster_props(alias)}


def internal_rest_error(value: str) -> str:
    """Why a `dedicated.mode.enable.internal.rest` other than true is refused: every flow's REST API is served."""
    if value.strip().lower() != "false":
        return f"Invalid value {value} for configuration dedicated.mode.enable.internal.rest: Expected value to " \
               "be either true or false"
    return ("not implemented: every flow's REST API (with the endpoints that forward to its leader) is served on "
            "listeners whatever this is; remove the setting or set true")


def load(path: str | Path, clusters: list[str] | None = None) -> MirrorMakerConfig:
    """Read an mm2.properties file (ConfigFileError names file, line and key)."""
    return MirrorMakerConfig(load_properties(path), clusters)
