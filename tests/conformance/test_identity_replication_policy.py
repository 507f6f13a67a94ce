"""Ports of Kafka's IdentityReplicationPolicyTest, MirrorClientIdentityReplicationPolicyTest and the
identity case of MirrorSourceConnectorTest: topic names kept as they are, heartbeats named as by the
default policy."""

from __future__ import annotations

import pytest

from connectors.mirror.client import count_hops
from connectors.mirror.filters import TopicFilter
from connectors.mirror.policy import IdentityReplicationPolicy
from connectors.mirror.topics import TopicSelector
from tests.harness.mirror_client import FakeMirrorClient


class AcceptAll(TopicFilter):
    def should_replicate_topic(self, topic: str) -> bool:
        return True


def client(topics: list[str] | None = None) -> FakeMirrorClient:
    return FakeMirrorClient(topics, IdentityReplicationPolicy())


@pytest.mark.kafka("IdentityReplicationPolicyTest.testFormatRemoteTopic")
def test_format_remote_topic() -> None:
    policy = IdentityReplicationPolicy()
    assert policy.format_remote_topic("source1", "aaa") == "aaa"
    assert policy.format_remote_topic("source1", "heartbeats") == "source1.heartbeats"
    assert policy.format_remote_topic("source2", "source1.heartbeats") == "source2.source1.heartbeats"
    policy.configure({"replication.policy.separator": "__"})
    assert policy.format_remote_topic("source1", "aaa") == "aaa"
    assert policy.format_remote_topic("source1", "heartbeats") == "source1__heartbeats"


@pytest.mark.kafka("IdentityReplicationPolicyTest.testTopicSource")
def test_topic_source() -> None:
    policy = IdentityReplicationPolicy()
    assert policy.topic_source("source1.aaa") is None
    assert policy.topic_source("heartbeats") is None
    assert policy.topic_source("source1.heartbeats") == "source1"
    assert policy.topic_source("source2.source1.heartbeats") == "source2"


@pytest.mark.kafka("IdentityReplicationPolicyTest.testUpstreamTopic")
def test_upstream_topic() -> None:
    policy = IdentityReplicationPolicy()
    assert policy.upstream_topic("aaa") == "aaa"
    assert policy.upstream_topic("source1.aaa") == "source1.aaa"
    assert policy.upstream_topic("source1.heartbeats") == "heartbeats"


@pytest.mark.kafka("IdentityReplicationPolicyTest.testOriginalTopic")
def test_original_topic() -> None:
    policy = IdentityReplicationPolicy()
    assert policy.original_topic("aaa") == "aaa"
    assert policy.original_topic("source1.aaa") == "source1.aaa"
    assert policy.original_topic("source2.source1.aaa") == "source2.source1.aaa"
    assert policy.original_topic("heartbeats") == "heartbeats"
    assert policy.original_topic("source2.source1.heartbeats") == "heartbeats"


@pytest.mark.kafka("MirrorClientIdentityReplicationPolicyTest.testIsHeartbeatTopic")
def test_client_is_heartbeat_topic() -> None:
    c = client()
    for topic in ("heartbeats", "source1.heartbeats", "source2.source1.heartbeats"):
        assert c.is_heartbeat_topic(topic), topic
    for topic in ("heartbeats!", "!heartbeats", "source1heartbeats", "source1-heartbeats"):
        assert not c.is_heartbeat_topic(topic), topic


@pytest.mark.kafka("MirrorClientIdentityReplicationPolicyTest.testIsCheckpointTopic")
def test_client_is_checkpoint_topic() -> None:
    c = client()
    assert c.is_checkpoint_topic("source1.checkpoints.internal")
    for topic in ("checkpoints.internal", "checkpoints-internal", "checkpoints.internal!", "!checkpoints.internal",
                  "source1checkpointsinternal"):
        assert not c.is_checkpoint_topic(topic), topic


@pytest.mark.kafka("MirrorClientIdentityReplicationPolicyTest.countHopsForTopicTest")
def test_client_count_hops_for_topic() -> None:
    policy = IdentityReplicationPolicy()
    # Only heartbeat topics carry their path in the name.
    for topic, alias in [("topic", "source"), ("source", "source"), ("sourcetopic", "source"),
                         ("source1.topic", "source2"), ("source1.topic", "source1"),
                         ("source2.source1.topic", "source2"),
                         ("source2.source1.topic", "source1"), ("source3.source2.source1.topic", "source1"),
                         ("source3.source2.source1.topic", "source4"), ("heartbeats", "source"),
                         ("source3.source2.source1.heartbeats", "source4")]:
        assert count_hops(policy, topic, alias) == -1, (topic, alias)
    assert count_hops(policy, "source1.heartbeats", "source1") == 1
    assert count_hops(policy, "source2.source1.heartbeats", "source2") == 1
    assert count_hops(policy, "source2.source1.heartbeats", "source1") == 2
    assert count_hops(policy, "source3.source2.source1.heartbeats", "source1") == 3


@pytest.mark.kafka("MirrorClientIdentityReplicationPolicyTest.heartbeatTopicsTest")
def test_client_heartbeat_topics() -> None:
    c = client(["topic1", "topic2", "heartbeats", "source1.heartbeats", "source2.source1.heartbeats",
                "source3.heartbeats"])
    assert c.heartbeat_topics() == {"heartbeats", "source1.heartbeats", "source2.source1.heartbeats",
                                    "source3.heartbeats"}


@pytest.mark.kafka("MirrorClientIdentityReplicationPolicyTest.checkpointsTopicsTest")
def test_client_checkpoint_topics() -> None:
    c = client(["topic1", "topic2", "checkpoints.internal", "source1.checkpoints.internal",
                "source2.source1.checkpoints.internal", "source3.checkpoints.internal"])
    assert c.checkpoint_topics() == {"source1.checkpoints.internal", "source2.source1.checkpoints.internal",
                                     "source3.checkpoints.internal"}


@pytest.mark.kafka("MirrorClientIdentityReplicationPolicyTest.replicationHopsTest")
def test_client_replication_hops() -> None:
    c = client(["topic1", "topic2", "heartbeats", "source1.heartbeats", "source1.source2.heartbeats",
                "source3.heartbeats", "source4.topic1"])
    assert c.replication_hops("source1") == 1
    assert c.replication_hops("source2") == 2
    assert c.replication_hops("source3") == 1
    assert c.replication_hops("source4") == -1, "no hops from a topic that is not a heartbeat topic"
    assert c.replication_hops("source5") == -1


@pytest.mark.kafka("MirrorClientIdentityReplicationPolicyTest.upstreamClustersTest")
def test_client_upstream_clusters() -> None:
    c = client(["topic1", "topic2", "heartbeats", "source1.heartbeats", "source1.source2.heartbeats",
                "source3.source4.source5.heartbeats", "source6.topic1"])
    sources = c.upstream_clusters()
    assert {"source1", "source2", "source3", "source4", "source5"} <= sources
    assert "source6" not in sources, "a topic that is not a heartbeat topic names no upstream cluster"
    assert "sourceX" not in sources and "" not in sources and None not in sources


@pytest.mark.kafka("MirrorClientIdentityReplicationPolicyTest.remoteTopicsTest")
def test_client_remote_topics() -> None:
    heartbeats = {"source1.heartbeats", "source1.source2.heartbeats", "source3.source4.source5.heartbeats"}
    c = client(["topic1", "topic2", "topic3", "source1.topic4", "source1.source2.topic5",
                "source3.source4.source5.topic6", *heartbeats])
    assert c.remote_topics() == heartbeats, "without a source alias only heartbeat topics are recognised as remote"


@pytest.mark.kafka("MirrorClientIdentityReplicationPolicyTest.remoteTopicsSeparatorTest")
def test_client_remote_topics_separator() -> None:
    heartbeats = {"source1__heartbeats", "source1__source2__heartbeats", "source3__source4__source5__heartbeats"}
    c = client(["topic1", "topic2", "topic3", "source1__topic4", "source1__source2__topic5",
                "source3__source4__source5__topic6", *heartbeats])
    c.policy.configure({"replication.policy.separator": "__"})
    assert c.remote_topics() == heartbeats


@pytest.mark.kafka("MirrorSourceConnectorTest.testIdentityReplication")
def test_identity_replication_allows_cycles_but_not_heartbeat_cycles() -> None:
    selector = TopicSelector(IdentityReplicationPolicy(), AcceptAll(), "target")
    for topic in ("target.topic1", "target.source.topic1", "source.target.topic1", "target.source.target.topic1",
                  "source.target.source.topic1", "topic1", "othersource.topic1", "heartbeats",
                  "othersource.heartbeats"):
        assert selector.should_replicate(topic), topic
    for topic in ("target.heartbeats", "target.source.heartbeats", "source.target.heartbeats",
                  "target.source.target.heartbeats", "source.target.source.heartbeats"):
        assert not selector.should_replicate(topic), topic
