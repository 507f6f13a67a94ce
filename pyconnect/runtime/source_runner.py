"""Runs one SourceTask on its own thread: poll -> produce -> track acks -> commit offsets."""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pyconnect.api.connector import MessageRunTask, SourceTask
from pyconnect.api.records import MessageRun, SourcePartition, SourceRecord
from pyconnect.kafka.clients import KafkaException, new_producer
from pyconnect.logging_context import context_thread, set_context
from pyconnect.runtime.converters import Converter, byte_array
from pyconnect.runtime.offset_tracker import GenericAcks, OrderedAcks
from pyconnect.runtime.run_acks import RUN_PRODUCER_DEFAULTS, RunAcks
from pyconnect.runtime.worker_metrics import TaskMetricsRegistry
from pyconnect.storage.offset_store import OffsetStore, canonical

log = logging.getLogger(__name__)

StatusCallback = Callable[[str, str | None], None]  # (state, trace)


class ConnectorOffsetReader:
    """The task context's offset reader: this connector's committed offsets."""

    def __init__(self, store: OffsetStore, connector: str) -> None:
        self._store, self._connector = store, connector

    def offset(self, partition: SourcePartition) -> dict[str, Any] | None:
        return self._store.get(self._connector, partition)

    def offsets(self, partitions: Sequence[SourcePartition]) -> dict[str, dict[str, Any] | None]:
        return {canonical(p): self._store.get(self._connector, p) for p in partitions}


@dataclass
class TaskContext:
    """The SourceTaskContext the runtime hands to a source task."""

    offset_storage_reader: ConnectorOffsetReader
    configs: Mapping[str, str]
    metrics: TaskMetricsRegistry


@dataclass(frozen=True)
class RunnerSettings:
    producer_conf: Mapping[str, str]
    key_converter: Converter
    value_converter: Converter
    flush_interval: float
    flush_timeout: float
    shutdown_timeout: float


class DeliveryFailed(Exception):
    """Kafka refused a record; the task fails rather than drop it."""


class _StopRequested(Exception):
    """The task was asked to stop while the producer's queue was full (the target is not taking
    records): producing stops there instead of waiting for room that may never come."""


def _rejected(topic: str, partition: int | None, source_partition: SourcePartition, source_offset: Mapping[str, Any],
              value: bytes | None, reason: str) -> str:
    return (f"Kafka rejected a record for topic {topic} partition {partition} "
            f"(source partition {dict(source_partition)}, offset {dict(source_offset)}, "
            f"{len(value or b'')} bytes): {reason}")


def _rejected_record(record: SourceRecord, value: bytes | None, reason: str) -> str:
    return _rejected(record.topic, record.partition, record.source_partition, record.source_offset, value, reason)


class SourceTaskRunner:
    """Owns the task instance, its producer and its offset commits."""

    def __init__(self, connector: str, index: int, task: SourceTask, config: Mapping[str, str],
                 offsets: OffsetStore, settings: RunnerSettings, report: StatusCallback,
                 on_topic: Callable[[str], None] | None = None) -> None:
        self.connector, self.index, self.task, self.config = connector, index, task, dict(config)
        self.id = f"{connector}-{index}"
        self._offsets = offsets
        self._settings = settings
        self._report = report
        notify = type(task).commit_record is not SourceTask.commit_record
        on_ack = task.commit_record if notify else None
        self._acks: GenericAcks | OrderedAcks | RunAcks
        if isinstance(task, MessageRunTask):
            notify_run = type(task).commit_run is not MessageRunTask.commit_run
            self._acks = RunAcks(task.commit_run if notify_run else None, self._run_failed)
        elif getattr(task, "ordered_partitions", False):
            self._acks = OrderedAcks(on_ack, self._delivery_failed)
        else:
            self._acks = GenericAcks(on_ack, self._delivery_failed)
        self._stopping = threading.Event()
        self._paused = threading.Event()
        self._failure: str | None = None
        self._producer_fatal = False
        self._topics: set[str] = set()
        self._on_topic = on_topic
        self.state = "UNASSIGNED"
        self.metrics = TaskMetricsRegistry()  # what the task registers; its worker's collector reads it
        # Started from the worker's thread: the task's log records belong to that worker's scope.
        self._thread = context_thread(self._run, f"task-{self.id}")

    # control ---------------------------------------------------------------------------------

    def start(self, paused: bool = False) -> None:
        if paused:
            self._paused.set()
        self._thread.start()

    def pause(self) -> None:
        if not self._paused.is_set():
            self._paused.set()

    def resume(self) -> None:
        self._paused.clear()

    def stop(self) -> None:
        self._stopping.set()
        try:
            self.task.stop()
        except Exception:
            log.exception("[%s] error signalling stop", self.id)

    def join(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    # task thread -----------------------------------------------------------------------------

    def _set_state(self, state: str, trace: str | None = None) -> None:
        if state != self.state or trace:
            self.state = state
            self._report(state, trace)

    def _run(self) -> None:
        set_context(self.connector, self.index)
        producer = None
        try:
            runs = RUN_PRODUCER_DEFAULTS if isinstance(self._acks, RunAcks) else {}
            producer = new_producer({"enable.idempotence": "true", "acks": "all", "linger.ms": "5", **runs,
                                     **self._settings.producer_conf}, self._producer_stopped)
            # Read the offsets topic to its end first (as Connect's offset reader does): a task taking
            # over from another worker must see that worker's last commit, or it would re-send records.
            self._offsets.refresh(self._settings.flush_timeout + 25)
            self.task.initialize(TaskContext(ConnectorOffsetReader(self._offsets, self.connector), self.config,
                                             self.metrics))
            self.task.start(self.config)
            self._loop(producer)
        except _StopRequested:
            pass  # a normal stop, below
        except Exception as exc:
            trace = "".join(traceback.format_exception(exc))
            log.error("[%s] task failed: %s", self.id, exc)
            self._safe_stop_task()
            if producer is not None:
                self._drain(producer)
                self._commit_offsets()
            self._set_state("FAILED", trace)
            self.metrics.close()  # a task's series exist while it runs
            return
        self._safe_stop_task()
        self.metrics.close()
        assert producer is not None
        remaining = self._drain(producer)
        if remaining:
            log.warning("[%s] %d record(s) not acknowledged at shutdown; their offsets are not committed",
                        self.id, remaining)
        self._commit_offsets()

    def _drain(self, producer: Any) -> int:
        """Wait for what is queued (up to the shutdown timeout); returns the records left unacknowledged."""
        remaining: int = producer.flush(self._settings.shutdown_timeout)
        if isinstance(self._acks, RunAcks):
            self._acks.settle_cut(remaining == 0 and not self._producer_fatal)
        return remaining

    def _safe_stop_task(self) -> None:
        try:
            self.task.stop()
        except Exception:
            log.exception("[%s] error while stopping the task", self.id)

    def _loop(self, producer: Any) -> None:
        next_flush = time.monotonic() + self._settings.flush_interval
        send: Callable[[Any, Any], None] = (
            self._send_ordered if isinstance(self._acks, OrderedAcks) else self._send_generic)
        poll: Callable[[], Sequence[Any] | None] = self.task.poll
        if isinstance(self._acks, RunAcks):
            assert isinstance(self.task, MessageRunTask)
            send, poll = self._send_runs, self.task.poll_runs
        while not self._stopping.is_set():
            if self._failure is not None:
                raise DeliveryFailed(self._failure)
            if self._paused.is_set():
                if self.state != "PAUSED":
                    # PAUSED means nothing more lands: deliver what is in flight and commit it first.
                    producer.flush(self._settings.shutdown_timeout)
                    self._commit_offsets()
                    self._set_state("PAUSED")
                producer.poll(0.1)
                continue
            self._set_state("RUNNING")
            records = poll()
            if records:
                send(producer, records)
            producer.poll(0)
            if time.monotonic() >= next_flush:
                self._commit_offsets()
                next_flush = time.monotonic() + self._settings.flush_interval

    def _send_generic(self, producer: Any, records: list[SourceRecord]) -> None:
        key_conv, value_conv = self._settings.key_converter, self._settings.value_converter
        submit = self._acks.submit  # type: ignore[union-attr]
        topics = self._topics
        for record in records:
            if record.topic not in topics:
                self._new_topic(record.topic)
            callback = submit(record)
            partition = -1 if record.partition is None else record.partition
            self._produce_record(producer, record, value_conv(record.value), key_conv(record.key), partition, callback)

    def _send_ordered(self, producer: Any, records: list[SourceRecord]) -> None:
        """Hot path of ordered tasks: positional produce, one shared callback, FIFO append."""
        acks = self._acks
        assert isinstance(acks, OrderedAcks)
        convert = self._settings.key_converter is not byte_array or self._settings.value_converter is not byte_array
        key_conv, value_conv = self._settings.key_converter, self._settings.value_converter
        fifos, produce_ = acks.fifos, producer.produce
        for record in records:
            topic, partition = record.topic, record.partition
            assert partition is not None, "ordered tasks must give every record a partition"
            value, key = (value_conv(record.value), key_conv(record.key)) if convert else (record.value, record.key)
            try:
                # Positional (no kwargs dict per record); the C signature is (topic, value, key,
                # partition, callback, on_delivery, timestamp, headers).
                produce_(topic, value, key, partition, acks, None, record.timestamp or 0, record.headers)
            except BufferError:
                self._produce_record(producer, record, value, key, partition, acks)
            except KafkaException as exc:
                raise DeliveryFailed(_rejected_record(record, value, exc.args[0].str())) from None
            fifo = fifos.get((topic, partition))
            if fifo is None:
                fifo = acks.fifo(topic, partition)
                if topic not in self._topics:
                    self._new_topic(topic)
            fifo.append(record)

    def _send_runs(self, producer: Any, runs: list[MessageRun]) -> None:
        """Hot path of message-run tasks: one callback per run, on its first and last message."""
        acks = self._acks
        assert isinstance(acks, RunAcks)
        produce_ = producer.produce
        for run in runs:
            topic, partition, messages = run.topic, run.partition, run.messages
            if topic not in self._topics:
                self._new_topic(topic)
            callback = acks.callback(run)
            last = len(messages) - 1
            i = 0  # messages[:i] are produced
            try:
                self._produce_message(producer, run, messages[0], callback)
                i = 1
                for i in range(1, last):
                    m = messages[i]
                    try:
                        # Positional: (topic, value, key, partition, callback, on_delivery, timestamp, headers).
                        produce_(topic, m.value(), m.key(), partition, None, None, m.timestamp()[1], m.headers())
                    except (BufferError, KafkaException):
                        self._produce_message(producer, run, m, None)  # waits for room, or names the record
                if last > 0:
                    i = last
                    self._produce_message(producer, run, messages[last], callback)
            except (DeliveryFailed, _StopRequested):
                acks.cut(callback, i)  # the run ends before messages[i]: what came before may commit
                raise

    def _produce_message(self, producer: Any, run: MessageRun, m: Any, callback: Any) -> None:
        def rejected(reason: str) -> str:
            return _rejected(run.topic, run.partition, run.source_partition, {"offset": m.offset()}, m.value(), reason)

        self._produce(producer, run.topic, m.value(), m.key(), run.partition, callback, m.timestamp()[1],
                      m.headers(), rejected)

    def _producer_stopped(self, _reason: str) -> None:
        self._producer_fatal = True  # (logged by the client) nothing queued after this is delivered

    def _run_failed(self, description: str) -> None:
        if self._failure is None:
            self._failure = description

    def _new_topic(self, topic: str) -> None:
        self._topics.add(topic)
        if self._on_topic is not None:
            try:
                self._on_topic(topic)
            except Exception:
                log.exception("[%s] topic tracking failed", self.id)

    def _produce_record(self, producer: Any, record: SourceRecord, value: Any, key: Any, partition: int,
                        callback: Any) -> None:
        self._produce(producer, record.topic, value, key, partition, callback, record.timestamp or 0,
                      record.headers, lambda reason: _rejected_record(record, value, reason))

    def _produce(self, producer: Any, topic: str, value: Any, key: Any, partition: int, callback: Any,
                 timestamp: int, headers: Any, rejected: Callable[[str], str]) -> None:
        """Produce, waiting for room in a full queue (unless stopping); a refusal names the record."""
        while True:
            try:
                producer.produce(topic, value, key, partition, callback, None, timestamp, headers)
                return
            except BufferError:
                if self._stopping.is_set():
                    raise _StopRequested() from None
                producer.poll(0.05)
            except KafkaException as exc:
                raise DeliveryFailed(rejected(exc.args[0].str())) from None

    def _delivery_failed(self, record: SourceRecord, msg: Any, reason: str) -> None:
        if self._failure is None:
            self._failure = _rejected_record(record, msg.value() if msg is not None else None, reason)

    def _commit_offsets(self) -> None:
        pending = self._acks.committable()
        if not pending:
            return
        futures = self._offsets.put(self.connector, pending)
        try:
            self._offsets.flush(self._settings.flush_timeout)
            for fut in futures:
                fut.result(self._settings.flush_timeout)
            self.task.commit()
        except Exception as exc:
            log.error("[%s] offset commit failed: %s", self.id, exc)
