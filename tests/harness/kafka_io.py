"""Direct Kafka reads and writes for assertions (independent of the code under test)."""

from __future__ import annotations

import time
from collections.abc import Mapping

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource

Record = tuple[int, int, bytes | None, bytes | None]  # partition, offset, key, value


def partition_count(bootstrap: str, topic: str) -> int:
    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic, timeout=10)
    return len(md.topics[topic].partitions)


def topic_config(bootstrap: str, topic: str) -> dict[str, str]:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    fut = admin.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, topic)])
    return {k: v.value for f in fut.values() for k, v in f.result(timeout=10).items()}


def read_all(bootstrap: str, topic: str, idle: float = 1.5, timeout: float = 60.0,
             expect: int | None = None) -> list[Record]:
    """Every record of every partition, read with assign() until nothing new arrives for `idle` s
    (or `expect` records were seen)."""
    partitions = partition_count(bootstrap, topic)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"reader-{time.monotonic_ns()}",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    records: list[Record] = []
    deadline = time.monotonic() + timeout
    last_new = time.monotonic()
    try:
        while time.monotonic() < deadline:
            batch = consumer.consume(1000, 0.2)
            for m in batch:
                if m.error() is None:
                    records.append((m.partition(), m.offset(), m.key(), m.value()))
            if batch:
                last_new = time.monotonic()
            if expect is not None and len(records) >= expect:
                break
            if expect is None and time.monotonic() - last_new > idle:
                break
    finally:
        consumer.close()
    return records


def produce(bootstrap: str, topic: str, records: list[tuple[bytes | None, bytes]], partition: int | None = None,
            overrides: Mapping[str, str] | None = None) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, **(overrides or {})})
    for key, value in records:
        kwargs = {} if partition is None else {"partition": partition}
        producer.produce(topic, value, key=key, **kwargs)
    assert producer.flush(30) == 0
