"""Replication policies: how remote topics are named and traced back (compat-spec §C.6)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping

from pyconnect.api.loading import class_validator, java_aliases, new_instance

HEARTBEATS_TOPIC = "heartbeats"
# The worker's default membership topic is connect-membership.<group.id>.internal (pyconnect.config.worker).
MEMBERSHIP_PREFIX = "connect-membership."
JAVA_PACKAGE = "org.apache.kafka.connect.mirror"


def _java_split(text: str, sep: str) -> list[str]:
    """`String.split` on a literal separator: trailing empty pieces are dropped."""
    parts = text.split(sep)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


class ReplicationPolicy(ABC):
    """Base: subclasses implement format_remote_topic/topic_source/upstream_topic."""

    separator = "."
    internal_separator_enabled = True

    def configure(self, config: Mapping[str, object]) -> None:
        """Read the separator settings. As in Kafka's DefaultReplicationPolicy, an absent key leaves the
        current setting, and the internal-separator flag is read only along with a separator."""
        if "replication.policy.separator" in config:
            self.separator = str(config["replication.policy.separator"])
            enabled = config.get("replication.policy.internal.topic.separator.enabled")
            if enabled is not None:
                self.internal_separator_enabled = str(enabled).strip().lower() == "true"

    @property
    def internal_separator(self) -> str:
        """The separator of MM2's internal topic names: `separator`, or `.` when that is disabled."""
        return self.separator if self.internal_separator_enabled else "."

    @abstractmethod
    def format_remote_topic(self, source_alias: str, topic: str) -> str:
        """See compat-spec §C.6."""

    @abstractmethod
    def topic_source(self, topic: str) -> str | None:
        """See compat-spec §C.6."""

    @abstractmethod
    def upstream_topic(self, topic: str) -> str | None:
        """See compat-spec §C.6."""

    def original_topic(self, topic: str) -> str:
        current = topic
        while True:
            upstream = self.upstream_topic(current)
            if upstream is None or upstream == current:
                return current
            current = upstream

    def heartbeats_topic(self) -> str:
        return HEARTBEATS_TOPIC

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        s = self.internal_separator
        return f"mm2-offset-syncs{s}{cluster_alias}{s}internal"

    def checkpoints_topic(self, cluster_alias: str) -> str:
        s = self.internal_separator
        return f"{cluster_alias}{s}checkpoints{s}internal"

    def is_heartbeats_topic(self, topic: str) -> bool:
        return self.original_topic(topic) == HEARTBEATS_TOPIC

    def is_checkpoints_topic(self, topic: str) -> bool:
        s = self.internal_separator
        return topic.endswith(f"{s}checkpoints{s}internal")

    def is_mm2_internal_topic(self, topic: str) -> bool:
        """MirrorMaker's own topics (Kafka 4.0, KIP-1074): `mm2...<sep>internal` (offset syncs, its Connect
        topics, the remote-topics ledger) and checkpoints; plus this project's membership topic
        (`connect-membership.<group>.internal`), which a Java worker does not have."""
        suffix = f"{self.internal_separator}internal"
        return ((topic.startswith("mm2") and topic.endswith(suffix)) or self.is_checkpoints_topic(topic)
                or (topic.startswith(MEMBERSHIP_PREFIX) and topic.endswith(".internal")))

    def is_internal_topic(self, topic: str) -> bool:
        """Never replicated: MirrorMaker's own topics and Kafka's (`__...`, `.`...). Since Kafka 4.0 (KIP-1074)
        a user topic that merely ends in `.internal` or `-internal` is replicated like any other."""
        return self.is_mm2_internal_topic(topic) or topic.startswith(("__", "."))


class DefaultReplicationPolicy(ReplicationPolicy):
    """`<source>.<topic>`: remote topics carry their source cluster alias as a prefix."""

    def format_remote_topic(self, source_alias: str, topic: str) -> str:
        return f"{source_alias}{self.separator}{topic}"

    def topic_source(self, topic: str) -> str | None:
        parts = _java_split(topic, self.separator)
        return parts[0] if len(parts) >= 2 else None

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        if source is None:
            return None
        return topic[len(source) + len(self.separator):]


class IdentityReplicationPolicy(DefaultReplicationPolicy):
    """Remote topics keep their names (no cycle detection is possible); heartbeats keep the prefix."""

    source_alias: str | None = None

    def configure(self, config: Mapping[str, object]) -> None:
        super().configure(config)
        if "source.cluster.alias" in config:
            self.source_alias = str(config["source.cluster.alias"])

    def _looks_like_heartbeats(self, topic: str) -> bool:
        return topic.endswith(HEARTBEATS_TOPIC)

    def format_remote_topic(self, source_alias: str, topic: str) -> str:
        if self._looks_like_heartbeats(topic):
            return super().format_remote_topic(source_alias, topic)
        return topic

    def topic_source(self, topic: str) -> str | None:
        if self._looks_like_heartbeats(topic):
            return super().topic_source(topic)
        return self.source_alias

    def upstream_topic(self, topic: str) -> str | None:
        if self._looks_like_heartbeats(topic):
            return super().upstream_topic(topic)
        return topic


POLICIES = java_aliases(JAVA_PACKAGE, [DefaultReplicationPolicy, IdentityReplicationPolicy])
POLICY_GROUP = "pyconnect.replication_policies"
policy_class = class_validator(ReplicationPolicy, POLICIES, POLICY_GROUP)


def load_policy(class_name: str, config: Mapping[str, str]) -> ReplicationPolicy:
    """A configured instance of the `replication.policy.class` value: Java or simple name of a built-in,
    an entry point of `pyconnect.replication_policies`, or a Python path; raises ClassLoadError."""
    policy: ReplicationPolicy = new_instance(class_name, ReplicationPolicy, POLICIES, POLICY_GROUP, config)
    return policy
