"""Worker configuration from a Connect-style `worker.properties` (compat-spec §B.5)."""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import urlparse

from pyconnect.api.config import (
    ConfigDef,
    ConfigException,
    ConfigKey,
    ConfigType,
    Importance,
    at_least,
    non_empty_string,
)
from pyconnect.api.config_provider import ConfigProvider
from pyconnect.config.auto_restart_keys import WORKER_KEYS as AUTO_RESTART_KEYS
from pyconnect.config.client_override_policy import (
    ALLOWLIST_KEY,
    POLICY_KEY,
    ClientOverridePolicy,
    allowlist_error,
    policy_error,
    policy_from,
    unsafe_allowed,
    unsafe_allowlist_error,
)
from pyconnect.config.properties import ConfigFileError, Properties
from pyconnect.config.providers import (
    ProviderClassError,
    ProviderError,
    implicit_providers,
    install,
    providers_from_config,
    resolve,
)
from pyconnect.config.unimplemented import unimplemented_error
from pyconnect.config.worker_settings import WorkerSettings
from pyconnect.config.worker_validators import (
    exactly_once_source_support,
    rest_extensions,
    unknown_keys_mode,
)
from pyconnect.converters import converter_class
from pyconnect.converters import header_converter_class as header_converter_class  # for connector_config
from pyconnect.kafka import cluster_labels, unsafe_settings
from pyconnect.kafka.config import is_client_key, to_librdkafka
from pyconnect.kafka.unsafe_settings import UNSAFE_ALLOWLIST_KEY

log = logging.getLogger(__name__)

H, M, L = Importance.HIGH, Importance.MEDIUM, Importance.LOW
S, INT, B, LST = ConfigType.STRING, ConfigType.INT, ConfigType.BOOLEAN, ConfigType.LIST

WORKER_CONFIG = ConfigDef([
    ConfigKey("bootstrap.servers", S, "localhost:9092", H, "Kafka cluster holding the internal topics."),
    ConfigKey("group.id", S, importance=H, documentation="Workers with the same id form one cluster.",
              validator=non_empty_string),
    ConfigKey("config.storage.topic", S, importance=H,
              documentation="The name of the Kafka topic where connector configurations are stored.",
              validator=non_empty_string),
    ConfigKey("offset.storage.topic", S, importance=H,
              documentation="The name of the Kafka topic where source connector offsets are stored.",
              validator=non_empty_string),
    ConfigKey("status.storage.topic", S, importance=H,
              documentation="The name of the Kafka topic where connector and task status are stored.",
              validator=non_empty_string),
    ConfigKey("config.storage.replication.factor", ConfigType.SHORT, 3, L,
              "Replication factor used when creating the configuration storage topic."),
    ConfigKey("offset.storage.replication.factor", ConfigType.SHORT, 3, L,
              "Replication factor used when creating the offset storage topic."),
    ConfigKey("status.storage.replication.factor", ConfigType.SHORT, 3, L,
              "Replication factor used when creating the status storage topic."),
    ConfigKey("config.storage.partitions", INT, 1, L, "1 only: the config topic always has 1 partition."),
    ConfigKey("offset.storage.partitions", INT, 25, L,
              "The number of partitions used when creating the offset storage topic.", validator=at_least(1)),
    ConfigKey("status.storage.partitions", INT, 5, L,
              "The number of partitions used when creating the status storage topic.", validator=at_least(1)),
    ConfigKey("membership.storage.topic", S, "", L,
              "Topic for worker heartbeats, leader claims and assignments "
              "(default: connect-membership.<group.id>.internal)."),
    ConfigKey("offset.flush.interval.ms", ConfigType.LONG, 60000, L,
              "Interval at which to try committing offsets for tasks.", validator=at_least(1)),
    ConfigKey("offset.flush.timeout.ms", ConfigType.LONG, 5000, L,
              "Maximum time to wait for records to flush and partition offset data to be committed to offset "
              "storage before cancelling the process and restoring the offset data to be committed in a future "
              "attempt.", validator=at_least(1)),
    ConfigKey("task.shutdown.graceful.timeout.ms", ConfigType.LONG, 5000, L,
              "Amount of time to wait for tasks to shutdown gracefully (the total for all tasks).",
              validator=at_least(0)),
    ConfigKey("session.timeout.ms", INT, 10000, H, "A worker silent this long is considered dead.",
              validator=at_least(1000)),
    ConfigKey("heartbeat.interval.ms", INT, 2000, H,
              "How often a worker writes its heartbeat to the membership topic.", validator=at_least(100)),
    ConfigKey("listeners", LST, ["http://:8083"], L, "List of comma-separated URIs the REST API will "
              "listen on (http or https), e.g. http://myhost:8083,https://myhost:8084."),
    ConfigKey("rest.advertised.host.name", S, None, L, "If this is set, this is the hostname that will be "
              "given out to other workers to connect to."),
    ConfigKey("rest.advertised.port", INT, None, L, "If this is set, this is the port that will be given out "
              "to other workers to connect to."),
    ConfigKey("rest.advertised.listener", S, None, L, "Sets the advertised listener (HTTP or HTTPS) which "
              "will be given to other workers to use."),
    ConfigKey("key.converter", ConfigType.CLASS, "org.apache.kafka.connect.converters.ByteArrayConverter", L,
              "Converter class used to convert between Kafka Connect format and the serialized form that is "
              "written to Kafka: the format of the keys in messages.", validator=converter_class),
    ConfigKey("value.converter", ConfigType.CLASS, "org.apache.kafka.connect.converters.ByteArrayConverter", L,
              "Converter class used to convert between Kafka Connect format and the serialized form that is "
              "written to Kafka: the format of the values in messages.", validator=converter_class),
    ConfigKey("header.converter", ConfigType.CLASS, "org.apache.kafka.connect.storage.SimpleHeaderConverter", L,
              "HeaderConverter class used to convert between Kafka Connect format and the serialized form that "
              "is written to Kafka: the format of header values in messages.", validator=header_converter_class),
    ConfigKey("key.converter.schemas.enable", B, True, L, "The key converter's schemas.enable (JsonConverter: "
              "include schemas in serialized keys)."),
    ConfigKey("value.converter.schemas.enable", B, True, L, "The value converter's schemas.enable "
              "(JsonConverter: include schemas in serialized values)."),
    ConfigKey("plugin.path", LST, [], L, "Not supported (empty only): plugins are Python packages (entry points)."),
    ConfigKey("topic.tracking.enable", B, True, L, "Enable tracking the set of active topics per connector "
              "during runtime (GET /connectors/<name>/topics)."),
    ConfigKey("topic.tracking.allow.reset", B, True, L, "If set to true, it allows user requests to reset "
              "the set of active topics per connector."),
    ConfigKey("topic.creation.enable", B, True, L, "Whether to allow automatic creation of topics used by "
              "source connectors, when source connectors are configured with topic.creation. properties."),
    ConfigKey("connect.protocol", S, "sessioned", L, "Compatibility mode for Kafka Connect Protocol (accepted "
              "for compatibility: workers coordinate through the membership topic)."),
    ConfigKey("scheduled.rebalance.max.delay.ms", INT, 0, L,
              "0 only: tasks of a dead worker move as soon as it is detected."),
    ConfigKey("rebalance.timeout.ms", INT, 60000, L, "The maximum allowed time for each worker to join the "
              "group once a rebalance has begun."),
    ConfigKey("worker.sync.timeout.ms", INT, 3000, L, "When the worker is out of sync with other workers and "
              "needs to resynchronize configurations, wait up to this amount of time before giving up."),
    ConfigKey("worker.unsync.backoff.ms", INT, 300000, L, "When the worker is out of sync with other workers "
              "and fails to catch up within worker.sync.timeout.ms, leave the Connect cluster for this long before "
              "rejoining."),
    ConfigKey("config.providers", LST, [], L, "Names of config providers; each needs "
              "config.providers.<name>.class (and may have config.providers.<name>.param.* settings)."),
    ConfigKey("access.control.allow.origin", S, "", L, "Value to set the Access-Control-Allow-Origin header to "
              "for REST API requests (empty: no CORS)."),
    ConfigKey("access.control.allow.methods", S, "", L, "Sets the methods supported for cross origin requests "
              "by setting the Access-Control-Allow-Methods header."),
    ConfigKey("admin.listeners", LST, None, L, "List of comma-separated URIs the Admin REST API (/admin/loggers) "
              "will listen on, e.g. http://127.0.0.1:8084; it is then not served on the listeners. Unset: the "
              "admin endpoints are on the listeners; empty (\"\"): they are disabled. An https admin listener "
              "uses the REST API's TLS settings."),
    ConfigKey("connector.config.unknown.keys", S, "warn", L,
              "What a connector config key that no definition knows, but close to one that is known (a typo "
              "such as topcis for topics), gets: 'warn' (a warning with the suggestion in the log and in "
              "/config/validate; the key is ignored, as in Connect) or 'refuse' (a 400 naming the key and the "
              "suggestion).", validator=unknown_keys_mode),
    ConfigKey("exactly.once.source.support", S, "disabled", H,
              "Whether source tasks write their records and source offsets in one transaction, after the "
              "leader has fenced out older task generations ('enabled'). 'preparing' is the step of a rolling "
              "upgrade: tasks stay at-least-once (in Kafka it makes the leader's config writes transactional; "
              "here the membership's leader epochs already fence a deposed leader).",
              validator=exactly_once_source_support),
    ConfigKey(POLICY_KEY, S, "All", L,
              "What client settings connectors may override (producer.override.*, consumer.override.*, "
              "admin.override.*): None, All or Allowlist (Kafka's policies; Principal is not supported).",
              validator=policy_error),
    ConfigKey(ALLOWLIST_KEY, LST, [], M,
              "With the Allowlist policy, the client settings connectors may override (KIP-1188); empty: none.",
              validator=allowlist_error),
    ConfigKey(UNSAFE_ALLOWLIST_KEY, LST, [], M,
              "Client settings that load code or run commands (e.g. plugin.library.paths) that connector configs "
              "may carry, under any policy; empty: connector configs carrying any of them are refused.",
              validator=unsafe_allowlist_error),
    ConfigKey("client.id", S, "", L, "An id string to pass to the server when making requests (the "
              "worker's Kafka clients)."),
    ConfigKey("metrics.prometheus.port", INT, 0, L,
              "Serve Prometheus metrics on this port at /metrics (0: off; the Docker image and chart use 9404)."),
    ConfigKey("rest.extension.classes", LST, [], L,
              "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension turns on HTTP "
              "basic auth (the only REST extension implemented).", validator=rest_extensions),
    ConfigKey("rest.basic.auth.credentials.file", S, "", L,
              "Credentials for basic auth (`user: password[,role]` lines); default: the file= of the "
              "PropertyFileLoginModule in the JAAS file named by KAFKA_OPTS, as Connect reads it."),
    ConfigKey("console.read.only", B, False, L,
              "The operator console (GET /ui) shows no actions (pause, resume, restart failed tasks, stop); "
              "the REST API itself is unchanged (protect it with basic auth)."),
    ConfigKey("console.sample.interval.ms", INT, 5000, L,
              "How often the worker samples its metrics into the console's 15-minute history.",
              validator=at_least(100)),
    # Auto-restart of FAILED connectors and tasks, Strimzi's autoRestart (pyconnect/runtime/auto_restart.py);
    # a connector config may set the same keys for itself.
    *AUTO_RESTART_KEYS.keys.values(),
])

# Prefixes Connect defines on workers (client overrides, internal-topic settings, REST/TLS).
KNOWN_PREFIXES = ("producer.", "consumer.", "admin.", "config.storage.", "offset.storage.", "status.storage.",
                   "listeners.https.", "key.converter.", "value.converter.", "header.converter.",
                   "config.providers.", "rest.extension.", "metrics.", "metric.", "inter.worker.",
                   "response.http.", "task.", "worker.", "replication.policy.")


# Connect's prefix of the admin listeners' own TLS settings (not implemented: see _admin_listeners).
ADMIN_LISTENERS_HTTPS = "admin.listeners.https."


@dataclass(frozen=True)
class RestListener:
    scheme: str
    host: str
    port: int


class WorkerConfig:
    """Typed, validated worker settings plus the raw values for client pass-through."""

    #: The keys this kind of worker defines (a distributed worker's; StandaloneConfig has its own).
    definition: ClassVar[ConfigDef] = WORKER_CONFIG
    #: Prefixes of keys taken without a warning although the definition does not name them.
    known_prefixes: ClassVar[tuple[str, ...]] = KNOWN_PREFIXES
    #: Connect's connectorOffsetsTopicsPermitted: a connector's `offsets.storage.topic` is honoured.
    connector_offsets_topics_permitted: ClassVar[bool] = True

    def __init__(self, values: Mapping[str, str], source: Properties | None = None) -> None:
        self.source = source
        self.providers = self._providers(values)
        self.raw = self._resolved(values, self.providers)
        # One worker per process (MM2's herders share one file's providers): its providers are the
        # ones connector and task configs are resolved with, as in Connect's WorkerConfigTransformer.
        install(self.providers or None)
        refused = unimplemented_error({k: v for k, v in self.raw.items() if k in self.definition.keys})
        if refused:
            raise self._error(*refused)
        errors = {n: v.errors for n, v in self.definition.validate_all(self.raw).items() if v.errors}
        if errors:
            key, messages = next(iter(errors.items()))
            raise self._error(key, messages[0])
        self.values: dict[str, Any] = self.definition.parse(self.raw)
        self.settings = WorkerSettings.from_values(self._settings_values(self.values))
        cluster_labels.label_cluster(self.settings.bootstrap_servers, cluster_labels.WORKER_CLUSTER)  # for its logs
        self.client_overrides, self.unsafe_allowed = self._override_policy(self.values)
        self._warn_unknown(self.raw)
        self.listeners = self._parse_listeners("listeners", self.settings.listeners or ["http://:8083"])
        self.listener = self.listeners[0]  # the one advertised (unless rest.advertised.* say otherwise)
        self.admin_listeners = self._admin_listeners()

    def _warn_unknown(self, keys: Iterable[str]) -> None:
        """A warning naming file and line for each key that is neither defined nor passed on to clients."""
        for key in keys:
            if key not in self.definition.keys and not key.startswith(self.known_prefixes) and not is_client_key(key):
                log.warning("%sunknown worker setting %r is ignored", self.where(key), key)

    def _override_policy(self, values: Mapping[str, Any]) -> tuple[ClientOverridePolicy, frozenset[str]]:
        """The connector client override policy, and the unsafe client settings connector configs may carry
        (installed for the process: see pyconnect.kafka.unsafe_settings)."""
        try:
            policy = policy_from(values)
        except ConfigException as exc:
            key, messages = next(iter(exc.errors.items()))
            raise self._error(key, messages[0]) from None
        permitted = unsafe_allowed(values)
        unsafe_settings.allow(permitted)
        return policy, permitted

    def where(self, key: str) -> str:
        """`file:line: ` of `key` for a message ("" for a config not read from a file)."""
        return f"{self.source.path}:{self.source.line_of(key)}: " if self.source else ""

    def _settings_values(self, values: Mapping[str, Any]) -> Mapping[str, Any]:
        """The values WorkerSettings is built from (a kind of worker without some keys fills them in)."""
        return values

    def _providers(self, values: Mapping[str, str]) -> dict[str, ConfigProvider]:
        try:
            return providers_from_config(values)
        except ProviderClassError as exc:
            raise self._error(exc.key, exc.reason) from None

    def _resolved(self, values: Mapping[str, str], providers: dict[str, ConfigProvider]) -> dict[str, str]:
        """Placeholders in the worker's own settings, resolved with its providers (Kafka's AbstractConfig
        does this for every config that declares providers; see pyconnect.config.providers for the
        providers that apply when none is declared)."""
        active = providers or implicit_providers()
        out = {}
        for key, value in values.items():
            try:
                out[key] = resolve(value, active)
            except ProviderError as exc:
                raise self._error(key, str(exc)) from None
        return out

    def _error(self, key: str, reason: str) -> ConfigFileError:
        if self.source is not None:
            return self.source.error(key, reason)
        return ConfigFileError("<config>", None, key, reason)

    @property
    def group_id(self) -> str:
        return self.settings.group_id

    @property
    def membership_topic(self) -> str:
        return (self.settings.membership_storage_topic or f"connect-membership.{self.group_id}.internal")

    def _parse_listeners(self, key: str, entries: Iterable[str]) -> list[RestListener]:
        """Every entry of a listener list (Connect serves each); `file:line: key:` naming a bad one."""
        out = []
        for entry in entries:
            try:
                url = urlparse(entry)
                port = url.port
            except ValueError:
                port = None
            if url.scheme not in ("http", "https") or port is None:
                raise self._error(key, f"invalid listener {entry!r}: expected http(s)://host:port")
            out.append(RestListener(url.scheme, url.hostname or "0.0.0.0", port))
        return out

    def _admin_listeners(self) -> list[RestListener] | None:
        """`admin.listeners` (KIP-495): None when unset (/admin is served on `listeners`); an empty list when
        set to "" (/admin is served nowhere); else the listeners that serve /admin, and only they do."""
        raw = self.values.get("admin.listeners")
        refused = next((k for k in self.raw if k.startswith(ADMIN_LISTENERS_HTTPS)), None)
        if refused:
            raise self._error(refused, "not implemented: an https admin listener uses the listeners.https.ssl.* "
                                       "(or ssl.*) settings of the REST API; remove the setting")
        return None if raw is None else self._parse_listeners("admin.listeners", [e for e in raw if e])

    @property
    def advertised_url(self) -> str:
        """The REST URL given to the other workers: Connect's RestServer.advertisedUrl (the advertised keys,
        else the listener's host and port; a listener on every interface advertises the machine's address)."""
        host = self.settings.rest_advertised_host_name or (
            self.listener.host if self.listener.host not in ("", "0.0.0.0", "::") else machine_address())
        port = self.settings.rest_advertised_port or self.listener.port
        scheme = self.settings.rest_advertised_listener or self.listener.scheme
        return f"{scheme}://{host}:{port}"

    @property
    def worker_id(self) -> str:
        """`host:port` of the advertised REST URL, as Connect reports it in statuses."""
        return self.advertised_url.split("://", 1)[1]

    def _client_base(self) -> dict[str, str]:
        # Worker keys such as group.id or session.timeout.ms are the cluster's, not a client's (also in a
        # standalone worker, where they are unknown keys: a task's consumer must not join group.id).
        worker_keys = WORKER_CONFIG.keys.keys() | self.definition.keys.keys()
        return {k: v for k, v in self.raw.items() if is_client_key(k) and k not in worker_keys}

    def client_config(self, role: str, extra_prefix: str | None = None) -> dict[str, str]:
        """librdkafka settings for an internal client: top-level client keys (connection, security and
        tuning, as Connect passes them to its internal clients) + `<extra_prefix>` overrides."""
        java = self._client_base()
        java["bootstrap.servers"] = self.settings.bootstrap_servers
        if extra_prefix:
            # `admin.listeners` (and its https settings) are the REST server's, not the admin client's.
            java.update({k[len(extra_prefix):]: v for k, v in self.raw.items()
                         if k.startswith(extra_prefix) and not k.startswith("admin.listeners")})
        return to_librdkafka(java, role)

    def task_client_config(self, role: str) -> dict[str, str]:
        """Settings for a connector task's producer/consumer: client keys + `producer.`/`consumer.`."""
        java = self._client_base()
        java["bootstrap.servers"] = self.settings.bootstrap_servers
        java.update({k[len(role) + 1:]: v for k, v in self.raw.items() if k.startswith(role + ".")})
        return to_librdkafka(java, role)


def load_worker_config(props: Properties) -> WorkerConfig:
    return WorkerConfig(props.values(), props)


def machine_address() -> str:
    """This machine's address, as Java's InetAddress.getLocalHost().getHostAddress() (what Jetty advertises for a
    listener on every interface): the address the host name resolves to, 127.0.0.1 if it does not resolve."""
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"
