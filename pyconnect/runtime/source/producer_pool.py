"""Several idempotent producers for one run-copying source task: its target partitions split among them.

Why: the idempotent producer the run protocol needs (run_acks.py) keeps at most 5 requests in flight per
broker connection, each with at most one batch per partition, a batch at most the topic's
`max.message.bytes` (1 MB on Kafka by default); on the Tansu brokers of this project's tests it completes
about one 1 MB batch per partition per round trip. Across a 100 ms link that caps one producer at a few
MB/s per partition. More producers are more connections, each with its own requests in flight.

Invariants:
- every target (topic, partition) is written by exactly one producer for the pool's life (the first
  producer it was dealt to, round-robin in the order partitions first appear), so records of a partition
  are written in the order they were produced, and a run's first and last acknowledgement come from the
  same producer; the run protocol (run_acks.py) sees what it sees with one producer;
- the pool is only used for runs whose source partition always goes to one target partition (a
  MessageRunTask without transforms, as the mirror copies partition p to partition p): a source
  partition's acknowledgements then arrive in order, so committing the last acknowledged offset never
  goes past a record not yet acknowledged;
- how many: decided once, at the first record, from the measured round trip to the target cluster
  (pyconnect/kafka/round_trip.py), by `producer_count`: ONE below LAN_RTT (10 ms) or when the link could
  not be measured (a LAN copy runs exactly as with one producer), else one per SESSION_RTT (25 ms) of
  round trip, 2 to MAX_PRODUCERS (8); a producer is created only when a partition is dealt to it, so
  there are never more producers than partitions written;
- producer 0 is made before the task starts, with the task's whole queue, as the single producer always was
  (a LAN copy pays nothing more than the few metadata requests that time the round trip); the others are
  made at the first record;
- memory: the task's unacknowledged bytes stay within two producer queues (`queue.buffering.max.kbytes`,
  32 MB by default): producer 0's, and one shared out equally among the others unless the user set it;
- delivery callbacks run on the task thread, inside `poll`/`flush` of the pool, as with one producer.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

from pyconnect.kafka.clients import PositionalProduce, Producer, positional_produce

LAN_RTT = 0.010  # seconds: below it the target is on the task's LAN and one producer writes at full speed
SESSION_RTT = 0.025  # seconds of round trip one more producer is added for
MAX_PRODUCERS = 8
MIN_QUEUE_KB = 4096  # a producer's share of the queue never below 4 MB (several 1 MB batches in flight)
QUEUE_KEY = "queue.buffering.max.kbytes"


def producer_count(rtt: float | None) -> int:
    """Producers for a task whose target cluster answers in `rtt` seconds (None: unknown)."""
    if rtt is None or rtt < LAN_RTT:
        return 1
    return min(MAX_PRODUCERS, max(2, math.ceil(rtt / SESSION_RTT - 1e-9)))


def producer_conf(conf: Mapping[str, str], count: int, user_set_queue: bool) -> dict[str, str]:
    """An extra producer's settings (one of `count`): the task's, with the queue shared out among the
    count - 1 extra ones (unless the user set it)."""
    out = dict(conf)
    if count > 1 and not user_set_queue and QUEUE_KEY in out:
        out[QUEUE_KEY] = str(max(MIN_QUEUE_KB, int(out[QUEUE_KEY]) // (count - 1)))
    return out


class ProducerPool:
    """The task's producers, used as one: `for_partition` names the producer of a target partition;
    `poll`, `flush` and `len` cover them all."""

    def __init__(self, first: Producer, new_producer: Callable[[int, int], Producer],
                 measure: Callable[[Producer, str], float | None]) -> None:
        """`first` is producer 0, made before the task starts (its connection and producer id are ready by
        the first record); `new_producer(index, count)` makes producer `index` of `count`;
        `measure(producer, topic)` times the round trip with a producer."""
        self._new, self._measure = new_producer, measure
        self.producers: list[Producer] = [first]
        self._slots: list[Producer | None] = []
        self._owner: dict[tuple[str, int], Producer] = {}

    def for_partition(self, topic: str, partition: int) -> Producer:
        """The producer that writes `topic`/`partition` (always the same one)."""
        owner = self._owner.get((topic, partition))
        if owner is not None:
            return owner
        if not self._slots:  # the first record: size the pool from the round trip to its topic's cluster
            self._slots = [None] * producer_count(self._measure(self.producers[0], topic))
            self._slots[0] = self.producers[0]
        index = len(self._owner) % len(self._slots)
        producer = self._slots[index]
        if producer is None:
            producer = self._slots[index] = self._new(index, len(self._slots))
            self.producers.append(producer)
        self._owner[(topic, partition)] = producer
        return producer

    def produce(self, topic: str, value: Any, key: Any, partition: int, on_delivery: Any, unused: None,
                timestamp: int, headers: Any, /) -> None:
        """positional_produce's signature (the slow path's): to the partition's producer."""
        self.for_partition(topic, partition).produce(topic, value, key, partition, on_delivery, unused, timestamp,
                                                     headers)

    def poll(self, timeout: float = 0) -> int:
        """Serve every producer's callbacks, waiting up to `timeout` in all."""
        share = timeout / len(self.producers)
        return sum(p.poll(share) for p in self.producers)

    def flush(self, timeout: float = -1) -> int:
        """Wait up to `timeout` in all (negative: no limit) for every producer; the messages left queued."""
        deadline = None if timeout < 0 else time.monotonic() + timeout
        left = 0
        for p in self.producers:
            left += p.flush(-1 if deadline is None else max(0.0, deadline - time.monotonic()))
        return left

    def __len__(self) -> int:
        return sum(len(p) for p in self.producers)


AnyProducer = Producer | ProducerPool  # what a delivery strategy produces with


def produce_fn(producer: AnyProducer) -> PositionalProduce:
    """positional_produce for either: a producer's own (C) produce, or the pool's routing one."""
    return producer.produce if isinstance(producer, ProducerPool) else positional_produce(producer)


def partition_producer(producer: AnyProducer, topic: str, partition: int) -> Producer:
    """The producer that writes `topic`/`partition`: the pool's choice, or the one producer."""
    return producer.for_partition(topic, partition) if isinstance(producer, ProducerPool) else producer
