"""A MirrorClient test double (as Kafka's FakeMirrorClient): a fixed topic listing, no cluster."""

from __future__ import annotations

from connectors.mirror.client import MirrorClient
from connectors.mirror.policy import DefaultReplicationPolicy, ReplicationPolicy


class FakeMirrorClient(MirrorClient):
    """A MirrorClient without a cluster: `list_topics` returns the given names."""

    def __init__(self, topics: list[str] | None = None, policy: ReplicationPolicy | None = None) -> None:
        self.policy = policy or DefaultReplicationPolicy()
        self.topics = list(topics or [])

    def list_topics(self) -> set[str]:
        return set(self.topics)
