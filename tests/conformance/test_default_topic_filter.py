"""Ports of Kafka's MirrorSourceConnectorTest cases about the topic filter and the heartbeat exception to
it (MirrorSourceConfigTest's topic-matching cases are ported in test_mirror_source_config.py)."""

from __future__ import annotations

import pytest

from connectors.mirror.config import SOURCE, MirrorConfig
from connectors.mirror.filters import DefaultTopicFilter, TopicFilter
from connectors.mirror.policy import DefaultReplicationPolicy
from connectors.mirror.topics import TopicSelector


class Fixed(TopicFilter):
    """A filter that answers the same for every topic (Kafka's `x -> true` / `x -> false`)."""

    def __init__(self, answer: bool) -> None:
        self.answer = answer

    def should_replicate_topic(self, topic: str) -> bool:
        return self.answer


def topic_filter(**props: str) -> TopicFilter:
    return MirrorConfig(SOURCE, {"source.cluster.alias": "source1", **props}).topic_filter()


@pytest.mark.kafka("MirrorSourceConnectorTest.testReplicatesHeartbeatsByDefault")
def test_replicates_heartbeats_by_default() -> None:
    selector = TopicSelector(DefaultReplicationPolicy(), DefaultTopicFilter(), "target")
    assert selector.should_replicate("heartbeats")
    assert selector.should_replicate("us-west.heartbeats")


@pytest.mark.kafka("MirrorSourceConnectorTest.testReplicatesHeartbeatsDespiteFilter")
def test_replicates_heartbeats_despite_filter() -> None:
    policy = DefaultReplicationPolicy()
    selector = TopicSelector(policy, Fixed(False), "target")
    assert selector.should_replicate("heartbeats")
    assert selector.should_replicate("us-west.heartbeats")
    policy.configure({"replication.policy.separator": "_"})
    assert selector.should_replicate("heartbeats")
    assert not selector.should_replicate("us-west.heartbeats"), "with separator _ this is no heartbeat topic"


@pytest.mark.kafka("MirrorSourceConnectorTest.testDoesNotReplicateHeartbeatsWhenDisabled")
def test_does_not_replicate_heartbeats_when_disabled() -> None:
    # An unconfigured DefaultTopicFilter matches nothing, as in Kafka.
    selector = TopicSelector(DefaultReplicationPolicy(), DefaultTopicFilter(), "target", heartbeats_enabled=False)
    assert not selector.should_replicate("heartbeats")
    assert not selector.should_replicate("us-west.heartbeats")


@pytest.mark.kafka("MirrorSourceConnectorTest.testReplicatesHeartbeatsWhenDisabledButFilterAllows")
def test_replicates_heartbeats_when_disabled_but_filter_allows() -> None:
    selector = TopicSelector(DefaultReplicationPolicy(), Fixed(True), "target", heartbeats_enabled=False)
    assert selector.should_replicate("heartbeats")
    assert selector.should_replicate("us-west.heartbeats")


@pytest.mark.kafka("DefaultTopicFilter.TOPICS_EXCLUDE_DEFAULT (Kafka 4.0, KIP-1074)")
def test_default_excludes() -> None:
    f = topic_filter()
    assert f.should_replicate_topic("orders")
    for topic in ("mm2-offsets.A.internal", "mm2-offset-syncs.B.internal", "a.replica", "__consumer_offsets"):
        assert not f.should_replicate_topic(topic), topic
    for topic in ("x.internal", "x-internal"):  # user topics: replicated since Kafka 4.0
        assert f.should_replicate_topic(topic), topic
