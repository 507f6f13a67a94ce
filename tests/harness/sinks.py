"""Helpers for sink connector tests: worker settings for sink consumers on Tansu, the group's committed
offsets as lag tooling reads them, and the lines a file sink wrote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
from confluent_kafka.admin import AdminClient

from tests.harness.brokers import Broker


def sink_worker_extra(broker: Broker) -> dict[str, str]:
    """Worker `consumer.*` settings sink tests need. On Tansu, JoinGroup waits for the rebalance timeout
    (max.poll.interval.ms, 300 s by default; test-brokers.md), so the harness lowers it; the product keeps
    librdkafka's defaults."""
    if broker.kind != "tansu":
        return {}
    return {"consumer.max.poll.interval.ms": "6000", "consumer.session.timeout.ms": "6000",
            "consumer.heartbeat.interval.ms": "500", "consumer.fetch.max.wait.ms": "50"}


def group_offsets(bootstrap: str, group: str, topic: str, partitions: int) -> dict[int, int]:
    """The group's committed offsets (ListConsumerGroupOffsets, what kafka-consumer-groups shows)."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    request = ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p) for p in range(partitions)])
    result = admin.list_consumer_group_offsets([request])[group].result(30)
    return {tp.partition: tp.offset for tp in result.topic_partitions if tp.offset >= 0}


def lines(path: Path) -> list[str]:
    """Complete lines of a file (a torn last line, still being written, is left out)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return text.split("\n")[:-1]


def file_sink(name: str, path: Path, topics: str, tasks: int = 1, **extra: Any) -> dict[str, Any]:
    """A FileStreamSinkConnector body by its Java class name, as the Connect quickstart writes it."""
    return {"name": name, "config": {"connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
                                     "tasks.max": str(tasks), "file": str(path), "topics": topics,
                                     **{k: str(v) for k, v in extra.items()}}}
