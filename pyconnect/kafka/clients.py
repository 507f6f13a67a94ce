"""Thin factories and helpers over confluent-kafka clients.

Messages returned by `consume()` are confluent-kafka `Message` objects used duck-typed by the
callers (`key()`, `value()`, `partition()`, `offset()`, `timestamp()`, `headers()`, `error()`),
so the per-record path allocates nothing of ours.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

import confluent_kafka as ck

from pyconnect.kafka.client_log import ClientLog
from pyconnect.kafka.client_stats import STATS_INTERVAL_MS, ClientStats
from pyconnect.kafka.config import redact

log = logging.getLogger(__name__)

Message = ck.Message
Producer = ck.Producer  # for annotations; create one with new_producer / new_bulk_producer
Consumer = ck.Consumer  # for annotations; create one with new_consumer
OFFSET_BEGINNING = ck.OFFSET_BEGINNING
OFFSET_END = ck.OFFSET_END
TIMESTAMP_NOT_AVAILABLE = ck.TIMESTAMP_NOT_AVAILABLE
DeliveryCallback = Callable[[Any, Any], None]


class KafkaClientError(Exception):
    """A client could not be created or an operation failed, with a readable reason."""


def _error_cb(name: str, on_fatal: Callable[[str], None] | None = None) -> Callable[[ck.KafkaError], None]:
    def on_error(err: ck.KafkaError) -> None:
        if err.fatal():  # the client stopped (e.g. a gap in an idempotent producer's sequence)
            log.error("%s client fatal error: %s", name, err)
            if on_fatal is not None:
                on_fatal(err.str())
        else:  # transient transport errors, retried internally
            log.debug("%s client error: %s", name, err)
    return on_error


def client_conf(conf: Mapping[str, str], name: str, on_fatal: Callable[[str], None] | None = None,
                stats: ClientStats | None = None) -> dict[str, Any]:
    """`conf` with the callbacks every client gets; with `stats`, librdkafka's statistics go there."""
    out: dict[str, Any] = dict(conf)
    out.setdefault("error_cb", _error_cb(name, on_fatal))
    # librdkafka's log lines go through Python logging, repeated trouble folded (pyconnect.kafka.client_log)
    out.setdefault("logger", ClientLog(str(conf.get("bootstrap.servers", ""))))
    if stats is not None:
        out.setdefault("statistics.interval.ms", STATS_INTERVAL_MS)
        out["stats_cb"] = stats.on_stats
    return out


def new_producer(conf: Mapping[str, Any], on_fatal: Callable[[str], None] | None = None,
                 stats: ClientStats | None = None) -> ck.Producer:
    """A producer; `on_fatal(reason)` is called (after logging) if it stops for good; its statistics
    go to `stats` if given."""
    try:
        return ck.Producer(client_conf(conf, "producer", on_fatal, stats))
    except ck.KafkaException as exc:
        raise KafkaClientError(f"invalid producer configuration {redact(conf)}: {exc}") from exc


def new_bulk_producer(conf: Mapping[str, str], on_failure: Callable[[Any], None]) -> ck.Producer:
    """A producer that calls back only for failed deliveries (no per-record Python call on success).

    `on_failure(error)` receives the KafkaError of each record Kafka refused."""
    def report(err: Any, _msg: Any) -> None:
        if err is not None:
            on_failure(err)
    full: dict[str, Any] = {**conf, "delivery.report.only.error": True, "on_delivery": report}
    try:
        return ck.Producer(client_conf(full, "producer"))
    except ck.KafkaException as exc:
        raise KafkaClientError(f"invalid producer configuration {redact(conf)}: {exc}") from exc


def new_consumer(conf: Mapping[str, str], stats: ClientStats | None = None) -> ck.Consumer:
    """A consumer (offsets committed by the caller); its statistics go to `stats` if given."""
    full = {"enable.auto.commit": "false", "group.id": "pyconnect-reader", **conf}
    try:
        return ck.Consumer(client_conf(full, "consumer", stats=stats))
    except ck.KafkaException as exc:
        raise KafkaClientError(f"invalid consumer configuration {redact(conf)}: {exc}") from exc


def assign(consumer: ck.Consumer, positions: Iterable[tuple[str, int, int]]) -> None:
    """Assign (topic, partition, offset) triples; offset may be OFFSET_BEGINNING/OFFSET_END."""
    consumer.assign([ck.TopicPartition(t, p, o) for t, p, o in positions])


def assign_with_leader(consumer: ck.Consumer, positions: Sequence[tuple[str, int, int]], timeout: float) -> None:
    """`assign`, for a consumer that may not know the partitions' leader yet: if a position is logical
    (BEGINNING/END), the topics' metadata is asked for first (at most `timeout` seconds, then assigned anyway).
    Why: librdkafka resolves a logical offset with a ListOffsets to the leader; a partition assigned before the
    leader is known waits for the offset-query retry timer (500 ms), even once the leader is known a round trip
    later. Assigned once it is known, the query leaves at once."""
    deadline = time.monotonic() + timeout
    for topic in sorted({t for t, _, offset in positions if offset < 0}):
        try:
            consumer.list_topics(topic, timeout=max(0.0, deadline - time.monotonic()))
        except ck.KafkaException as exc:  # not reachable yet: librdkafka retries on its own, as it would have
            log.debug("no metadata for %s before assigning it: %s", topic, exc)
    assign(consumer, positions)


def end_offsets(consumer: ck.Consumer, topic: str, partitions: Sequence[int],
                timeout: float = 10.0) -> dict[int, int]:
    """High watermark of each partition, asked of the broker (ListOffsets latest, one request)."""
    return _list_offsets(consumer, topic, partitions, ck.OFFSET_END, timeout)


def offset_bounds(consumer: ck.Consumer, topic: str, partitions: Sequence[int],
                  timeout: float = 10.0) -> dict[int, tuple[int, int]]:
    """(log start offset, high watermark) of each partition, asked of the broker (ListOffsets)."""
    low = _list_offsets(consumer, topic, partitions, ck.OFFSET_BEGINNING, timeout)
    high = _list_offsets(consumer, topic, partitions, ck.OFFSET_END, timeout)
    return {p: (low[p], high[p]) for p in low}


def _list_offsets(consumer: ck.Consumer, topic: str, partitions: Sequence[int], spec: int,
                  timeout: float) -> dict[int, int]:
    """One ListOffsets request for all `partitions` (spec: OFFSET_BEGINNING or OFFSET_END, which the broker
    reads as the earliest/latest timestamps). Why not get_watermark_offsets per partition: each is a request
    of its own on the consumer's connection, queued behind the fetch the broker holds for fetch.max.wait.ms
    when the topic is idle, so reading a 25-partition topic to its end took 25 fetch waits (1.3 s with a
    50 ms wait, 12.5 s with the default 500 ms), where Connect's consumer.endOffsets asks once."""
    result: dict[int, int] = {}
    pending, pause = list(partitions), 0.05
    deadline = time.monotonic() + timeout
    while pending:
        try:
            answered = consumer.offsets_for_times([ck.TopicPartition(topic, p, spec) for p in pending],
                                                  timeout=max(0.1, deadline - time.monotonic()))
        except ck.KafkaException as exc:  # the whole request refused: every partition is asked again
            if not _leader_moving(exc.args[0] if exc.args else None) or time.monotonic() + pause >= deadline:
                raise
        else:
            pending = []
            for tp in answered:
                if tp.error is None:
                    result[tp.partition] = int(tp.offset)
                elif _leader_moving(tp.error) and time.monotonic() + pause < deadline:
                    pending.append(tp.partition)
                else:
                    raise ck.KafkaException(tp.error)
        if pending:  # poll interval of the wait, under the caller's deadline
            time.sleep(pause)
            pause = min(pause * 2, 0.5)
    return result


def _leader_moving(error: object) -> bool:
    return isinstance(error, ck.KafkaError) and error.code() in _LEADER_MOVING


# A partition whose leader is not (yet) where the metadata says: Apache Kafka answers so for a moment after a topic
# is created (its metadata shows the leader before that broker acts as one; the client's own metadata may not list
# the partition yet: _UNKNOWN_PARTITION) or while leadership moves. Asked again, under the caller's timeout.
_LEADER_MOVING = frozenset({ck.KafkaError.NOT_LEADER_FOR_PARTITION, ck.KafkaError.LEADER_NOT_AVAILABLE,
                            ck.KafkaError.FENCED_LEADER_EPOCH, ck.KafkaError.UNKNOWN_LEADER_EPOCH,
                            ck.KafkaError.OFFSET_NOT_AVAILABLE, ck.KafkaError._UNKNOWN_PARTITION})


def consume_available(consumer: ck.Consumer, max_records: int, timeout: float) -> list[Any]:
    """Up to `max_records` messages, waiting up to `timeout` for the first one only.

    librdkafka's batch consume waits until the batch is full or the timeout expires, which holds
    a caught-up task (and the commits and acks it would process meanwhile) for the whole timeout."""
    first = consumer.poll(timeout)  # at once when a message is queued; an idle caller pays one call
    if first is None:
        return []
    messages: list[Any] = consumer.consume(max_records - 1, 0) if max_records > 1 else []
    messages.insert(0, first)
    return messages


def watermarks(consumer: ck.Consumer, topic: str, partition: int) -> tuple[int, int]:
    """(low, high) watermarks from the last fetch response (no broker round trip); -1 where not known yet."""
    result = consumer.get_watermark_offsets(ck.TopicPartition(topic, partition), cached=True)
    if not result:
        return -1, -1
    return max(-1, int(result[0])), max(-1, int(result[1]))


def broker_watermarks(consumer: ck.Consumer, topic: str, partition: int, timeout: float) -> tuple[int, int]:
    """(log start offset, high watermark) of one partition, asked of the broker now (not the last fetch's)."""
    low, high = consumer.get_watermark_offsets(ck.TopicPartition(topic, partition), timeout=timeout, cached=False)
    return int(low), int(high)


def positions(consumer: ck.Consumer, topic: str, partitions: Sequence[int]) -> dict[int, int]:
    """The consumer's next fetch offset per partition (skips compaction gaps and markers); -1 if unknown."""
    tps = consumer.position([ck.TopicPartition(topic, p) for p in partitions])
    return {tp.partition: (tp.offset if tp.offset >= 0 else -1) for tp in tps}


class PositionalProduce(Protocol):
    """A producer's own produce as `positional_produce` returns it, called with all eight arguments
    in this order; `unused` is the client's other name for `on_delivery` and is always None."""

    def __call__(self, topic: str, value: bytes | None, key: bytes | None, partition: int,
                 on_delivery: DeliveryCallback | None, unused: None, timestamp: int, headers: Any, /) -> None:
        ...


def positional_produce(producer: ck.Producer) -> PositionalProduce:
    """The producer's (C) produce method, bound, for hot loops: called positionally it costs no
    keyword dict and no Python frame per record, which keyword calls or a wrapper would.

    It raises `BufferError` when the local queue is full (poll the producer and retry) and
    `RecordRefused` (pyconnect.kafka.errors) when the record is refused. A `None` callback means the
    producer's configured `on_delivery`, if any (see `new_bulk_producer`)."""
    return producer.produce


def produce(producer: ck.Producer, topic: str, value: bytes | None, key: bytes | None = None,
            partition: int | None = None, on_delivery: DeliveryCallback | None = None,
            timestamp: int | None = None, headers: Any = None) -> None:
    """Produce, waiting for queue space instead of failing when the local queue is full."""
    kwargs: dict[str, Any] = {"key": key, "value": value}
    if partition is not None:
        kwargs["partition"] = partition
    if on_delivery is not None:
        kwargs["on_delivery"] = on_delivery
    if timestamp:
        kwargs["timestamp"] = timestamp
    if headers:
        kwargs["headers"] = headers
    while True:
        try:
            producer.produce(topic, **kwargs)
            return
        except BufferError:
            producer.poll(0.05)
