"""Replication policies: how remote topics are named and traced back (compat-spec §C.6)."""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Mapping

HEARTBEATS_TOPIC = "heartbeats"


def _java_split(text: str, sep: str) -> list[str]:
    """`String.split` on a literal separator: trailing empty pieces are dropped."""
    parts = text.split(sep)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


class ReplicationPolicy(ABC):
    """Base: subclasses implement format_remote_topic/topic_source/upstream_topic."""

    separator = "."
    internal_separator = "."

    def configure(self, config: Mapping[str, str]) -> None:
        self.separator = config.get("replication.policy.separator", ".")
        enabled = config.get("replication.policy.internal.topic.separator.enabled", "true").strip().lower()
        self.internal_separator = self.separator if enabled == "true" else "."

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
        return topic.endswith(f"{self.internal_separator}internal")

    def is_internal_topic(self, topic: str) -> bool:
        return (self.is_mm2_internal_topic(topic) or topic.startswith(("__", "."))
                or topic.endswith(("-internal", ".internal")))


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

    def configure(self, config: Mapping[str, str]) -> None:
        super().configure(config)
        self.source_alias = config.get("source.cluster.alias")

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


_ALIASES: dict[str, type[ReplicationPolicy]] = {
    "DefaultReplicationPolicy": DefaultReplicationPolicy,
    "IdentityReplicationPolicy": IdentityReplicationPolicy,
}


def load_policy(class_name: str, config: Mapping[str, str]) -> ReplicationPolicy:
    """Resolve by Java name (`org.apache.kafka.connect.mirror.DefaultReplicationPolicy`), short name
    or Python path (`pkg.module:Class` / `pkg.module.Class`); raise ValueError if unknown."""
    name = class_name.strip()
    simple = name.rsplit(".", 1)[-1]
    cls: type[ReplicationPolicy] | None = None
    if simple in _ALIASES and (name == simple or name.startswith("org.apache.kafka.connect.mirror.")):
        cls = _ALIASES[simple]
    else:
        module_name, sep, attr = name.partition(":")
        if not sep:
            module_name, _, attr = name.rpartition(".")
        try:
            obj = getattr(importlib.import_module(module_name), attr) if module_name else None
        except (ImportError, AttributeError, ValueError):
            obj = None
        if not (isinstance(obj, type) and issubclass(obj, ReplicationPolicy)):
            raise ValueError(f"Unknown replication policy class {class_name}: expected "
                             "DefaultReplicationPolicy, IdentityReplicationPolicy or a Python path to a "
                             "ReplicationPolicy subclass")
        cls = obj
    policy = cls()
    policy.configure(config)
    return policy
