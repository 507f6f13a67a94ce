"""Config definitions of the MM2 connectors and the client settings they derive (compat-spec §C.2)."""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from typing import Any

from connectors.mirror.client_config import client_settings
from connectors.mirror.filters import (
    DEFAULT_CONFIG_PROPERTIES_EXCLUDE,
    DEFAULT_GROUPS,
    DEFAULT_GROUPS_EXCLUDE,
    DEFAULT_TOPICS,
    DEFAULT_TOPICS_EXCLUDE,
    ConfigPropertyFilter,
    GroupFilter,
    TopicFilter,
    config_property_filter,
    config_property_filter_class,
    group_filter,
    group_filter_class,
    topic_filter,
    topic_filter_class,
)
from connectors.mirror.policy import ReplicationPolicy, load_policy, policy_class
from connectors.mirror.schema_config import SCHEMA_REPLICATION
from connectors.mirror.session_sizing import AUTO, validate_sessions
from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance, at_least, one_of, regex_list
from pyconnect.kafka.admin import Admin
from pyconnect.kafka.config import to_librdkafka

S, INT, B, LST, L = ConfigType.STRING, ConfigType.INT, ConfigType.BOOLEAN, ConfigType.LIST, ConfigType.LONG
H, M, LOW = Importance.HIGH, Importance.MEDIUM, Importance.LOW
DEFAULT_POLICY = "org.apache.kafka.connect.mirror.DefaultReplicationPolicy"
FORWARDING_ADMIN = "org.apache.kafka.clients.admin.ForwardingAdmin"
JMX_REPORTER = "org.apache.kafka.common.metrics.JmxReporter"


def _incremental_alter_configs(_name: str, value: Any) -> str | None:
    """Kafka's values, but never: topic configs are synced with IncrementalAlterConfigs only (no AlterConfigs)."""
    if str(value).strip().lower() == "never":
        return ("not implemented: topic configs are synced with IncrementalAlterConfigs only; remove "
                "use.incremental.alter.configs or set requested")
    return one_of("requested", "required", "never")(_name, value)


def _producer_max_request_size(_name: str, value: Any) -> str | None:
    """Any value is refused: no connector setting reaches the task's producer but the client overrides."""
    if value is None:
        return None
    return ("not implemented as a connector setting: set producer.override.max.request.size in the connector "
            "config, producer.max.request.size in the worker config, or <target alias>.producer.max.request.size "
            "in mm2.properties")


def _metric_reporters(_name: str, value: Any) -> str | None:
    """Empty or Java's default JmxReporter (Kafka 4's default value): both mean the runtime's own export."""
    others = [c for c in value or [] if c.strip() not in ("", JMX_REPORTER)]
    if others:
        return (f"not implemented: Java metrics reporters ({', '.join(others)}) do not load here; the connectors' "
                "metrics are served on the worker's Prometheus endpoint (metrics.prometheus.port); remove "
                "metric.reporters")
    return None


def _source_alias_in_metrics(_name: str, value: Any) -> str | None:
    """Only true: the metrics always carry the source tag (Kafka 4.0's behaviour; 3.x's default was false)."""
    if value is False:
        return ("not implemented: the metrics always carry the source tag, as in Kafka 4.0 (which removed this "
                "setting); remove add.source.alias.to.metrics or set true")
    return None


def _forwarding_admin_class(_name: str, value: Any) -> str | None:
    if str(value).strip() in (FORWARDING_ADMIN, "ForwardingAdmin"):
        return None
    return f"Custom forwarding admin classes are not supported yet; use {FORWARDING_ADMIN}"


COMMON = ConfigDef([
    ConfigKey("enabled", B, True, LOW, "Whether to replicate source->target."),
    ConfigKey("source.cluster.alias", S, importance=H, documentation="Alias of the source cluster."),
    ConfigKey("target.cluster.alias", S, "target", H, "Alias of the target cluster."),
    ConfigKey("tasks.max", INT, 1, H, "Maximum number of tasks.", validator=at_least(1)),
    ConfigKey("admin.timeout.ms", L, 60000, LOW, "Timeout for administrative tasks, e.g. detecting new topics.",
              validator=at_least(1)),
    ConfigKey("replication.policy.class", ConfigType.CLASS, DEFAULT_POLICY, LOW,
              "Class which defines the remote topic naming convention.", validator=policy_class),
    ConfigKey("replication.policy.separator", S, ".", LOW, "Separator used in remote topic naming convention."),
    ConfigKey("replication.policy.internal.topic.separator.enabled", B, True, LOW,
              "Whether to use replication.policy.separator in the names of the checkpoints and offset-syncs "
              "topics. Set it to false when upgrading from a MirrorMaker 2 that did not support custom "
              "separators, to keep using the same names for those topics."),
    ConfigKey("forwarding.admin.class", ConfigType.CLASS, FORWARDING_ADMIN, LOW,
              "Only the default: custom forwarding admins are not implemented yet.", validator=_forwarding_admin_class),
    ConfigKey("metric.reporters", LST, [], LOW, "Classes to use as metrics reporters: only Java's default "
              "JmxReporter is accepted (the metrics are exported by the worker's Prometheus endpoint); any other "
              "class is refused.", validator=_metric_reporters),
])

TOPIC_SELECTION = ConfigDef([
    ConfigKey("topics", LST, DEFAULT_TOPICS, H, "Topics to replicate (regexes, whole-name match).",
              validator=regex_list),
    ConfigKey("topics.exclude", LST, DEFAULT_TOPICS_EXCLUDE, H, "Topics not to replicate.", validator=regex_list),
    ConfigKey("topics.blacklist", LST, None, LOW, "Deprecated alias of topics.exclude (Kafka 3.x).",
              validator=regex_list),
    ConfigKey("topic.filter.class", ConfigType.CLASS, "org.apache.kafka.connect.mirror.DefaultTopicFilter", LOW,
              "TopicFilter to use. Selects topics to replicate.", validator=topic_filter_class),
    ConfigKey("offset-syncs.topic.location", S, "source", LOW,
              "The location (source/target) of the offset-syncs topic.", validator=one_of("source", "target")),
    ConfigKey("consumer.poll.timeout.ms", L, 1000, LOW, "Timeout when polling source cluster.", validator=at_least(1)),
    ConfigKey("emit.offset-syncs.enabled", B, True, LOW, "Whether to store the new offset of the replicated "
              "records in the offset-syncs topic. Without offset syncs the checkpoint connector cannot emit "
              "checkpoints or sync group offsets."),
])

SOURCE = COMMON.merge(TOPIC_SELECTION).merge(ConfigDef([
    ConfigKey("config.properties.exclude", LST, DEFAULT_CONFIG_PROPERTIES_EXCLUDE, LOW,
              "Topic config properties that should not be replicated. Supports comma-separated property names "
              "and regexes.", validator=regex_list),
    ConfigKey("config.properties.blacklist", LST, None, LOW,
              "Deprecated alias of config.properties.exclude (Kafka 3.x).", validator=regex_list),
    ConfigKey("config.property.filter.class", ConfigType.CLASS,
              "org.apache.kafka.connect.mirror.DefaultConfigPropertyFilter", LOW,
              "ConfigPropertyFilter to use. Selects topic config properties to replicate.",
              validator=config_property_filter_class),
    ConfigKey("use.defaults.from", S, "target", LOW, "Whether to use the default config values of the "
              "source or of the target cluster when syncing topic configs.", validator=one_of("source", "target")),
    ConfigKey("refresh.topics.enabled", B, True, LOW, "Whether to periodically check for new topics and "
              "partitions."),
    ConfigKey("refresh.topics.interval.seconds", L, 600, LOW, "Frequency of topic refresh.", validator=at_least(0)),
    ConfigKey("sync.topic.configs.enabled", B, True, LOW, "Whether to periodically configure remote topics "
              "to match their corresponding upstream topics."),
    ConfigKey("sync.topic.configs.interval.seconds", L, 600, LOW, "Frequency of topic config sync.",
              validator=at_least(0)),
    ConfigKey("sync.topic.deletions.enabled", B, False, LOW,
              "Delete a remote topic this flow created once its source topic has been gone from the source "
              "cluster for sync.topic.deletions.grace.period.seconds, provided it holds only this flow's "
              "copies (checked against the flow's offset syncs). Needs emit.offset-syncs.enabled."),
    ConfigKey("sync.topic.deletions.grace.period.seconds", L, 300, LOW,
              "How long a source topic must stay deleted before its remote topic is deleted (a topic re-created "
              "within this time keeps its remote topic).", validator=at_least(0)),
    ConfigKey("sync.topic.acls.enabled", B, True, LOW, "Whether to periodically configure remote topic ACLs "
              "to match their corresponding upstream topics."),
    ConfigKey("sync.topic.acls.interval.seconds", L, 600, LOW, "Frequency of topic ACL sync.", validator=at_least(0)),
    ConfigKey("replication.factor", INT, 2, LOW, "Replication factor of new remote topics (-1: broker default)."),
    ConfigKey("offset-syncs.topic.replication.factor", ConfigType.SHORT, 3, LOW,
              "Replication factor for the offset-syncs topic."),
    ConfigKey("offset.lag.max", L, 100, LOW, "How out-of-sync a remote partition can be before it is "
              "resynced.", validator=at_least(0)),
    ConfigKey("heartbeats.replication.enabled", B, True, LOW, "Whether to replicate the heartbeats topics "
              "even when the topic filter does not include them."),
    ConfigKey("add.source.alias.to.metrics", B, True, LOW, "Deprecated (Kafka 4.0 removed it: its metrics always "
              "carry the source tag, as here). The metrics carry the source, target, topic and partition tags; "
              "false is refused.", validator=_source_alias_in_metrics),
    ConfigKey("use.incremental.alter.configs", S, "requested", LOW, "Deprecated. Which API syncs topic "
              "configs: topic configs are always synced with IncrementalAlterConfigs (requested and required); "
              "never (AlterConfigs only) is refused.", validator=_incremental_alter_configs),
    ConfigKey("producer.max.request.size", INT, None, LOW,
              "Refused: a task's producer takes its settings from the worker (producer.max.request.size; in "
              "mm2.properties <target alias>.producer.max.request.size) or from the connector's "
              "producer.override.max.request.size.", validator=_producer_max_request_size),
    ConfigKey("provenance.headers.enabled", B, None, M, "Stamp every copied record with a replikafka.provenance "
              "header and skip records that already passed through the target (loop-free active/active). "
              "Unset: on for topics whose remote name is their own (IdentityReplicationPolicy), off otherwise."),
    ConfigKey("provenance.max.hops", INT, 32, LOW, "Copies a record may travel from its origin (1: only records "
              "produced on the source, for a full mesh).",
              validator=lambda _k, v: None if 1 <= v <= 32 else "Value must be within 1..32"),
    ConfigKey("fetch.sessions", S, AUTO, LOW, "Consumers (fetch sessions) a task reads its partitions with, "
              "the partitions split among them: more bytes per round trip to a far source cluster. \"auto\": "
              "one on a LAN (round trip to the source under 10 ms), else one per 12.5 ms of round trip, 2 to 16; "
              "with more sessions than partitions a partition is read ahead by several sessions at staggered "
              "offsets (docs/cross-dc.md). A number fixes the count (at most one session per partition).",
              validator=validate_sessions),
]))

def _spark_installed(_name: str, value: Any) -> str | None:
    """Backfills run on Spark, which the slim image and the base install leave out: refuse at once rather
    than fail a batch task later with an import error."""
    if not value or importlib.util.find_spec("pyspark") is not None:
        return None
    return ("Backfills run on Spark, and PySpark is not installed here: use the image's spark target or "
            "`pip install 'replikafka[spark]'`")


BACKFILL = ConfigDef([
    ConfigKey("backfill.enabled", B, False, M, "Copy the existing backlog of new partitions with a Spark job "
              "(a batch task), then hand each partition over to streaming replication at the copied end. "
              "Needs PySpark (the spark image, or the `spark` extra).", validator=_spark_installed),
    ConfigKey("backfill.threshold.records", L, 100_000, M, "Partitions with a smaller backlog than this go "
              "straight to streaming replication.", validator=at_least(0)),
    ConfigKey("backfill.parallelism", INT, 0, LOW, "Partition ranges copied at once: the backfill keeps this "
              "many Spark jobs of one task (one whole range) running (0: Spark's default parallelism, e.g. 4 "
              "for local[4], the executors' total cores, at least 2, on a cluster). A range is never split, so "
              "that its order is kept: more than the partitions to copy, or than Spark's task slots, does not "
              "help.", validator=at_least(0)),
    ConfigKey("spark.master", S, "local[*]", M, "Spark master URL of the backfill job; every other spark.* "
              "key is passed to the Spark session as is."),
])

SOURCE = SOURCE.merge(BACKFILL).merge(SCHEMA_REPLICATION)

CHECKPOINT = COMMON.merge(TOPIC_SELECTION).merge(ConfigDef([
    ConfigKey("groups", LST, DEFAULT_GROUPS, H, "Consumer groups to replicate. Supports comma-separated group "
              "IDs and regexes.", validator=regex_list),
    ConfigKey("groups.exclude", LST, DEFAULT_GROUPS_EXCLUDE, H, "Consumer groups to exclude. Supports "
              "comma-separated group IDs and regexes.", validator=regex_list),
    ConfigKey("groups.blacklist", LST, None, LOW, "Deprecated alias of groups.exclude (Kafka 3.x).",
              validator=regex_list),
    ConfigKey("group.filter.class", ConfigType.CLASS, "org.apache.kafka.connect.mirror.DefaultGroupFilter", LOW,
              "GroupFilter to use. Selects consumer groups to replicate.", validator=group_filter_class),
    ConfigKey("refresh.groups.enabled", B, True, LOW, "Whether to periodically check for new consumer "
              "groups."),
    ConfigKey("refresh.groups.interval.seconds", L, 600, LOW, "Frequency of group refresh.", validator=at_least(0)),
    ConfigKey("emit.checkpoints.enabled", B, True, LOW, "Whether to replicate consumer offsets to the "
              "target cluster."),
    ConfigKey("emit.checkpoints.interval.seconds", L, 60, LOW, "Frequency of checkpoints.", validator=at_least(0)),
    ConfigKey("sync.group.offsets.enabled", B, False, LOW, "Whether to periodically write the translated "
              "offsets to __consumer_offsets in the target cluster, as long as no active consumers in that group "
              "are connected to the target cluster."),
    ConfigKey("sync.group.offsets.interval.seconds", L, 60, LOW, "Frequency of consumer group offset sync.",
              validator=at_least(0)),
    ConfigKey("checkpoints.topic.replication.factor", ConfigType.SHORT, 3, LOW,
              "Replication factor for the checkpoints topic."),
]))

HEARTBEAT = COMMON.merge(ConfigDef([
    ConfigKey("emit.heartbeats.enabled", B, True, LOW, "Whether to emit heartbeats to the target cluster."),
    ConfigKey("emit.heartbeats.interval.seconds", L, 1, LOW, "Frequency of heartbeats.", validator=at_least(0)),
    ConfigKey("heartbeats.topic.replication.factor", ConfigType.SHORT, 3, LOW,
              "Replication factor for the heartbeats topic."),
]))


# Kafka 3.x's deprecated names: used when the current key is absent (ConfigUtils.translateDeprecatedConfigs).
# Prefixes of keys the MM2 connectors read that their ConfigDefs do not name (MirrorConnectorConfig's
# cluster and client prefixes, the replication policy's own settings, the backfill's client and Spark
# settings): the runtime's typo check leaves them alone.
CONFIG_PREFIXES = ("source.", "target.", "producer.", "consumer.", "admin.", "replication.policy.", "backfill.",
                   "spark.")
# Every MM2 connector's keys: MirrorMakerConfig hands the top-level settings of all three connectors to
# each of them (allConfigNames), so one connector's config legitimately carries the others' keys.
MIRROR_KEYS = frozenset(name for d in (SOURCE, CHECKPOINT, HEARTBEAT) for name in d.keys)
DEPRECATED_ALIASES = {"topics.exclude": "topics.blacklist", "groups.exclude": "groups.blacklist",
                      "config.properties.exclude": "config.properties.blacklist"}


class MirrorConfig:
    """Parsed connector config + derived clients' settings for one source->target flow."""

    def __init__(self, definition: ConfigDef, raw: Mapping[str, str]) -> None:
        self.raw = dict(raw)
        for key, alias in DEPRECATED_ALIASES.items():
            if key not in self.raw and alias in self.raw:
                self.raw[key] = self.raw[alias]
        self.values = definition.parse(self.raw)
        self.source = str(self.values["source.cluster.alias"])
        self.target = str(self.values["target.cluster.alias"])

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def policy(self) -> ReplicationPolicy:
        """The `replication.policy.class` instance, configured with the connector's config."""
        return load_policy(str(self.values["replication.policy.class"]), self.raw)

    def topic_filter(self) -> TopicFilter:
        """The `topic.filter.class` instance (source and checkpoint connectors)."""
        return topic_filter(str(self.values["topic.filter.class"]), self.raw)

    def group_filter(self) -> GroupFilter:
        """The `group.filter.class` instance (checkpoint connector)."""
        return group_filter(str(self.values["group.filter.class"]), self.raw)

    def config_property_filter(self) -> ConfigPropertyFilter:
        """The `config.property.filter.class` instance (source connector)."""
        return config_property_filter(str(self.values["config.property.filter.class"]), self.raw)

    def client(self, side: str, role: str) -> dict[str, str]:
        """librdkafka settings for `side` in {source,target} and `role` in {consumer,producer,admin}
        (MirrorConnectorConfig's layering: see connectors.mirror.client_config)."""
        return client_settings(self.raw, side, role)

    def admin(self, side: str) -> Admin:
        """An admin client of `side`'s cluster whose errors name the cluster alias."""
        return Admin(self.client(side, "admin"), self.source if side == "source" else self.target)

    def backfill_client(self, side: str, role: str) -> dict[str, str]:
        """`client(side, role)` plus `backfill.<role>.*` overrides (bulk-copy tuning, e.g. batch size)."""
        prefix = f"backfill.{role}."
        overrides = {k[len(prefix):]: v for k, v in self.raw.items() if k.startswith(prefix)}
        return {**self.client(side, role), **to_librdkafka(overrides, role)}

    def spark_settings(self) -> dict[str, str]:
        """Every `spark.*` key of the connector config, with spark.master defaulted."""
        out = {k: v for k, v in self.raw.items() if k.startswith("spark.")}
        out["spark.master"] = str(self.values["spark.master"])
        return out

    def offset_syncs_side(self) -> str:
        return str(self.values["offset-syncs.topic.location"])

    def remote_topics_topic(self) -> str:
        """mm2-remote-topics.<source>.internal on the target: the remote topics this flow replicates
        into and whether it created them (kept only with sync.topic.deletions.enabled; see
        connectors.mirror.topic_deletions)."""
        s = self.policy().internal_separator
        return f"mm2-remote-topics{s}{self.source}{s}internal"

    def offset_syncs_topic(self) -> str:
        """mm2-offset-syncs.<X>.internal: X is the *other* cluster's alias."""
        other = self.target if self.offset_syncs_side() == "source" else self.source
        return self.policy().offset_syncs_topic(other)
