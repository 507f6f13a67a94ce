"""A far task's fetch sessions at a first start: assigned in FetchPool.connect, once the leader is known.

connectors/mirror/fetch_pool.py's invariant: a session whose positions are logical (BEGINNING/END) is assigned in
`connect`, never before (librdkafka would wait for its 500 ms offset-query timer) and never left unassigned: an
assignment that fails makes `connect`, and so the task's start, fail. A concrete position is assigned at once.
Real consumers on a real broker (how fast the first records come through a far link: tests/test_wan.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer

from connectors.mirror.fetch_pool import FetchPool
from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic


def consumers(bootstrap: str, made: list[Any]) -> Any:
    def new_consumer(index: int, conf: dict[str, str]) -> Any:
        consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"pool-{index}", **conf})
        made.append(consumer)
        return consumer
    return new_consumer


def assigned(consumer: Any) -> list[tuple[str, int, int]]:
    return sorted((tp.topic, tp.partition, tp.offset) for tp in consumer.assignment())


def test_logical_positions_are_assigned_on_connect_and_concrete_ones_at_once(broker_b: Broker, unique: str) -> None:
    topic = f"pool{unique}"
    create_topic(broker_b.bootstrap, topic, 2)
    producer = Producer({"bootstrap.servers": broker_b.bootstrap})
    for p in range(2):
        producer.produce(topic, b"r%d" % p, partition=p)
    assert producer.flush(30) == 0
    made: list[Any] = []
    pool = FetchPool(consumers(broker_b.bootstrap, made), [(topic, 0, OFFSET_BEGINNING), (topic, 1, 0)], 2)
    try:
        assert [assigned(c) for c in made] == [[], [(topic, 1, 0)]]
        pool.connect(10)
        assert [len(assigned(c)) for c in made] == [1, 1]
        values = set()
        while len(values) < 2:  # both partitions are read, the logical one from its beginning
            values.update(m.value() for m in pool.consume(10, 10) if m.error() is None)
        assert values == {b"r0", b"r1"}
    finally:
        pool.close()


def test_a_deferred_assignment_that_fails_fails_connect(broker_b: Broker, unique: str) -> None:
    topic = f"poolfail{unique}"
    create_topic(broker_b.bootstrap, topic, 2)
    made: list[Any] = []
    pool = FetchPool(consumers(broker_b.bootstrap, made), [(topic, 0, OFFSET_BEGINNING), (topic, 1, OFFSET_BEGINNING)],
                     2)
    made[1].close()  # its deferred assign() now raises: the partition must not be left silently unread
    with pytest.raises(RuntimeError):
        pool.connect(10)
    made[0].close()
