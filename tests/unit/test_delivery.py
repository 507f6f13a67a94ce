"""Delivery strategies: chosen once per task by its kind; each produces what its task polls and
commits only what Kafka acknowledged. And the pyconnect.kafka error helpers they rely on."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException

from pyconnect.api.connector import MessageRunTask, SourceTask
from pyconnect.api.converter import Serialize as Converter
from pyconnect.api.records import MessageRun, SourceRecord
from pyconnect.converters.builtin import byte_array
from pyconnect.kafka.errors import error_text, is_partition_eof
from pyconnect.runtime.source.delivery import (
    DeliveryContext,
    DeliveryFailed,
    GenericDelivery,
    OrderedDelivery,
    RunDelivery,
    StopRequested,
    delivery_for,
)
from pyconnect.runtime.source.run_acks import RUN_PRODUCER_DEFAULTS
from tests.harness.messages import FakeMessage


class _Records(SourceTask):
    def __init__(self, records: list[SourceRecord]) -> None:
        self.records = records
        self.acked: list[tuple[int, int]] = []

    def start(self, config: Mapping[str, str]) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        return self.records

    def stop(self) -> None:
        pass


class _Acked(_Records):
    def commit_record(self, record: SourceRecord, partition: int, offset: int) -> None:
        self.acked.append((partition, offset))


class _Ordered(_Records):
    ordered_partitions = True


class _Runs(MessageRunTask):
    def start(self, config: Mapping[str, str]) -> None:
        pass

    def poll_runs(self) -> list[MessageRun] | None:
        return []

    def stop(self) -> None:
        pass


class _Producer:
    """Keeps each produce() call's positional arguments; refuses values equal to `refuse`."""

    def __init__(self, refuse: bytes | None = None, full: bool = False) -> None:
        self.calls: list[tuple[object, ...]] = []
        self.refuse, self.full = refuse, full

    def produce(self, *args: object) -> None:
        if self.full:
            raise BufferError()
        if args[1] == self.refuse:
            raise KafkaException(KafkaError(KafkaError.MSG_SIZE_TOO_LARGE))
        self.calls.append(args)

    def poll(self, timeout: float) -> int:
        return 0


def _context(failures: list[str], topics: list[str], stopping: threading.Event | None = None,
             key_converter: Converter = byte_array) -> DeliveryContext:
    seen: set[str] = set()

    def new_topic(topic: str) -> None:
        seen.add(topic)
        topics.append(topic)
    return DeliveryContext(key_converter, byte_array, stopping or threading.Event(), seen, new_topic,
                           failures.append)


def test_the_strategy_follows_the_kind_of_task() -> None:
    ctx = _context([], [])
    assert isinstance(delivery_for(_Runs(), ctx), RunDelivery)
    assert isinstance(delivery_for(_Ordered([]), ctx), OrderedDelivery)
    assert isinstance(delivery_for(_Records([]), ctx), GenericDelivery)
    assert delivery_for(_Runs(), ctx).producer_defaults == RUN_PRODUCER_DEFAULTS
    assert dict(delivery_for(_Records([]), ctx).producer_defaults) == {}


def test_generic_records_each_carry_their_own_callback() -> None:
    failures: list[str] = []
    topics: list[str] = []
    sp = {"s": 0}
    task = _Acked([SourceRecord(sp, {"o": i}, "t", b"v%d" % i, b"k", None, 7, [("h", b"1")]) for i in range(3)])
    delivery = delivery_for(task, _context(failures, topics, key_converter=lambda k: b"K" + k))
    producer = _Producer()
    batch = delivery.poll()
    assert batch is not None
    delivery.send(producer, batch)
    assert [c[:4] for c in producer.calls] == [("t", b"v%d" % i, b"Kk", -1) for i in range(3)]
    assert [c[5:] for c in producer.calls] == [(None, 7, [("h", b"1")])] * 3 and topics == ["t"]
    callbacks: list[Any] = [c[4] for c in producer.calls]
    callbacks[1](None, FakeMessage("t", 2, 41))
    assert delivery.committable() == [], "record 0 is not acknowledged yet"
    callbacks[0](None, FakeMessage("t", 2, 40))
    assert delivery.committable() == [(sp, {"o": 1})] and task.acked == [(2, 41), (2, 40)]
    callbacks[2](KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED), FakeMessage("t", 2, -1, b"v2"))
    assert failures == ["Kafka rejected a record for topic t partition None (source partition {'s': 0}, "
                        "offset {'o': 2}, 2 bytes): Broker: Topic authorization failed"]


def test_ordered_records_share_one_callback_and_a_refusal_names_the_record() -> None:
    failures: list[str] = []
    sp = {"s": 0}
    records = [SourceRecord(sp, {"o": i}, "t", b"v%d" % i, None, 1) for i in range(3)]
    delivery = delivery_for(_Ordered(records), _context(failures, []))
    assert isinstance(delivery, OrderedDelivery)
    producer = _Producer(refuse=b"v2")
    with pytest.raises(DeliveryFailed, match=r"topic t partition 1 \(source partition \{'s': 0\}, "
                                             r"offset \{'o': 2\}, 2 bytes\): .*[Ss]ize"):
        delivery.send(producer, records)
    assert [c[4] for c in producer.calls] == [delivery.acks] * 2
    delivery.acks(None, FakeMessage("t", 1, 10))
    delivery.acks(None, FakeMessage("t", 1, 11))
    assert delivery.committable() == [(sp, {"o": 1})]


def test_a_stop_interrupts_a_full_queue_for_records_too() -> None:
    stopping = threading.Event()
    stopping.set()
    delivery = delivery_for(_Records([]), _context([], [], stopping))
    with pytest.raises(StopRequested):
        delivery.send(_Producer(full=True), [SourceRecord({"s": 0}, {"o": 0}, "t", b"v")])


def test_error_helpers() -> None:
    err = KafkaError(KafkaError.MSG_SIZE_TOO_LARGE)
    assert error_text(err) == error_text(KafkaException(err)) == err.str()
    assert error_text(RuntimeError("plain")) == "plain"
    assert is_partition_eof(KafkaError(KafkaError._PARTITION_EOF))
    assert not is_partition_eof(err) and not is_partition_eof(None)
