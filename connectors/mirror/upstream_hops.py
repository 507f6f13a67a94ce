"""The clusters upstream of a flow's target, with their hop counts, as MM2's MirrorClient reads them.

`MirrorClient.upstreamClusters()` and `replicationHops(alias)` (Java's RemoteClusterUtils) look only at
the names of the heartbeat topics on a cluster: `A.heartbeats` on B means A's heartbeats reach B in one
hop, `C.A.heartbeats` that C's reach it in two. The MirrorSourceConnector lists its target's topics on
its refresh schedule and keeps the result here, so the console and Prometheus show, per flow, where
the target hears from (`..._upstream_replication_hops{source,target,upstream}`, an extension of MM2's
metrics). One metadata request per refresh, whatever the number of topics.
"""

from __future__ import annotations

from collections.abc import Iterable

from connectors.mirror.client import all_sources, count_hops
from connectors.mirror.policy import ReplicationPolicy
from pyconnect.api.metrics import MetricSample, TaskMetrics

METRIC = "kafka_connect_mirror_mirrorsourceconnector_upstream_replication_hops"
_DOC = "Hops from each cluster whose heartbeats reach the target (MirrorClient.replicationHops)"


def upstream_hops(policy: ReplicationPolicy, topics: Iterable[str]) -> dict[str, int]:
    """Each upstream alias in the heartbeat topic names, with the fewest hops any of them gives."""
    hops: dict[str, int] = {}
    for topic in topics:
        if not policy.is_heartbeats_topic(topic):
            continue
        for alias in all_sources(policy, topic):
            count = count_hops(policy, topic, alias)
            if count > 0:
                hops[alias] = min(hops.get(alias, count), count)
    return hops


class UpstreamHops:
    """The latest upstream view of one flow's target, served as gauge samples."""

    def __init__(self, source: str, target: str, policy: ReplicationPolicy, registry: TaskMetrics | None) -> None:
        self._labels = {"source": source, "target": target}
        self._policy = policy
        self._hops: dict[str, int] = {}  # replaced, never mutated: read from the scraping thread
        if registry is not None:
            registry.register(self.samples)

    def refresh(self, target_topics: Iterable[str]) -> None:
        self._hops = upstream_hops(self._policy, target_topics)

    @property
    def hops(self) -> dict[str, int]:
        return dict(self._hops)

    def samples(self) -> list[MetricSample]:
        return [MetricSample(METRIC, _DOC, {**self._labels, "upstream": alias}, float(count))
                for alias, count in sorted(self._hops.items())]
