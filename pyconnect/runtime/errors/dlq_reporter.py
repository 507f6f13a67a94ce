"""`DeadLetterQueueReporter`: a sink's failed records, as they were consumed, written to the topic
`errors.deadletterqueue.topic.name` (Connect's DeadLetterQueueReporter).

The producer's delivery reports are served by a thread of the reporter's own, so that a report's
future completes while the sink task waits on it before committing offsets.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future, InvalidStateError
from typing import Any

from pyconnect.api.errors import ConnectException
from pyconnect.api.records import Header
from pyconnect.api.task_id import TaskId
from pyconnect.kafka.admin import Admin, TopicSpec
from pyconnect.kafka.clients import KafkaClientError, Producer, new_producer
from pyconnect.runtime.errors.context import NO_TIMESTAMP, ConsumedRecord, ProcessingContext
from pyconnect.runtime.errors.dlq_headers import context_headers
from pyconnect.runtime.errors.metrics import ErrorHandlingMetrics
from pyconnect.runtime.errors.settings import ErrorSettings

log = logging.getLogger(__name__)

DLQ_PARTITIONS = 1  # DeadLetterQueueReporter.DLQ_NUM_DESIRED_PARTITIONS
QUEUE_FULL_WAIT = 60.0  # seconds a report waits for room in a full producer queue before it fails


def _settle(future: Future[None], error: BaseException | None) -> None:
    try:  # a future cancelled by its waiter (ErrantFutures.cancel_futures) takes no result
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)
    except InvalidStateError:
        pass


class DeadLetterQueueReporter:
    """Writes the consumed key, value, headers and timestamp of each failed record to the DLQ topic,
    with the `__connect.errors.*` context headers after the record's own when
    `errors.deadletterqueue.context.headers.enable` is set. Takes ownership of `producer`."""

    def __init__(self, producer: Producer, settings: ErrorSettings, task_id: TaskId,
                 metrics: ErrorHandlingMetrics, poll_interval: float = 0.1) -> None:
        self._producer = producer
        self._settings = settings
        self._topic = settings.dlq_topic.strip()
        self._task_id = task_id
        self._metrics = metrics
        self._closed = threading.Event()
        self._poller = threading.Thread(target=self._poll, args=(poll_interval,), daemon=True,
                                        name=f"dlq-{task_id}")
        self._poller.start()

    def _poll(self, interval: float) -> None:
        while not self._closed.is_set():
            self._producer.poll(interval)

    def report(self, context: ProcessingContext) -> Future[None] | None:
        """Send the context's consumed record to the DLQ; the future completes once Kafka has it (or
        fails with a ConnectException). None when no DLQ is configured or the context has no consumed
        record (as Java, the latter counts as a failed DLQ produce)."""
        if not self._topic:
            return None
        self._metrics.record_dlq_produce_request()
        original = context.consumed
        if original is None:  # a failure of no consumed record: counted as failed, nothing to wait for
            self._metrics.record_dlq_produce_failed()
            return None
        future: Future[None] = Future()
        headers: list[Header] = list(original.headers)
        if self._settings.dlq_context_headers:
            headers += context_headers(context, self._task_id)
        self._send(original, headers, future)
        return future

    def _send(self, original: ConsumedRecord, headers: list[Header], future: Future[None]) -> None:
        def delivered(err: Any, _msg: Any) -> None:
            if err is not None:
                self._failed(future, err)
            else:
                _settle(future, None)

        kwargs: dict[str, Any] = {"key": original.key, "headers": headers, "on_delivery": delivered}
        if original.timestamp != NO_TIMESTAMP:  # else the producer stamps it, as Java's does
            kwargs["timestamp"] = original.timestamp
        deadline = time.monotonic() + QUEUE_FULL_WAIT
        while True:
            try:
                self._producer.produce(self._topic, original.value, **kwargs)
                return
            except BufferError:  # the local queue is full: let deliveries drain it
                if time.monotonic() >= deadline or self._closed.is_set():
                    self._failed(future, "the producer's queue stayed full")
                    return
                self._producer.poll(0.1)
            except Exception as exc:  # KafkaException: too large, unknown topic, closed producer
                self._failed(future, exc)
                return

    def _failed(self, future: Future[None], reason: object) -> None:
        log.error("Could not produce message to dead letter queue. topic=%s: %s", self._topic, reason)
        self._metrics.record_dlq_produce_failed()
        _settle(future, ConnectException(f"Could not produce message to dead letter queue. "
                                         f"topic={self._topic}: {reason}"))

    def flush(self, timeout: float) -> int:
        """Wait up to `timeout` seconds for the records sent so far; return how many are still pending."""
        return int(self._producer.flush(timeout))

    def close(self, timeout: float = 30.0) -> None:
        """Flush (up to `timeout` seconds), then stop the delivery thread. Records still pending then are
        abandoned: their futures fail."""
        if self._closed.is_set():
            return
        pending = self.flush(timeout)
        self._closed.set()
        self._poller.join()
        if pending:
            log.error("Closing the dead letter queue producer of %s with %d record(s) not delivered to %s",
                      self._task_id, pending, self._topic)
            self._producer.purge()
            self._producer.flush(0)  # serves the purged records' delivery reports: their futures fail


def ensure_dlq_topic(admin_config: Mapping[str, str], settings: ErrorSettings, timeout: float = 30.0) -> None:
    """DeadLetterQueueReporter.createAndSetup's topic step: create the DLQ topic (1 partition, the
    configured replication factor) unless it exists; raise ConnectException if it cannot be."""
    topic = settings.dlq_topic.strip()
    try:
        admin = Admin(admin_config)
        if topic in admin.topic_partitions(timeout):
            return
        log.error("Topic %s doesn't exist. Will attempt to create topic.", topic)
        admin.create_topic(TopicSpec(topic, DLQ_PARTITIONS, settings.dlq_replication_factor, {}), timeout)
    except Exception as exc:  # KafkaClientError, KafkaException: unreachable cluster, refused request
        # Java's message, then the broker's reason: a FAILED task's trace should say why in one line
        raise ConnectException(f"Could not initialize dead letter queue with topic={topic}: {exc}") from exc


def create_dlq_reporter(admin_config: Mapping[str, str], producer_config: Mapping[str, Any], task_id: TaskId,
                        settings: ErrorSettings, metrics: ErrorHandlingMetrics) -> DeadLetterQueueReporter:
    """DeadLetterQueueReporter.createAndSetup: make sure the DLQ topic exists, then a reporter with a
    producer built from `producer_config` (librdkafka settings)."""
    ensure_dlq_topic(admin_config, settings)
    try:
        producer = new_producer(producer_config)
    except KafkaClientError as exc:
        raise ConnectException(f"Could not create the dead letter queue producer: {exc}") from exc
    return DeadLetterQueueReporter(producer, settings, task_id, metrics)
