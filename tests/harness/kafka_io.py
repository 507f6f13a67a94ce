"""Direct Kafka reads and writes for assertions (independent of the code under test)."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

import orjson
from confluent_kafka import OFFSET_END, Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource

from pyconnect.environment import env_value

Record = tuple[int, int, bytes | None, bytes | None]  # partition, offset, key, value


def partition_count(bootstrap: str, topic: str) -> int:
    """Partitions of `topic`, 0 if it does not exist. Lists all topics: a metadata request naming one
    topic would auto-create it on brokers with auto.create.topics.enable."""
    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10)
    found = md.topics.get(topic)
    return len(found.partitions) if found is not None and found.error is None else 0


def replica_counts(bootstrap: str, topic: str) -> set[int]:
    """The replica counts of `topic`'s partitions, as the broker's metadata reports them (listing all topics)."""
    found = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).topics.get(topic)
    return {len(p.replicas) for p in found.partitions.values()} if found is not None else set()


def topic_names(bootstrap: str) -> set[str]:
    """Names of every topic on the cluster."""
    return set(AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10).topics)


def topic_config(bootstrap: str, topic: str) -> dict[str, str]:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    fut = admin.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, topic)])
    return {k: v.value for f in fut.values() for k, v in f.result(timeout=10).items()}


def read_all(bootstrap: str, topic: str, idle: float = 1.5, timeout: float = 60.0,
             expect: int | None = None, isolation: str = "read_committed") -> list[Record]:
    """Every record of every partition, read with assign() until nothing new arrives for `idle` s
    (or `expect` records were seen)."""
    return [(m.partition(), m.offset(), m.key(), m.value())
            for m in read_messages(bootstrap, topic, idle, timeout, expect, isolation)]


def read_messages(bootstrap: str, topic: str, idle: float = 1.5, timeout: float = 60.0,
                  expect: int | None = None, isolation: str = "read_committed") -> list[Any]:
    """As read_all, but the client's messages themselves (with headers and timestamps)."""
    partitions = partition_count(bootstrap, topic)
    if partitions == 0:
        return []
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"reader-{time.monotonic_ns()}",
                         "enable.auto.commit": False, "fetch.wait.max.ms": 100, "isolation.level": isolation})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    records: list[Any] = []
    deadline = time.monotonic() + timeout
    last_new = time.monotonic()
    try:
        while time.monotonic() < deadline:
            batch = consumer.consume(1000, 0.2)
            records += [m for m in batch if m.error() is None]
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


FullRecord = tuple[int, bytes | None, bytes | None, tuple[tuple[str, bytes], ...], int]


def read_partitions(bootstrap: str, topic: str, expect: int, timeout: float = 60.0) -> dict[int, list[FullRecord]]:
    """partition -> [(offset, key, value, headers, timestamp)] in order, until `expect` records were read."""
    partitions = partition_count(bootstrap, topic)
    if partitions == 0:
        return {}
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"reader-{time.monotonic_ns()}",
                         "enable.auto.commit": False, "fetch.wait.max.ms": 50})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    out: dict[int, list[FullRecord]] = {p: [] for p in range(partitions)}
    n = 0
    deadline = time.monotonic() + timeout
    try:
        while n < expect and time.monotonic() < deadline:
            for m in consumer.consume(5000, 0.2):
                if m.error() is None:
                    out[m.partition()].append((m.offset(), m.key(), m.value(), tuple(m.headers() or ()),
                                               m.timestamp()[1]))
                    n += 1
    finally:
        consumer.close()
    return out


def produce_many(bootstrap: str, topic: str, count: int, partitions: int, headers: bool = True,
                 overrides: Mapping[str, str] | None = None, start: int = 0) -> None:
    """`count` keyed records spread over `partitions`, value `topic:n`, with headers and timestamps, in order
    within each partition: on Apache Kafka the producer is idempotent, since a retried first batch (the new
    topic's leader not ready yet) overtook by later ones reordered a partition (left as it was on Tansu, whose
    runs have always kept order, to keep its one-record batches' speed)."""
    ordered = {"enable.idempotence": True} if env_value("TEST_BROKER") == "kafka" else {}
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "queue.buffering.max.messages": 500000,
                         **ordered, **(overrides or {})})
    base_ts = 1_700_000_000_000
    for i in range(start, start + count):
        kwargs: dict[str, object] = {"partition": i % partitions, "key": b"k%d" % i, "timestamp": base_ts + i}
        if headers:
            kwargs["headers"] = [("h", b"%d" % i), ("src", topic.encode())]
        while True:
            try:
                producer.produce(topic, f"{topic}:{i}".encode(), **kwargs)  # type: ignore[arg-type]
                break
            except BufferError:
                producer.poll(0.05)
    assert producer.flush(60) == 0


def create_topic(bootstrap: str, topic: str, partitions: int, config: Mapping[str, str] | None = None) -> None:
    from confluent_kafka.admin import NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    for fut in admin.create_topics([NewTopic(topic, partitions, 1, config=dict(config or {}))]).values():
        fut.result(30)


def read_to_end(bootstrap: str, topic: str, timeout: float = 30.0) -> list[Record]:
    """Every record present when called, for topics that never go quiet (heartbeats, running tasks).

    The end of each partition is the high watermark of the first Fetch response for it: Tansu's
    ListOffsets(latest) is wrong for multi-record batches (test-brokers.md), the Fetch watermark is not.
    """
    partitions = partition_count(bootstrap, topic)
    if partitions == 0:
        return []
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"reader-{time.monotonic_ns()}",
                         "enable.auto.commit": False, "fetch.wait.max.ms": 50, "enable.partition.eof": True})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    records: list[Record] = []
    ends: dict[int, int] = {}
    position = dict.fromkeys(range(partitions), 0)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            for m in consumer.consume(1000, 0.2):
                p = m.partition()
                if p not in ends:
                    ends[p] = consumer.get_watermark_offsets(TopicPartition(topic, p), cached=True)[1]
                if m.error() is None:
                    position[p] = m.offset() + 1
                    if m.offset() < ends[p]:
                        records.append((p, m.offset(), m.key(), m.value()))
                elif m.error().code() == KafkaError._PARTITION_EOF:
                    # The end's offset: past a transaction's COMMIT/ABORT marker, which is never delivered, so
                    # a topic written in transactions ends one past its last record.
                    position[p] = max(position[p], m.offset() or 0)
            if len(ends) == partitions and all(position[p] >= end for p, end in ends.items()):
                break
    finally:
        consumer.close()
    return records


class PacedProducer(threading.Thread):
    """Records `start`.. `start + count` produced in bursts of 400 every ~0.1 s on a thread (until
    `stop`): data that keeps arriving while a test crashes, hands over or reconfigures something.
    `produced` counts the records written so far."""

    def __init__(self, bootstrap: str, topic: str, start: int, count: int, partitions: int,
                 stop: threading.Event, burst: int = 400) -> None:
        super().__init__(daemon=True)
        self.bootstrap, self.topic, self.partitions = bootstrap, topic, partitions
        self.start_at, self.count = start, count
        self.stop_event = stop
        self.produced = 0
        self.burst = burst

    def run(self) -> None:
        while self.produced < self.count and not self.stop_event.is_set():
            produce_many(self.bootstrap, self.topic, self.burst, self.partitions, start=self.start_at + self.produced)
            self.produced += self.burst
            time.sleep(0.1)  # the pacing is the point: records keep arriving meanwhile


def fetched_ends(bootstrap: str, topic: str, timeout: float = 30.0) -> dict[int, int]:
    """Each partition's high watermark as a Fetch response reports it, without reading the records.

    Tansu's ListOffsets(latest) is wrong for multi-record batches (test-brokers.md), so the consumer starts where
    it says the end is and waits for the end-of-partition event or a record (a partition written to without
    pause may never report its end): the cached watermark is then a Fetch's."""
    partitions = partition_count(bootstrap, topic)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"ends-{time.monotonic_ns()}",
                         "enable.auto.commit": False, "fetch.wait.max.ms": 50, "enable.partition.eof": True})
    consumer.assign([TopicPartition(topic, p, OFFSET_END) for p in range(partitions)])
    at_end: set[int] = set()
    deadline = time.monotonic() + timeout
    try:
        while len(at_end) < partitions and time.monotonic() < deadline:
            for m in consumer.consume(1000, 0.2):
                if m.error() is None or m.error().code() == KafkaError._PARTITION_EOF:
                    at_end.add(m.partition())
        assert len(at_end) == partitions, f"no Fetch answer for every partition of {topic} in {timeout}s"
        return {p: consumer.get_watermark_offsets(TopicPartition(topic, p), cached=True)[1] for p in range(partitions)}
    finally:
        consumer.close()


def keep_producing(bootstrap: str, topic: str, start: int, count: int, partitions: int,
                   stop: threading.Event, burst: int = 400) -> PacedProducer:
    producer = PacedProducer(bootstrap, topic, start, count, partitions, stop, burst)
    producer.start()
    return producer


def stored_offsets(bootstrap: str, topic: str, connector: str, live: bool = False) -> dict[str, Any]:
    """A connector's source offsets as stored in a Connect offsets topic: canonical partition JSON -> offset.

    `live`: the topic is still being written (a running connector commits every flush interval), so read what is
    there now rather than until it goes quiet; non-transactional writers only (no read_committed filter)."""
    out: dict[str, Any] = {}
    records = read_to_end(bootstrap, topic, timeout=60) if live else read_all(bootstrap, topic, idle=1.0)
    for _p, _o, key, value in records:
        name, partition = orjson.loads(key or b"[]")
        if name == connector:
            text = orjson.dumps(partition, option=orjson.OPT_SORT_KEYS).decode()
            out[text] = None if value is None else orjson.loads(value)
    return out


def committed_records(bootstrap: str, offsets_topic: str, connector: str, topic: str) -> int:
    """Records of source `topic` a mirror connector has committed (sum of next offsets per partition)."""
    offsets = stored_offsets(bootstrap, offsets_topic, connector, live=True)
    return sum(value["offset"] + 1 for key, value in offsets.items() if value and f'"topic":"{topic}"' in key)
