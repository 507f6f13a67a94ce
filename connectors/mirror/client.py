"""Client-side MM2 helpers (Kafka's MirrorClient / RemoteClusterUtils), reading only the target cluster:
translated consumer offsets from checkpoints; upstream clusters, replication hops and remote topics
from topic names, as the replication policy reads them.

Invariants: one translation reads the checkpoints topic once, whatever the number of groups it returns
(KIP-1239: a group pattern costs one read, as one group does); a group matches a pattern only when the
pattern matches its whole id (Java's `Pattern.matcher(id).matches()`); the newest checkpoint of a
(group, remote topic, partition) wins; a record that is no checkpoint is skipped, as Java skips it.
"""

from __future__ import annotations

import logging
import re
import struct
from collections.abc import Mapping
from typing import overload

from connectors.mirror.formats import Checkpoint
from connectors.mirror.policy import DefaultReplicationPolicy, ReplicationPolicy
from pyconnect.kafka.admin import Admin
from pyconnect.kafka.topic_log import KafkaLog

log = logging.getLogger(__name__)
TopicPartition = tuple[str, int]


def all_sources(policy: ReplicationPolicy, topic: str) -> set[str]:
    """Every cluster alias in `topic`'s replication path (`B.A.heartbeats` -> {B, A})."""
    sources: set[str] = set()
    current: str | None = topic
    source = policy.topic_source(topic)
    # The `not in` stops policies that cannot detect cycles (IdentityReplicationPolicy) from looping.
    while source is not None and source not in sources and current is not None:
        sources.add(source)
        current = policy.upstream_topic(current)
        source = policy.topic_source(current) if current is not None else None
    return sources


def count_hops(policy: ReplicationPolicy, topic: str, source_alias: str) -> int:
    """Hops from `source_alias` to here along `topic`'s path (1 = direct), -1 if it is not on the path."""
    hops, visited, current = 0, set(), topic
    while True:
        hops += 1
        source = policy.topic_source(current)
        if source is None:
            return -1
        if source == source_alias:
            return hops
        if source in visited:  # a policy that cannot prevent cycles: the alias will never come
            return -1
        visited.add(source)
        upstream = policy.upstream_topic(current)
        if upstream is None:
            return -1
        current = upstream


class MirrorClient:
    """Interprets MM2's internal topics (heartbeats, checkpoints) on one cluster."""

    def __init__(self, conf: Mapping[str, str], policy: ReplicationPolicy | None = None, timeout: float = 20.0) -> None:
        self.conf = dict(conf)
        self.policy = policy or DefaultReplicationPolicy()
        self.admin = Admin(self.conf)
        self.admin.cluster_id(timeout=timeout)  # fail fast, with the bootstrap named, if unreachable

    def list_topics(self) -> set[str]:
        """Topic names on this cluster."""
        return set(self.admin.topic_partitions())

    def _read(self, topic: str, timeout: float = 60.0) -> list[tuple[bytes, bytes]]:
        partitions = self.admin.topic_partitions().get(topic)
        if not partitions:
            return []
        records: list[tuple[bytes, bytes]] = []
        reader = KafkaLog(topic, partitions, self.conf, self.conf)
        try:
            reader.start(lambda k, v, _p, _o: records.append((k, v)) if k and v else None, timeout)
        finally:
            reader.stop()
        return records

    def _checkpoint_records(self, source_alias: str, timeout: float) -> list[Checkpoint]:
        """Every checkpoint in `<source>.checkpoints.internal`, oldest first, from one read of the topic."""
        topic = self.policy.checkpoints_topic(source_alias)
        out, skipped = [], 0
        for key, value in self._read(topic, timeout):
            try:
                out.append(Checkpoint.decode(key, value))
            except (struct.error, UnicodeDecodeError):
                skipped += 1
        if skipped:  # one line per read, not one per record
            log.info("skipped %d record(s) of %s that are no checkpoints", skipped, topic)
        return out

    def checkpoints_by_group(self, source_alias: str, groups: str | re.Pattern[str],
                             timeout: float = 60.0) -> dict[str, dict[TopicPartition, Checkpoint]]:
        """Latest checkpoint per (remote topic, partition) of every group whose whole id matches the regex
        `groups`, keyed by group, from ONE read of the checkpoints topic (KIP-1239). Groups without
        checkpoints are absent."""
        pattern = re.compile(groups) if isinstance(groups, str) else groups
        out: dict[str, dict[TopicPartition, Checkpoint]] = {}
        for cp in self._checkpoint_records(source_alias, timeout):
            if pattern.fullmatch(cp.group):
                out.setdefault(cp.group, {})[(cp.topic, cp.partition)] = cp
        return out

    def checkpoints(self, source_alias: str, group: str | None = None,
                    timeout: float = 60.0) -> dict[TopicPartition, Checkpoint]:
        """Latest checkpoint per (remote topic, partition) of `group` from `<source>.checkpoints.internal`
        (without a group: of every group, the last written winning)."""
        if group is not None:  # as Java's single-group form: the batch form with the quoted id
            return self.checkpoints_by_group(source_alias, re.escape(group), timeout).get(group, {})
        return {(cp.topic, cp.partition): cp for cp in self._checkpoint_records(source_alias, timeout)}

    @overload
    def remote_consumer_offsets(self, group: str, source_alias: str,
                                timeout: float = 60.0) -> dict[TopicPartition, int]: ...

    @overload
    def remote_consumer_offsets(self, group: re.Pattern[str], source_alias: str,
                                timeout: float = 60.0) -> dict[str, dict[TopicPartition, int]]: ...

    def remote_consumer_offsets(self, group: str | re.Pattern[str], source_alias: str, timeout: float = 60.0
                                ) -> dict[TopicPartition, int] | dict[str, dict[TopicPartition, int]]:
        """Java's MirrorClient.remoteConsumerOffsets: a group id gives that group's target offsets per
        (remote topic, partition); a compiled pattern gives them for every matching group, keyed by group,
        from one read of the checkpoints topic (KIP-1239)."""
        if isinstance(group, str):
            return {tp: cp.downstream_offset for tp, cp in self.checkpoints(source_alias, group, timeout).items()}
        return {g: {tp: cp.downstream_offset for tp, cp in cps.items()}
                for g, cps in self.checkpoints_by_group(source_alias, group, timeout).items()}

    def is_heartbeat_topic(self, topic: str) -> bool:
        return self.policy.is_heartbeats_topic(topic)

    def is_checkpoint_topic(self, topic: str) -> bool:
        return self.policy.is_checkpoints_topic(topic)

    def is_remote_topic(self, topic: str) -> bool:
        """Replicated from another cluster: has a source and is not internal (heartbeats, checkpoints)."""
        return not self.policy.is_internal_topic(topic) and self.policy.topic_source(topic) is not None

    def heartbeat_topics(self) -> set[str]:
        """Heartbeat topics on this cluster (the local one and those replicated from others)."""
        return {t for t in self.list_topics() if self.is_heartbeat_topic(t)}

    def checkpoint_topics(self) -> set[str]:
        return {t for t in self.list_topics() if self.is_checkpoint_topic(t)}

    def upstream_clusters(self) -> set[str]:
        """Aliases of clusters whose heartbeats reach this one, directly or through others, read from the
        heartbeat topic names (the local `heartbeats` topic names no cluster)."""
        return {s for t in self.heartbeat_topics() for s in all_sources(self.policy, t)}

    def remote_topics(self, source_alias: str | None = None) -> set[str]:
        """Remote topics on this cluster; with `source_alias`, only those replicated directly from it."""
        return {t for t in self.list_topics() if self.is_remote_topic(t)
                and (source_alias is None or self.policy.topic_source(t) == source_alias)}

    def replication_hops(self, source_alias: str) -> int:
        """Fewest hops from `source_alias` to this cluster (1 = direct), -1 when unreachable."""
        counts = [h for h in (count_hops(self.policy, t, source_alias) for t in self.heartbeat_topics()) if h > 0]
        return min(counts) if counts else -1
