"""Runs one SourceTask on its own thread: poll -> produce -> track acks -> commit offsets."""

from __future__ import annotations

import dataclasses
import logging
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pyconnect.api.connector import MessageRunTask, SourceTask
from pyconnect.api.converter import HeaderConverter, SchemaSerialize
from pyconnect.api.converter import Serialize as Converter
from pyconnect.api.metrics import MetricSample
from pyconnect.api.records import SourcePartition
from pyconnect.api.states import State
from pyconnect.kafka.client_stats import ClientStats
from pyconnect.kafka.clients import Producer, new_producer
from pyconnect.kafka.config import fit_request_to_batch
from pyconnect.logging_context import set_context
from pyconnect.runtime.errors import ToleranceOperator
from pyconnect.runtime.metrics.poll_batch_time import PollBatchTime
from pyconnect.runtime.metrics.worker_metrics import TaskMetricsRegistry
from pyconnect.runtime.source.committers import Committer, FlushCommitter
from pyconnect.runtime.source.delivery import (
    Delivery,
    DeliveryContext,
    DeliveryFailed,
    HeldAcks,
    StopRequested,
    delivery_for,
)
from pyconnect.runtime.source.offset_stores import ConnectorOffsetStores
from pyconnect.runtime.source.transactions import NO_PREFLIGHT, Preflight, TransactionalCommitter, TransactionSettings
from pyconnect.runtime.source.transform_bridge import TransformingDelivery, TransformingRunDelivery
from pyconnect.runtime.task_thread import LeaseLost, TaskThread
from pyconnect.storage.offset_store import canonical
from pyconnect.transforms.chain import TransformationChain

log = logging.getLogger(__name__)

StatusCallback = Callable[[State, str | None], None]  # (state, trace)


class OffsetLookup(Protocol):
    """Where committed offsets are looked up (an OffsetStore, or a task's ConnectorOffsetStores)."""

    def get(self, connector: str, partition: Mapping[str, Any]) -> dict[str, Any] | None: ...


class ConnectorOffsetReader:
    """The task context's offset reader: this connector's committed offsets."""

    def __init__(self, store: OffsetLookup, connector: str) -> None:
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
    keep_polling: Callable[[], bool]  # SourceTaskContext.keep_polling: the runner's, while the task polls


@dataclass(frozen=True)
class RunnerSettings:
    producer_conf: Mapping[str, str]
    key_converter: Converter
    value_converter: Converter
    flush_interval: float
    flush_timeout: float
    shutdown_timeout: float
    transactions: TransactionSettings | None = None  # exactly-once: the task's transaction settings
    schema_converters: tuple[SchemaSerialize, SchemaSerialize] | None = None  # for records with schemas
    header_converter: HeaderConverter | None = None  # for header values transforms set


class SourceTaskRunner(TaskThread):
    """Owns the task instance, its producer and its offset commits."""

    def __init__(self, connector: str, index: int, task: SourceTask, config: Mapping[str, str],
                 offsets: ConnectorOffsetStores, settings: RunnerSettings, report: StatusCallback,
                 on_topic: Callable[[str], None] | None = None, preflight: Preflight | None = None,
                 transforms: TransformationChain | None = None, errors: ToleranceOperator | None = None,
                 converter_names: tuple[str, str] = ("", ""),
                 create_topic: Callable[[str], None] | None = None) -> None:
        super().__init__(connector, index, report)
        # topic.creation.* (runtime/source/topic_creation.py): called before the first record to a topic.
        self._create_topic = create_topic
        self.task, self.config = task, dict(config)
        self._offsets = offsets
        self._settings = settings
        self._failure: str | None = None
        self._producer_fatal = False
        self._topics: set[str] = set()
        self._on_topic = on_topic
        self._preflight = preflight or NO_PREFLIGHT
        # Exactly-once: the task's ack hooks wait here for the transaction's commit (runtime/source/transactions.py).
        self._held: HeldAcks | None = [] if settings.transactions is not None else None
        # The delivery strategy is decided here, once: the loop never asks what kind of task it runs.
        context = DeliveryContext(settings.key_converter, settings.value_converter, self._stopping, self._topics,
                                  self._new_topic, self._delivery_failed, self._held, settings.schema_converters,
                                  settings.header_converter)
        self._chain, self._errors = transforms, errors
        self._delivery: Delivery[Any] = delivery_for(task, context)
        if isinstance(task, MessageRunTask):
            if transforms is not None:  # runs of bytes: only transforms can fail, never a converter
                self._delivery = TransformingRunDelivery(task, context, transforms, errors)
        elif transforms is not None or errors is not None:
            self._delivery = TransformingDelivery(task, context, transforms, errors, converter_names)
        self.metrics = TaskMetricsRegistry()  # what the task registers; its worker's collector reads it
        self._poll_time = PollBatchTime()
        self._pump: tuple[Producer, Committer] | None = None  # what keep_polling serves, once the loop runs

    # control ---------------------------------------------------------------------------------

    def stop(self) -> None:
        super().stop()
        if self._errors is not None:
            self._errors.trigger_stop()  # ends a retry backoff at once
        try:
            self.task.stop()
        except Exception:
            log.exception("[%s] error signalling stop", self.id)

    # task thread -----------------------------------------------------------------------------

    def _run(self) -> None:
        set_context(self.connector, self.index)
        producer, committer = None, None
        try:
            conf = self._producer_conf()
            stats = ClientStats("producer", conf["client.id"])
            producer = new_producer(conf, self._producer_stopped, stats)
            self._offsets.open()
            committer = self._committer(producer)
            self._register_metrics(stats, producer, committer)
            committer.start()  # exactly once: registers the transactional id before the own store is read
            self._offsets.start(self._settings.flush_timeout + 25)
            # Read the offsets topic to its end first (as Connect's offset reader does): a task taking
            # over from another worker must see that worker's last commit, or it would re-send records.
            self._offsets.refresh(self._settings.flush_timeout + 25)
            self.task.initialize(TaskContext(ConnectorOffsetReader(self._offsets, self.connector), self.config,
                                             self.metrics, self._keep_polling))
            self.task.start(self.config)
            self._loop(producer, committer)
        except StopRequested:
            pass  # a normal stop, below
        except LeaseLost:
            log.warning("[%s] the worker lost this task's assignment (out of its cluster for a session timeout): "
                        "stopping without sending or committing more; the task's new owner resumes from the last "
                        "commit", self.id)
            self._abandon(committer)
            return
        except Exception as exc:
            trace = "".join(traceback.format_exception(exc))
            log.error("[%s] task failed: %s", self.id, exc)
            self._safe_stop_task()
            if producer is not None and committer is not None:
                self._drain(producer)
                self._finish(committer, clean=False)
            self._set_state(State.FAILED, trace)
            self.metrics.close()  # a task's series exist while it runs
            return
        self._safe_stop_task()
        self._stop_running()
        self.metrics.close()
        assert producer is not None and committer is not None
        remaining = self._drain(producer)
        if remaining:
            log.warning("[%s] %d record(s) not acknowledged at shutdown; their offsets are not committed",
                        self.id, remaining)
        self._finish(committer, clean=remaining == 0 and not self._producer_fatal and self._failure is None)

    def _register_metrics(self, stats: ClientStats, producer: Producer, committer: Committer) -> None:
        """The producer's client metrics, the records in flight and the commit times, while the task runs."""
        labels = {"connector": self.connector, "task": str(self.index)}
        times = getattr(committer, "times", None)

        def runtime_samples() -> list[MetricSample]:
            out = [MetricSample("kafka_connect_source_task_source_record_active_count",
                                "Records produced by the task but not yet acknowledged by Kafka.", labels,
                                len(producer))]
            return out + self._poll_time.samples(labels) + (times.samples(labels) if times is not None else [])
        self.metrics.register(stats.samples)
        self.metrics.register(runtime_samples)

    def _producer_conf(self) -> dict[str, str]:
        # Connect names a task's producer after the task, whatever the worker's own client.id.
        conf = {"enable.idempotence": "true", "acks": "all", "linger.ms": "5",
                **self._delivery.producer_defaults, **self._settings.producer_conf,
                "client.id": f"connector-producer-{self.id}"}
        eos = self._settings.transactions
        if eos is not None:
            for key, forced in (("enable.idempotence", "true"), ("transactional.id", eos.transactional_id)):
                if conf.get(key, forced) != forced:
                    log.warning("[%s] The value '%s' for the '%s' property will be ignored as it cannot be overridden "
                                "for connectors when exactly-once source support is enabled. The value '%s' will be "
                                "used instead.", self.id, conf[key], key, forced)
                conf[key] = forced
        return fit_request_to_batch(conf)  # a batch.size above 1 MB is not cut to librdkafka's request size

    def _committer(self, producer: Producer) -> Committer:
        eos, settings = self._settings.transactions, self._settings
        if eos is None:
            return FlushCommitter(self.id, self.connector, producer, self._delivery, self._offsets,
                                  settings.flush_interval, settings.flush_timeout, self.task.commit)
        assert self._held is not None
        eos = dataclasses.replace(eos, offsets_partitions=self._offsets.primary.partitions)  # known once started
        return TransactionalCommitter(self.connector, producer, self._delivery, self._held, eos,
                                      lambda: self._failure, self.task.commit, self._preflight,
                                      lambda offsets: self._offsets.copy_to_worker(self.connector, offsets))

    def _budget(self) -> float:
        """Seconds left of the stop's budget, task.shutdown.graceful.timeout.ms."""
        return self.budget(self._settings.shutdown_timeout)

    def _finish(self, committer: Committer, clean: bool) -> None:
        try:
            committer.finish(clean, max(0.5, self._budget()))
        except Exception as exc:
            log.error("[%s] final commit failed: %s", self.id, exc)
        finally:
            self._offsets.stop()

    def _drain(self, producer: Producer) -> int:
        """Wait for what is queued (up to the shutdown timeout); returns the records left unacknowledged."""
        remaining = producer.flush(self._budget())
        self._delivery.settle(remaining == 0 and not self._producer_fatal)
        return remaining

    def _safe_stop_task(self) -> None:
        try:
            self.task.stop()
        except Exception:
            log.exception("[%s] error while stopping the task", self.id)
        if self._chain is not None:
            self._chain.close()
        if self._errors is not None:
            self._errors.close()

    def _abandon(self, committer: Committer | None) -> None:
        """After a lost lease: no final commit (an open transaction is aborted), the task stopped."""
        self._safe_stop_task()
        self._stop_running()
        self.metrics.close()
        if committer is not None and self._settings.transactions is not None:
            self._finish(committer, clean=False)
        else:
            self._offsets.stop()

    def _keep_polling(self) -> bool:
        """SourceTaskContext.keep_polling: between the waits of a long poll, what the loop does between
        batches (acknowledgements, the due commit); False once the loop must take over (stop, pause, a
        delivery failure, a lost lease), so the poll returns and the loop acts on it at once."""
        if (self._stopping.is_set() or self._paused.is_set() or self._failure is not None
                or self._pump is None or not self.lease()):
            return False
        producer, committer = self._pump
        producer.poll(0)
        committer.after_batch(False)
        return True

    def _loop(self, producer: Producer, committer: Committer) -> None:
        poll, send, lease = self._delivery.poll, self._delivery.send, self.lease
        clock, poll_time = time.monotonic, self._poll_time
        self._pump = (producer, committer)
        while not self._stopping.is_set():
            if self._failure is not None:
                raise DeliveryFailed(self._failure)
            if not lease():
                raise LeaseLost()
            if self._paused.is_set():
                if self.state != State.PAUSED:
                    committer.pause()
                    self._set_state(State.PAUSED)
                producer.poll(0.1)
                continue
            self._set_state(State.RUNNING)
            started = clock()
            records = poll()
            if records:
                poll_time.record(started)  # as Connect: only a poll that returned a batch
                if not lease():
                    raise LeaseLost()
                committer.before_send()
                send(producer, records)
            producer.poll(0)
            committer.after_batch(bool(records))

    def _producer_stopped(self, _reason: str) -> None:
        self._producer_fatal = True  # (logged by the client) nothing queued after this is delivered

    def _new_topic(self, topic: str) -> None:
        if self._create_topic is not None:
            self._create_topic(topic)  # raises when the topic can be neither created nor found: the task fails
        self._topics.add(topic)
        if self._on_topic is not None:
            try:
                self._on_topic(topic)
            except Exception:
                log.exception("[%s] topic tracking failed", self.id)

    def _delivery_failed(self, description: str) -> None:
        if self._failure is None:  # the first failure is the cause; later ones follow from it
            self._failure = description
