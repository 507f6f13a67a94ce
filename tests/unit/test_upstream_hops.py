"""The flow's upstream view (connectors/mirror/upstream_hops.py) answers as MM2's MirrorClient does, on
the topic listings of Kafka's MirrorClientTest.replicationHopsTest and upstreamClustersTest."""

from __future__ import annotations

import pytest

from connectors.mirror.policy import DefaultReplicationPolicy
from connectors.mirror.upstream_hops import upstream_hops
from tests.harness.mirror_client import FakeMirrorClient

LISTINGS = [
    # MirrorClientTest.replicationHopsTest
    ["topic1", "topic2", "heartbeats", "source1.heartbeats", "source1.source2.heartbeats", "source3.heartbeats"],
    # MirrorClientTest.upstreamClustersTest
    ["topic1", "topic2", "heartbeats", "source1.heartbeats", "source1.source2.heartbeats",
     "source3.source4.source5.heartbeats"],
]


@pytest.mark.kafka("MirrorClientTest.replicationHopsTest")
def test_replication_hops_listing() -> None:
    assert upstream_hops(DefaultReplicationPolicy(), LISTINGS[0]) == {"source1": 1, "source2": 2, "source3": 1}


@pytest.mark.parametrize("topics", LISTINGS)
@pytest.mark.kafka("MirrorClientTest.upstreamClustersTest")
def test_same_answer_as_the_mirror_client(topics: list[str]) -> None:
    client = FakeMirrorClient(topics)
    expected = {alias: client.replication_hops(alias) for alias in client.upstream_clusters()}
    assert upstream_hops(DefaultReplicationPolicy(), topics) == expected


def test_three_hops_through_two_clusters() -> None:
    assert upstream_hops(DefaultReplicationPolicy(), LISTINGS[1])["source5"] == 3
