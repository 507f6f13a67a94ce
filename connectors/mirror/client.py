"""Client-side MM2 helpers (Java's MirrorClient / RemoteClusterUtils), reading only the target cluster:
translated consumer offsets from checkpoints, upstream clusters and replication hops from heartbeats."""

from __future__ import annotations

from collections.abc import Mapping

from connectors.mirror.formats import Checkpoint, Heartbeat
from connectors.mirror.policy import DefaultReplicationPolicy, ReplicationPolicy
from pyconnect.kafka.admin import Admin
from pyconnect.storage.log import KafkaLog


class MirrorClient:
    def __init__(self, conf: Mapping[str, str], policy: ReplicationPolicy | None = None, timeout: float = 20.0) -> None:
        self.conf = dict(conf)
        self.policy = policy or DefaultReplicationPolicy()
        self.admin = Admin(self.conf)
        self.admin.cluster_id(timeout=timeout)  # fail fast, with the bootstrap named, if unreachable

    def _read(self, topic: str) -> list[tuple[bytes, bytes]]:
        partitions = self.admin.topic_partitions().get(topic)
        if not partitions:
            return []
        records: list[tuple[bytes, bytes]] = []
        log = KafkaLog(topic, partitions, self.conf, self.conf)
        log.start(lambda k, v, _p, _o: records.append((k, v)) if k and v else None)
        log.stop()
        return records

    def checkpoints(self, source_alias: str, group: str | None = None) -> dict[tuple[str, int], Checkpoint]:
        """Latest checkpoint per (remote topic, partition) of `group` from `<source>.checkpoints.internal`."""
        out: dict[tuple[str, int], Checkpoint] = {}
        for key, value in self._read(self.policy.checkpoints_topic(source_alias)):
            cp = Checkpoint.decode(key, value)
            if group is None or cp.group == group:
                out[(cp.topic, cp.partition)] = cp
        return out

    def remote_consumer_offsets(self, group: str, source_alias: str) -> dict[tuple[str, int], int]:
        return {k: cp.downstream_offset for k, cp in self.checkpoints(source_alias, group).items()}

    def heartbeat_topics(self) -> list[str]:
        return sorted(t for t in self.admin.topic_partitions() if self.policy.is_heartbeats_topic(t))

    def upstream_clusters(self) -> set[str]:
        """Aliases of clusters whose heartbeats reach this one (directly or through others)."""
        found = set()
        for topic in self.heartbeat_topics():
            for key, value in self._read(topic):
                found.add(Heartbeat.decode(key, value).source_cluster_alias)
        return found

    def _hops(self, topic: str, source_alias: str) -> int:
        hops, visited, current = 0, set(), topic
        while True:
            hops += 1
            source = self.policy.topic_source(current)
            if source is None or source in visited:
                return -1
            if source == source_alias:
                return hops
            visited.add(source)
            upstream = self.policy.upstream_topic(current)
            if upstream is None:
                return -1
            current = upstream

    def replication_hops(self, source_alias: str) -> int:
        """Fewest hops from `source_alias` to this cluster (1 = direct), -1 when unknown."""
        counts = [h for h in (self._hops(t, source_alias) for t in self.heartbeat_topics()) if h > 0]
        return min(counts) if counts else -1
