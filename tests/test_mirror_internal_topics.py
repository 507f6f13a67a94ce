"""KIP-1074 (Kafka 4.0): user topics whose names end in `.internal` or `-internal` replicate; MirrorMaker's
own topics do not.

Follows Kafka 4.0's ReplicationPolicy.isInternalTopic / DefaultReplicationPolicy.isMM2InternalTopic and
MirrorSourceConnector's topic selection (shouldReplicateTopic: filter, then not internal, not a cycle), as
exercised by MirrorConnectorsIntegrationBaseTest (replication of the test's topics, internal topics absent).
"""

from __future__ import annotations

from typing import Any

from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic, produce_many, read_all, topic_names
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, wait_for


def test_user_internal_suffix_topics_replicate(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                               unique: str) -> None:
    """`billing.internal` and `<x>-internal` replicate under DefaultReplicationPolicy; MM2's offset syncs,
    checkpoints and this project's membership topic are skipped even when the topic filter selects them."""
    user = ["billing.internal", f"ledger{unique}-internal"]
    own = [f"mm2-offset-syncs.X{unique}.internal", f"X{unique}.checkpoints.internal",
           f"connect-membership.X{unique}.internal"]
    for topic in user + own:
        create_topic(broker.bootstrap, topic, 1)
        produce_many(broker.bootstrap, topic, 20, 1)
    cluster: Cluster = cluster_factory(on=broker_b)
    (w,) = cluster.start(1)
    # An empty topics.exclude: the replication policy alone decides which of the selected topics are internal.
    config = mirror_source(broker, broker_b, {"topics": ", ".join(user + own), "topics.exclude": "",
                                              "replication.policy.class":
                                                  "org.apache.kafka.connect.mirror.DefaultReplicationPolicy"})
    assert w.request("POST", "/connectors", {"name": "mm", "config": config}).status_code == 201
    for topic in user:
        wait_for(lambda t=topic: len(read_all(broker_b.bootstrap, f"A.{t}", expect=20, timeout=3)) == 20, 60,
                 f"A.{topic} replicated")
    names = topic_names(broker_b.bootstrap)
    # The user topics were copied after the connector listed all five: the others were decided by then.
    assert not {f"A.{t}" for t in own} & names, sorted(n for n in names if n.startswith("A."))
