"""How a source task's batches reach Kafka: one `Delivery` strategy per task, chosen when it starts.

* `RunDelivery`: a `MessageRunTask` (the mirror) hands over runs of consumer messages; each run is
  produced with one delivery callback, on its first and last message (`run_acks`).
* `OrderedDelivery`: a task with `ordered_partitions` sends each source partition to one fixed
  target partition; one shared callback and a FIFO per partition identify records (`OrderedAcks`).
* `GenericDelivery`: any other task; one callback object per record (`GenericAcks`).

Everything here runs on the task's thread, delivery callbacks included (inside `producer.poll`).
The hot loops bind what they use to locals and call the producer's own produce positionally
(`positional_produce`), so a record costs no Python object of ours.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from pyconnect.api.connector import MessageRunTask, SourceTask
from pyconnect.api.converter import HeaderConverter, SchemaSerialize
from pyconnect.api.converter import Serialize as Converter
from pyconnect.api.records import MessageRun, SourcePartition, SourceRecord
from pyconnect.converters.builtin import byte_array
from pyconnect.kafka.clients import Producer, positional_produce
from pyconnect.kafka.errors import RecordRefused, error_text
from pyconnect.runtime.source.offset_tracker import Committable, GenericAcks, OnAck, OrderedAcks
from pyconnect.runtime.source.run_acks import RUN_PRODUCER_DEFAULTS, RunAcks

B = TypeVar("B")  # what the task's poll hands over: SourceRecord or MessageRun
HeldAcks = list[tuple[Callable[..., Any], tuple[Any, ...]]]  # (hook, args) calls held for a commit


class DeliveryFailed(Exception):
    """Kafka refused a record; the task fails rather than drop it."""


class StopRequested(Exception):
    """The task was asked to stop while the producer's queue was full (the target is not taking
    records): producing stops there instead of waiting for room that may never come."""


class Delivery(Protocol[B]):
    """A task's way of producing what it polls and of learning which source offsets Kafka holds."""

    @property
    def producer_defaults(self) -> Mapping[str, str]:
        """Producer settings the strategy relies on (the worker's producer settings override them)."""
        ...

    def poll(self) -> list[B] | None:
        """The task's next batch (None or empty when it has nothing)."""
        ...

    def send(self, producer: Producer, batch: list[B]) -> None:
        """Produce a batch; raises `DeliveryFailed` if Kafka refuses a record, `StopRequested` if the
        task is stopping while the producer's queue is full."""
        ...

    def committable(self) -> Committable:
        """Source partitions and offsets acknowledged since the last call, safe to commit."""
        ...

    def settle(self, delivered: bool) -> None:
        """After a final flush: `delivered` when nothing was left queued and the producer is sound."""
        ...


@dataclass(frozen=True)
class DeliveryContext:
    """What a strategy needs from its runner."""

    key_converter: Converter
    value_converter: Converter
    stopping: threading.Event  # set when the task is asked to stop
    seen_topics: set[str]  # target topics already reported to `new_topic`
    new_topic: Callable[[str], None]  # reports a target topic (and adds it to `seen_topics`)
    fail: Callable[[str], None]  # a delivery failure, described; the task fails with it
    #: Exactly-once: the task's ack hooks are held here until the transaction commits (None: called at once).
    held: HeldAcks | None = None
    #: Key and value converters of records that carry a Connect schema (`key_schema`/`value_schema`).
    schema_converters: tuple[SchemaSerialize, SchemaSerialize] | None = None
    #: Writes header values that are not bytes (set by transforms); None: SimpleHeaderConverter's text.
    header_converter: HeaderConverter | None = None

    def key(self, record: SourceRecord) -> bytes | None:
        """The record's key as bytes: with its schema if it has one, else from its Python type."""
        if record.key_schema is None or self.schema_converters is None:
            return self.key_converter(record.key)
        return self.schema_converters[0](record.topic, record.key_schema, record.key)

    def value(self, record: SourceRecord) -> bytes | None:
        if record.value_schema is None or self.schema_converters is None:
            return self.value_converter(record.value)
        return self.schema_converters[1](record.topic, record.value_schema, record.value)


def _hold(hook: Callable[..., None] | None, context: DeliveryContext) -> Callable[..., None] | None:
    """`hook` itself, or (exactly-once) a stand-in that queues its calls for after the commit."""
    held = context.held
    if hook is None or held is None:
        return hook

    def later(*args: Any) -> None:
        held.append((hook, args))
    return later


def delivery_for(task: SourceTask, context: DeliveryContext) -> Delivery[Any]:
    """The strategy for `task`, by what it is (decided once, not per batch)."""
    if isinstance(task, MessageRunTask):
        return RunDelivery(task, context)
    if getattr(task, "ordered_partitions", False):
        return OrderedDelivery(task, context)
    return GenericDelivery(task, context)


def rejected(topic: str, partition: int | None, source_partition: SourcePartition, source_offset: Mapping[str, Any],
             value: bytes | None, reason: str) -> str:
    """The failure message of a refused record: where it was going, where it came from, its size."""
    return (f"Kafka rejected a record for topic {topic} partition {partition} "
            f"(source partition {dict(source_partition)}, offset {dict(source_offset)}, "
            f"{len(value or b'')} bytes): {reason}")


def rejected_record(record: SourceRecord, value: bytes | None, reason: str) -> str:
    """`rejected` for a SourceRecord whose converted value is `value`."""
    return rejected(record.topic, record.partition, record.source_partition, record.source_offset, value, reason)


def produce_waiting(producer: Producer, stopping: threading.Event, topic: str, value: Any, key: Any, partition: int,
                    callback: Any, timestamp: int, headers: Any, describe: Callable[[str], str]) -> None:
    """Produce one record, waiting for room in a full queue (unless stopping); a refusal fails with
    `describe(reason)`, which names the record. The slow path of every strategy."""
    produce = positional_produce(producer)
    while True:
        try:
            produce(topic, value, key, partition, callback, None, timestamp, headers)
            return
        except BufferError:
            if stopping.is_set():
                raise StopRequested() from None
            producer.poll(0.05)
        except RecordRefused as exc:
            raise DeliveryFailed(describe(error_text(exc))) from None


def _record_hook(task: SourceTask) -> OnAck | None:
    # Only a task that overrides commit_record is called per record (the call costs on the hot path).
    return task.commit_record if type(task).commit_record is not SourceTask.commit_record else None


class _RecordDelivery:
    """What the two SourceRecord strategies share: the task's poll, failures, no settling."""

    producer_defaults: Mapping[str, str] = {}

    def __init__(self, task: SourceTask, context: DeliveryContext) -> None:
        self._task, self._context = task, context

    def poll(self) -> list[SourceRecord] | None:
        return self._task.poll()

    def settle(self, delivered: bool) -> None:
        pass  # a record's offset is committed only once its own callback acknowledged it

    def _failed(self, record: SourceRecord, msg: Any, reason: str) -> None:
        self._context.fail(rejected_record(record, msg.value() if msg is not None else None, reason))

    def _produce(self, producer: Producer, record: SourceRecord, value: Any, key: Any, partition: int,
                 callback: Any) -> None:
        produce_waiting(producer, self._context.stopping, record.topic, value, key, partition, callback,
                        record.timestamp or 0, record.headers, lambda reason: rejected_record(record, value, reason))


class GenericDelivery(_RecordDelivery):
    """Records may go to any partition: each is its own delivery callback (`GenericAcks`)."""

    def __init__(self, task: SourceTask, context: DeliveryContext) -> None:
        super().__init__(task, context)
        self.acks = GenericAcks(_hold(_record_hook(task), context), self._failed)

    def send(self, producer: Producer, batch: list[SourceRecord]) -> None:
        context = self._context
        submit, topics = self.acks.submit, context.seen_topics
        for record in batch:
            if record.topic not in topics:
                context.new_topic(record.topic)
            callback = submit(record)
            partition = -1 if record.partition is None else record.partition
            self._produce(producer, record, context.value(record), context.key(record), partition, callback)

    def committable(self) -> Committable:
        return self.acks.committable()


class OrderedDelivery(_RecordDelivery):
    """Each source partition goes to one target partition: one shared callback, a FIFO per target
    partition (`OrderedAcks`)."""

    def __init__(self, task: SourceTask, context: DeliveryContext) -> None:
        super().__init__(task, context)
        self.acks = OrderedAcks(_hold(_record_hook(task), context), self._failed)

    def send(self, producer: Producer, batch: list[SourceRecord]) -> None:
        """Hot path: positional produce, one shared callback, FIFO append."""
        context, acks = self._context, self.acks
        convert = context.key_converter is not byte_array or context.value_converter is not byte_array
        fifos, topics, produce = acks.fifos, context.seen_topics, positional_produce(producer)
        for record in batch:
            topic, partition = record.topic, record.partition
            assert partition is not None, "ordered tasks must give every record a partition"
            value, key = (context.value(record), context.key(record)) if convert else (record.value, record.key)
            try:
                produce(topic, value, key, partition, acks, None, record.timestamp or 0, record.headers)
            except BufferError:
                self._produce(producer, record, value, key, partition, acks)
            except RecordRefused as exc:
                raise DeliveryFailed(rejected_record(record, value, error_text(exc))) from None
            fifo = fifos.get((topic, partition))
            if fifo is None:
                fifo = acks.fifo(topic, partition)
                if topic not in topics:
                    context.new_topic(topic)
            fifo.append(record)

    def committable(self) -> Committable:
        return self.acks.committable()


class RunDelivery:
    """Runs of consumer messages (`MessageRunTask`): one callback per run, on its first and last
    message; the producer runs with the settings the run protocol relies on (`run_acks`)."""

    producer_defaults: Mapping[str, str] = RUN_PRODUCER_DEFAULTS

    def __init__(self, task: MessageRunTask, context: DeliveryContext) -> None:
        self._task, self._context = task, context
        notify = type(task).commit_run is not MessageRunTask.commit_run
        self.acks = RunAcks(_hold(task.commit_run if notify else None, context), context.fail)

    def poll(self) -> list[MessageRun] | None:
        return self._task.poll_runs()

    def send(self, producer: Producer, batch: list[MessageRun]) -> None:
        """Hot path: the messages between a run's first and last are produced without a callback."""
        acks, context = self.acks, self._context
        topics, produce = context.seen_topics, positional_produce(producer)
        for run in batch:
            topic, partition, messages = run.topic, run.partition, run.messages
            if topic not in topics:
                context.new_topic(topic)
            callback = acks.callback(run)
            last = len(messages) - 1
            i = 0  # messages[:i] are produced
            try:
                self._produce(producer, run, messages[0], callback)
                i = 1
                for i in range(1, last):
                    m = messages[i]
                    try:
                        produce(topic, m.value(), m.key(), partition, None, None, m.timestamp()[1], m.headers())
                    except (BufferError, RecordRefused):
                        self._produce(producer, run, m, None)  # waits for room, or names the record
                if last > 0:
                    i = last
                    self._produce(producer, run, messages[last], callback)
            except (DeliveryFailed, StopRequested):
                acks.cut(callback, i)  # the run ends before messages[i]: what came before may commit
                raise

    def committable(self) -> Committable:
        return self.acks.committable()

    def settle(self, delivered: bool) -> None:
        self.acks.settle_cut(delivered)

    def _produce(self, producer: Producer, run: MessageRun, m: Any, callback: Any) -> None:
        def describe(reason: str) -> str:
            return rejected(run.topic, run.partition, run.source_partition, {"offset": m.offset()}, m.value(), reason)

        produce_waiting(producer, self._context.stopping, run.topic, m.value(), m.key(), run.partition, callback,
                        m.timestamp()[1], m.headers(), describe)
