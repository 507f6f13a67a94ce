"""Ports of Kafka's MirrorClientTest (connect/mirror-client): MirrorClient's reading of topic names,
on a client whose topic listing is fixed (as Kafka's FakeMirrorClient)."""

from __future__ import annotations

import pytest

from connectors.mirror.client import count_hops
from connectors.mirror.policy import DefaultReplicationPolicy, IdentityReplicationPolicy
from tests.harness.mirror_client import FakeMirrorClient


def identity(source: str) -> IdentityReplicationPolicy:
    policy = IdentityReplicationPolicy()
    policy.configure({"source.cluster.alias": source})
    return policy


@pytest.mark.kafka("MirrorClientTest.testIsHeartbeatTopic")
def test_is_heartbeat_topic() -> None:
    client = FakeMirrorClient()
    for topic in ("heartbeats", "source1.heartbeats", "source2.source1.heartbeats"):
        assert client.is_heartbeat_topic(topic), topic
    for topic in ("heartbeats!", "!heartbeats", "source1heartbeats", "source1-heartbeats"):
        assert not client.is_heartbeat_topic(topic), topic


@pytest.mark.kafka("MirrorClientTest.testIsCheckpointTopic")
def test_is_checkpoint_topic() -> None:
    client = FakeMirrorClient()
    assert client.is_checkpoint_topic("source1.checkpoints.internal")
    for topic in ("checkpoints.internal", "checkpoints-internal", "checkpoints.internal!", "!checkpoints.internal",
                  "source1checkpointsinternal"):
        assert not client.is_checkpoint_topic(topic), topic


@pytest.mark.kafka("MirrorClientTest.countHopsForTopicTest")
def test_count_hops_for_topic() -> None:
    policy = DefaultReplicationPolicy()
    cases = [("topic", "source", -1), ("source", "source", -1), ("sourcetopic", "source", -1),
             ("source1.topic", "source2", -1), ("source1.topic", "source1", 1),
             ("source2.source1.topic", "source2", 1), ("source2.source1.topic", "source1", 2),
             ("source3.source2.source1.topic", "source1", 3), ("source3.source2.source1.topic", "source4", -1)]
    for topic, alias, hops in cases:
        assert count_hops(policy, topic, alias) == hops, (topic, alias)


@pytest.mark.kafka("MirrorClientTest.heartbeatTopicsTest")
def test_heartbeat_topics() -> None:
    client = FakeMirrorClient(["topic1", "topic2", "heartbeats", "source1.heartbeats", "source2.source1.heartbeats",
                               "source3.heartbeats"])
    assert client.heartbeat_topics() == {"heartbeats", "source1.heartbeats", "source2.source1.heartbeats",
                                         "source3.heartbeats"}


@pytest.mark.kafka("MirrorClientTest.checkpointsTopicsTest")
def test_checkpoint_topics() -> None:
    client = FakeMirrorClient(["topic1", "topic2", "checkpoints.internal", "source1.checkpoints.internal",
                               "source2.source1.checkpoints.internal", "source3.checkpoints.internal"])
    assert client.checkpoint_topics() == {"source1.checkpoints.internal", "source2.source1.checkpoints.internal",
                                          "source3.checkpoints.internal"}


@pytest.mark.kafka("MirrorClientTest.replicationHopsTest")
def test_replication_hops() -> None:
    client = FakeMirrorClient(["topic1", "topic2", "heartbeats", "source1.heartbeats", "source1.source2.heartbeats",
                               "source3.heartbeats"])
    assert client.replication_hops("source1") == 1
    assert client.replication_hops("source2") == 2
    assert client.replication_hops("source3") == 1
    assert client.replication_hops("source4") == -1


@pytest.mark.kafka("MirrorClientTest.upstreamClustersTest")
def test_upstream_clusters() -> None:
    client = FakeMirrorClient(["topic1", "topic2", "heartbeats", "source1.heartbeats", "source1.source2.heartbeats",
                               "source3.source4.source5.heartbeats"])
    sources = client.upstream_clusters()
    assert {"source1", "source2", "source3", "source4", "source5"} <= sources
    assert "sourceX" not in sources and "" not in sources and None not in sources


@pytest.mark.kafka("MirrorClientTest.testIdentityReplicationUpstreamClusters")
def test_identity_replication_upstream_clusters() -> None:
    # The identity policy reads heartbeat topics as the default one does.
    client = FakeMirrorClient(["topic1", "topic2", "heartbeats", "source1.heartbeats", "source1.source2.heartbeats",
                               "source3.source4.source5.heartbeats"], identity("source"))
    assert client.upstream_clusters() == {"source1", "source2", "source3", "source4", "source5"}


@pytest.mark.kafka("MirrorClientTest.remoteTopicsTest")
def test_remote_topics() -> None:
    client = FakeMirrorClient(["topic1", "topic2", "topic3", "source1.topic4", "source1.source2.topic5",
                               "source3.source4.source5.topic6"])
    assert client.remote_topics() == {"source1.topic4", "source1.source2.topic5", "source3.source4.source5.topic6"}


@pytest.mark.kafka("MirrorClientTest.testIdentityReplicationRemoteTopics")
def test_identity_replication_remote_topics() -> None:
    # With the identity policy every topic is remote, except the local heartbeats topic.
    client = FakeMirrorClient(["topic1", "topic2", "topic3", "heartbeats", "backup.heartbeats"], identity("source"))
    remote = client.remote_topics()
    assert {"topic1", "topic2", "topic3", "backup.heartbeats"} <= remote
    assert "heartbeats" not in remote


@pytest.mark.kafka("MirrorClientTest.remoteTopicsSeparatorTest")
def test_remote_topics_separator() -> None:
    client = FakeMirrorClient(["topic1", "topic2", "topic3", "source1__topic4", "source1__source2__topic5",
                               "source3__source4__source5__topic6"])
    client.policy.configure({"replication.policy.separator": "__"})
    assert client.remote_topics() == {"source1__topic4", "source1__source2__topic5",
                                      "source3__source4__source5__topic6"}


@pytest.mark.kafka("MirrorClientTest.testIdentityReplicationTopicSource")
def test_identity_replication_topic_source() -> None:
    policy = FakeMirrorClient([], identity("primary")).policy
    assert policy.format_remote_topic("primary", "topic1") == "topic1"
    assert policy.topic_source("topic1") == "primary"
    # Heartbeats keep the default naming.
    assert policy.format_remote_topic("backup", "heartbeats") == "backup.heartbeats"
    assert policy.topic_source("backup.heartbeats") == "backup"
