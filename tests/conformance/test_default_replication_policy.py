"""Ports of Kafka's ReplicationPolicyTest (DefaultReplicationPolicy), and of the MirrorSourceConnectorTest
cases about cycle detection."""

from __future__ import annotations

import pytest

from connectors.mirror.filters import TopicFilter
from connectors.mirror.policy import DefaultReplicationPolicy, IdentityReplicationPolicy
from connectors.mirror.topics import TopicSelector

SEPARATOR, INTERNAL = "replication.policy.separator", "replication.policy.internal.topic.separator.enabled"


class AcceptAll(TopicFilter):
    def should_replicate_topic(self, topic: str) -> bool:
        return True


def configured(config: dict[str, object]) -> DefaultReplicationPolicy:
    policy = DefaultReplicationPolicy()
    policy.configure(config)
    return policy


@pytest.mark.kafka("ReplicationPolicyTest.testInternalTopic")
def test_internal_topic() -> None:
    policy = configured({})
    assert policy.is_internal_topic("__consumer_offsets")
    assert policy.is_internal_topic(".hiddentopic")
    assert policy.is_internal_topic("mm2-offsets.CLUSTER.internal"), "Connect's default offsets topic in MM2"
    assert not policy.is_internal_topic("mm2-offsets_CLUSTER_internal")
    assert policy.is_internal_topic("mm2-offset-syncs.CLUSTER.internal")
    assert policy.is_internal_topic("CLUSTER.checkpoints.internal")
    assert policy.is_internal_topic("connect-membership.CLUSTER-mm2.internal"), "this project's membership topic"


@pytest.mark.kafka("DefaultReplicationPolicy.isMM2InternalTopic, ReplicationPolicy.isInternalTopic (4.0, KIP-1074)")
def test_user_topics_ending_in_internal_are_not_internal() -> None:
    """Kafka 4.0 dropped the 3.x rule that every `*.internal` / `*-internal` topic is internal."""
    policy = configured({})
    for topic in ("billing.internal", "billing-internal", "mm2-offsets-CLUSTER-internal", "connect-offsets"):
        assert not policy.is_internal_topic(topic), topic
    underscore = configured({SEPARATOR: "_"})
    assert underscore.is_internal_topic("mm2-offset-syncs_CLUSTER_internal")
    assert not underscore.is_internal_topic("billing_internal")


@pytest.mark.kafka("ReplicationPolicyTest.offsetSyncsTopic_shouldBeEffectedByInternalTopicSeparatorEnabled")
def test_offset_syncs_topic_follows_the_internal_separator_flag() -> None:
    assert configured({SEPARATOR: "__", INTERNAL: False}).offset_syncs_topic("CLUSTER") \
        == "mm2-offset-syncs.CLUSTER.internal"
    assert configured({SEPARATOR: "__", INTERNAL: True}).offset_syncs_topic("CLUSTER") \
        == "mm2-offset-syncs__CLUSTER__internal"


@pytest.mark.kafka("ReplicationPolicyTest.checkpointsTopic_shouldBeEffectedByInternalTopicSeparatorEnabled")
def test_checkpoints_topic_follows_the_internal_separator_flag() -> None:
    disabled, enabled = configured({SEPARATOR: "__", INTERNAL: False}), configured({SEPARATOR: "__", INTERNAL: True})
    assert disabled.checkpoints_topic("CLUSTER") == "CLUSTER.checkpoints.internal"
    assert enabled.checkpoints_topic("CLUSTER") == "CLUSTER__checkpoints__internal"


@pytest.mark.kafka("ReplicationPolicyTest.heartbeatsTopic_shouldNotBeEffectedByInternalTopicSeparatorConfig")
def test_heartbeats_topic_ignores_the_separator_settings() -> None:
    policy = configured({})
    assert policy.heartbeats_topic() == "heartbeats"
    policy.configure({SEPARATOR: "__", INTERNAL: False})
    assert policy.heartbeats_topic() == "heartbeats"


@pytest.mark.kafka("MirrorSourceConnectorTest.testNoCycles")
def test_no_cycles() -> None:
    selector = TopicSelector(DefaultReplicationPolicy(), AcceptAll(), "target")
    for topic in ("target.topic1", "target.source.topic1", "source.target.topic1", "target.source.target.topic1",
                  "source.target.source.topic1"):
        assert not selector.should_replicate(topic), f"{topic} came back from the target: a cycle"
    for topic in ("topic1", "othersource.topic1", "othertarget.topic1", "other.another.topic1"):
        assert selector.should_replicate(topic), topic
    identity = IdentityReplicationPolicy()
    identity.configure({"source.cluster.alias": "source"})
    selector = TopicSelector(identity, AcceptAll(), "target")
    for topic in ("source.topic1", "target.topic1", "target.source.topic1", "source.target.topic1", "topic1",
                  "othersource.topic1", "othertarget.topic1", "other.another.topic1"):
        assert selector.should_replicate(topic), f"the identity policy cannot see a cycle in {topic}"


@pytest.mark.kafka("MirrorSourceConnectorTest.testIsCycleWithNullUpstreamTopic")
def test_is_cycle_with_null_upstream_topic() -> None:
    class NoUpstream(DefaultReplicationPolicy):
        def upstream_topic(self, topic: str) -> str | None:
            return None

    assert TopicSelector(NoUpstream(), AcceptAll(), "target").is_cycle(".b") is False
