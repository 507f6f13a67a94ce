"""Steering a consumer's partitions: where it reads from (seek, assign at a position), which partitions it
fetches (pause, resume), and the group offsets it commits.

Partitions come in as anything with `topic` and `partition` (the runtime's own `TopicPartition`, or the
client's, as the rebalance callbacks hand them over); callers never build the client's type themselves.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import confluent_kafka as ck

from pyconnect.kafka.clients import Consumer, KafkaClientError

# Assign at this "offset" to start from the group's committed offset (or auto.offset.reset without one).
OFFSET_COMMITTED: int = ck.OFFSET_INVALID


class PartitionRef(Protocol):
    """A topic partition as callers hold it."""

    @property
    def topic(self) -> str: ...

    @property
    def partition(self) -> int: ...


def _refs(partitions: Iterable[PartitionRef]) -> list[ck.TopicPartition]:
    return [ck.TopicPartition(p.topic, p.partition) for p in partitions]


def seek(consumer: Consumer, topic: str, partition: int, offset: int) -> None:
    """Read `topic`/`partition` from `offset` next (the partition must be assigned)."""
    consumer.seek(ck.TopicPartition(topic, partition, offset))


def pause(consumer: Consumer, partitions: Iterable[PartitionRef]) -> None:
    """Stop fetching these partitions (they stay assigned)."""
    consumer.pause(_refs(partitions))


def resume(consumer: Consumer, partitions: Iterable[PartitionRef]) -> None:
    """Fetch these partitions again."""
    consumer.resume(_refs(partitions))


def commit_offsets(consumer: Consumer, offsets: Iterable[tuple[PartitionRef, int]]) -> None:
    """Commit the group's next offsets, (partition, next offset) pairs, and wait for the answer;
    KafkaClientError (with the client's description) if the commit failed."""
    try:
        consumer.commit(offsets=[ck.TopicPartition(p.topic, p.partition, o) for p, o in offsets],
                        asynchronous=False)
    except ck.KafkaException as exc:
        raise KafkaClientError(str(exc)) from exc
