"""MirrorCheckpointConnector configs, upstream group commits and the checkpoints topic read directly."""

from __future__ import annotations

from confluent_kafka import Consumer, TopicPartition

from connectors.mirror.formats import Checkpoint
from tests.harness.brokers import Broker
from tests.harness.kafka_io import read_to_end
from tests.harness.mirror import cluster_settings

CHECKPOINT = "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"


def checkpoint_config(a: Broker, b: Broker, topics: str, groups: str, **extra: str) -> dict[str, str]:
    """A checkpoint connector from A to B with 1 s intervals; `extra` keys use `_` for `.`."""
    return {"connector.class": CHECKPOINT, "source.cluster.alias": "A", "target.cluster.alias": "B",
            "topics": topics, "groups": groups, "emit.checkpoints.interval.seconds": "1",
            "refresh.groups.interval.seconds": "1", "checkpoints.topic.replication.factor": "1",
            **cluster_settings("source", a), **cluster_settings("target", b),
            **{k.replace("_", "."): v for k, v in extra.items()}}


def commit(bootstrap: str, group: str, topic: str, offset: int, partition: int = 0) -> None:
    """Commit `offset` for `group` on one partition, as a consumer of the source cluster would."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    consumer.commit(offsets=[TopicPartition(topic, partition, offset)], asynchronous=False)
    consumer.close()


def latest_checkpoints(bootstrap: str) -> dict[tuple[str, str, int], Checkpoint]:
    """The last checkpoint per (group, topic, partition) in A.checkpoints.internal."""
    out = {}
    for _p, _o, k, v in sorted(read_to_end(bootstrap, "A.checkpoints.internal"), key=lambda r: r[1]):
        cp = Checkpoint.decode(k or b"", v or b"")
        out[(cp.group, cp.topic, cp.partition)] = cp
    return out
