"""Runs one SinkTask on its own thread: consume -> convert -> transform -> put -> commit the group's offsets
(Connect's WorkerSinkTask).

Every task of a sink connector is a member of the consumer group `connect-<connector>` and subscribes to
the connector's `topics` (or `topics.regex`): the group spreads the partitions over the tasks and moves
them when tasks come and go, and the offsets committed are that group's, which lag tooling reads.

Invariants:
- The offset committed for a partition is never past a record not yet given to `put` in a call that
  returned: offsets advance only after `put` returned (a failing or retried batch does not move them),
  and what is committed is what `pre_commit` returned, capped to partitions the task still owns.
- Before a partition is taken away (rebalance or stop), its offsets are committed and the task's `close`
  is called for it; `open` is called before any of a partition's records is put.
"""

from __future__ import annotations

import logging
import re
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pyconnect.api.errors import ConnectException, RetriableException
from pyconnect.api.sink import SinkRecord, SinkTask, TopicPartition
from pyconnect.api.states import State
from pyconnect.kafka.client_stats import ClientStats
from pyconnect.kafka.clients import Consumer, new_consumer
from pyconnect.kafka.errors import is_partition_eof
from pyconnect.logging_context import set_context
from pyconnect.runtime.errors import ToleranceOperator
from pyconnect.runtime.metrics.worker_metrics import TaskMetricsRegistry
from pyconnect.runtime.sink.context import WorkerSinkTaskContext
from pyconnect.runtime.sink.conversion import SinkRecordConversion
from pyconnect.runtime.sink.errant import WorkerErrantRecordReporter
from pyconnect.runtime.sink.offsets import SinkOffsets
from pyconnect.runtime.task_thread import LeaseLost, TaskThread, bounded

log = logging.getLogger(__name__)

StatusCallback = Callable[[State, str | None], None]
REGEX_REFRESH = 5.0  # seconds between matches of topics.regex against the cluster's topics


@dataclass(frozen=True)
class SinkSettings:
    """How a sink task consumes: its consumer (group included), what it subscribes to, and cadences."""

    consumer_conf: Mapping[str, str]
    topics: tuple[str, ...]
    topics_regex: str | None
    max_poll_records: int
    flush_interval: float
    shutdown_timeout: float

    def matching(self, topics: Iterable[str]) -> list[str]:
        """The topics to subscribe to: `topics`, or those `topics.regex` matches in full (Java's Pattern
        semantics, which librdkafka's POSIX regex subscriptions do not have), internal topics excluded."""
        if not self.topics_regex:
            return list(self.topics)
        pattern = re.compile(self.topics_regex)
        return sorted(t for t in topics if not t.startswith("__") and pattern.fullmatch(t))


class SinkTaskRunner(TaskThread):
    """Owns the task instance, its consumer and the group's offset commits."""

    def __init__(self, connector: str, index: int, task: SinkTask, config: Mapping[str, str],
                 settings: SinkSettings, conversion: Callable[[], SinkRecordConversion], report: StatusCallback,
                 on_topic: Callable[[str], None] | None = None) -> None:
        super().__init__(connector, index, report)
        self.task, self.config = task, dict(config)
        # The conversion (and its error handling, which may create a dead letter queue topic) is built on
        # the task's thread: a failure there is the task's, with its trace.
        self._settings, self._make_conversion = settings, conversion
        self._conversion: SinkRecordConversion | None = None
        self._errant: WorkerErrantRecordReporter | None = None
        self._context = WorkerSinkTaskContext(config)
        self._on_topic, self._topics_seen = on_topic, set[str]()
        self._retry: tuple[list[SinkRecord], dict[TopicPartition, int], float] | None = None
        self._offsets: SinkOffsets | None = None
        self._subscribed: list[str] | None = None
        self.metrics = TaskMetricsRegistry()

    def stop(self) -> None:
        super().stop()
        if self._conversion is not None:
            self._conversion.operator.trigger_stop()  # ends a retry backoff at once

    # task thread -----------------------------------------------------------------------------

    def _run(self) -> None:
        set_context(self.connector, self.index)
        consumer: Consumer | None = None
        trace = None
        try:
            self._conversion = conversion = self._make_conversion()
            operator = conversion.operator
            self._errant = WorkerErrantRecordReporter(operator)
            if operator.settings.errant_record_reporter_enabled:  # as Connect: else the task gets None
                self._context.set_reporter(self._errant)
            stats = ClientStats("consumer", self._settings.consumer_conf.get("client.id", ""))
            consumer = new_consumer(self._settings.consumer_conf, stats)
            self.metrics.register(stats.samples)
            # DLQ writes of a partition's records are acknowledged before its offsets are committed.
            self._offsets = SinkOffsets(self.id, consumer, self.task, self._context,
                                        lambda parts: self._before_commit(operator, parts))
            self.task.initialize(self._context)
            self.task.start(self.config)
            self._loop(consumer, self._offsets)
        except Exception as exc:
            if isinstance(exc, LeaseLost) or isinstance(exc.__cause__, LeaseLost):
                log.warning("[%s] the worker lost this task's assignment (out of its cluster for a session "
                            "timeout): stopping without putting or committing more", self.id)
                if self._offsets is not None:
                    self._offsets.abandon()
            else:
                trace = "".join(traceback.format_exception(exc))
                log.error("[%s] task failed: %s", self.id, exc)
        self._close(consumer)
        if self._conversion is not None:
            operator = self._conversion.operator
            bounded(operator.close, max(0.5, self.budget(self._settings.shutdown_timeout)),
                    f"{self.id} error reporters close")
        self._stop_running()
        self.metrics.close()
        if trace is not None:
            self._set_state(State.FAILED, trace)

    def _before_commit(self, operator: ToleranceOperator, partitions: list[TopicPartition]) -> None:
        if not self.lease():
            raise LeaseLost()
        operator.pending.await_futures(partitions, 60.0)

    def _close(self, consumer: Consumer | None) -> None:
        """Commit what was put and close the partitions (Connect's closeAllPartitions), stop the task; the
        commit and the consumer's close within the stop's budget (a gone cluster would hold them)."""
        budget = self._settings.shutdown_timeout
        if self._offsets is not None:
            bounded(self._offsets.close_all, max(0.5, self.budget(budget)), f"{self.id} final offset commit")
        try:
            self.task.stop()
        except Exception:
            log.exception("[%s] error while stopping the task", self.id)
        if consumer is not None:
            bounded(lambda: _close_consumer(consumer, self.id), max(0.5, self.budget(budget)),
                    f"{self.id} consumer close")

    def _subscribe(self, consumer: Consumer, offsets: SinkOffsets) -> None:
        """(Re)subscribe when the matching topics changed: once for `topics`, on every metadata refresh for
        `topics.regex` (new matching topics join the subscription)."""
        settings = self._settings
        names = settings.matching(consumer.list_topics(timeout=10).topics if settings.topics_regex else ())
        if names == self._subscribed:
            return
        self._subscribed = names
        log.info("[%s] subscribing to %s", self.id, ", ".join(names) or "no topic yet")
        if names:
            consumer.subscribe(names, on_assign=offsets.on_assign, on_revoke=offsets.on_revoke, on_lost=offsets.on_lost)
        else:
            consumer.unsubscribe()

    def _loop(self, consumer: Consumer, offsets: SinkOffsets) -> None:
        next_commit = time.monotonic() + self._settings.flush_interval
        next_refresh = 0.0
        while not self._stopping.is_set():
            if time.monotonic() >= next_refresh:
                self._subscribe(consumer, offsets)
                next_refresh = time.monotonic() + (REGEX_REFRESH if self._settings.topics_regex else float("inf"))
            offsets.check()
            offsets.apply_requests()
            if self._paused.is_set():
                if self.state != State.PAUSED:
                    offsets.pause_all()
                    self._set_state(State.PAUSED)
                self._idle(consumer, offsets, 0.1)
                continue
            if self.state != State.RUNNING:
                if self._retry is None:  # a batch waiting to be put again keeps its partitions paused
                    offsets.resume_all()
                self._set_state(State.RUNNING)
            self._iteration(consumer, offsets)
            if self._context.take_commit_request() or time.monotonic() >= next_commit:
                offsets.commit()
                next_commit = time.monotonic() + self._settings.flush_interval

    def _iteration(self, consumer: Consumer, offsets: SinkOffsets) -> None:
        if self._retry is not None:
            records, batch_offsets, not_before = self._retry
            if time.monotonic() < not_before:
                self._idle(consumer, offsets, min(0.1, not_before - time.monotonic()))
                return
            self._put(records, batch_offsets, offsets)
            return
        messages = consumer.consume(self._settings.max_poll_records, 0.5)
        records, batch_offsets = self._convert(messages)
        self._put(records, batch_offsets, offsets)

    @staticmethod
    def _idle(consumer: Consumer, offsets: SinkOffsets, timeout: float) -> None:
        """Serve heartbeats and rebalances while the partitions are paused; a message fetched before the
        pause took effect is read again later, not dropped."""
        messages = consumer.consume(100, max(timeout, 0.0))
        if messages:
            offsets.rewind(messages)

    def _convert(self, messages: list[Any]) -> tuple[list[SinkRecord], dict[TopicPartition, int]]:
        assert self._conversion is not None and self._errant is not None
        convert = self._conversion.convert
        self._errant.new_batch(messages)
        records: list[SinkRecord] = []
        batch_offsets: dict[TopicPartition, int] = {}
        for message in messages:
            error = message.error()
            if error is not None:
                if error.fatal():
                    raise ConnectException(f"Consumer failed: {error}")
                if not is_partition_eof(error):
                    log.warning("[%s] consumer error: %s", self.id, error)
                continue
            topic = message.topic()
            if topic not in self._topics_seen:
                self._new_topic(topic)
            try:
                record = convert(message)
            except Exception as exc:
                exc.add_note(f"while processing the record at topic={topic}, partition={message.partition()}, "
                             f"offset={message.offset()}")
                raise
            if record is not None:
                records.append(record)
            # A skipped record's offset is committed too, as Connect does for records errors.tolerance
            # let through and records a transform dropped.
            batch_offsets[TopicPartition(topic, message.partition())] = message.offset() + 1
        return records, batch_offsets

    def _put(self, records: list[SinkRecord], batch_offsets: dict[TopicPartition, int], offsets: SinkOffsets) -> None:
        if records and not self.lease():
            raise LeaseLost()
        try:
            self.task.put(records)
        except RetriableException as exc:
            timeout = self._context.take_timeout()
            log.warning("[%s] RetriableException from SinkTask: %s; retrying the batch of %d record(s)%s",
                        self.id, exc, len(records), f" in {timeout} ms" if timeout > 0 else "")
            if self._retry is None:
                offsets.pause_all()
            self._retry = (records, batch_offsets, time.monotonic() + max(timeout, 0) / 1000.0)
            return
        except Exception as exc:
            raise ConnectException("Exiting WorkerSinkTask due to unrecoverable exception.") from exc
        if self._retry is not None:
            self._retry = None
            offsets.resume_all()
        offsets.delivered(batch_offsets)

    def _new_topic(self, topic: str) -> None:
        self._topics_seen.add(topic)
        if self._on_topic is not None:
            try:
                self._on_topic(topic)
            except Exception:
                log.exception("[%s] topic tracking failed", self.id)


def _close_consumer(consumer: Consumer, task_id: str) -> None:
    try:
        consumer.close()
    except Exception:
        log.exception("[%s] error closing the consumer", task_id)
