"""How a run-copying task spreads its target partitions over producers (pyconnect/runtime/source/producer_pool.py;
copying through them across a delayed link is tests/test_wan.py, on real brokers). The producers here are real
librdkafka producers pointed at a closed port: dealing partitions needs no broker."""

from __future__ import annotations

import pytest

from pyconnect.kafka.clients import Producer, new_producer
from pyconnect.runtime.source.producer_pool import (
    LAN_RTT,
    MAX_PRODUCERS,
    MIN_QUEUE_KB,
    QUEUE_KEY,
    ProducerPool,
    producer_conf,
    producer_count,
)

CONF = {"bootstrap.servers": "127.0.0.1:1", QUEUE_KEY: "32768"}


def pool_for(rtt: float | None) -> tuple[ProducerPool, list[tuple[int, int]], list[str]]:
    made: list[tuple[int, int]] = []
    measured: list[str] = []

    def make(index: int, count: int) -> Producer:
        made.append((index, count))
        return new_producer(producer_conf(CONF, count, False))

    def measure(_producer: Producer, topic: str) -> float | None:
        measured.append(topic)
        return rtt
    return ProducerPool(new_producer(CONF), make, measure), made, measured


def test_producer_count_keeps_one_on_a_lan_and_grows_with_the_round_trip_within_the_bound() -> None:
    assert producer_count(None) == 1
    assert producer_count(LAN_RTT * 0.99) == 1
    assert [producer_count(ms / 1000) for ms in (10, 50, 100, 150, 200, 2000)] == [2, 2, 4, 6, 8, MAX_PRODUCERS]


def test_the_queue_is_shared_out_unless_the_user_set_it() -> None:
    assert producer_conf(CONF, 1, False)[QUEUE_KEY] == "32768"
    assert producer_conf(CONF, 2, False)[QUEUE_KEY] == "32768"  # the one extra producer (producer 0 has its own)
    assert producer_conf(CONF, 5, False)[QUEUE_KEY] == "8192"
    assert producer_conf(CONF, 8, False)[QUEUE_KEY] == "4681"
    assert producer_conf(CONF, 16, False)[QUEUE_KEY] == str(MIN_QUEUE_KB)
    assert producer_conf(CONF, 4, True)[QUEUE_KEY] == "32768"


@pytest.mark.parametrize(("rtt", "partitions", "producers"), [(0.0003, 6, 1), (None, 6, 1), (0.1, 6, 4),
                                                                (0.1, 2, 2), (0.2, 3, 3)])
def test_each_partition_stays_on_one_producer_and_producers_are_made_only_when_dealt_a_partition(
        rtt: float | None, partitions: int, producers: int) -> None:
    pool, made, measured = pool_for(rtt)
    assert len(pool.producers) == 1  # producer 0, made before any record
    first = [pool.for_partition("t", p) for p in range(partitions)]
    again = [pool.for_partition("t", p) for p in reversed(range(partitions))][::-1]
    assert first == again  # the same producer for a partition, whatever the order it is asked in
    assert measured == ["t"]  # sized once, at the first record
    assert len(pool.producers) == producers == len({id(p) for p in first})
    assert [index for index, _ in made] == list(range(1, producers))  # the extra ones, made when dealt a partition
    counts = [sum(1 for p in first if p is q) for q in pool.producers]
    assert max(counts) - min(counts) <= 1  # dealt round-robin
    reports: list[object] = []
    pool.produce("t", b"v", b"k", 0, lambda err, _msg: reports.append(err), None, 0, None)
    for producer in reversed(pool.producers):  # partition 0's producer last: only it holds the record
        producer.purge()
        producer.poll(0)
        assert len(reports) == (1 if producer is first[0] else 0)
