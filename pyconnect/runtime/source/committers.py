"""When a source task's progress becomes durable: one `Committer` per task, chosen when it starts.

* `FlushCommitter` (at-least-once, Connect's WorkerSourceTask): records go out as they are polled;
  every `offset.flush.interval.ms`, and when the task pauses or stops, the source offsets of the
  records Kafka has acknowledged are written to the offsets topic. A crash in between re-sends what
  was sent after the last flush.
* `TransactionalCommitter` (exactly-once, runtime/source/transactions.py): records and their offsets go in
  one producer transaction, so after any crash either both are visible or neither is.

The runner's loop calls the same four methods whichever it is, on the task's thread.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from pyconnect.api.metrics import MetricSample
from pyconnect.kafka.clients import Producer
from pyconnect.runtime.source.delivery import Delivery
from pyconnect.runtime.source.offset_stores import ConnectorOffsetStores

log = logging.getLogger(__name__)


class Committer(Protocol):
    """A task's commit policy."""

    def start(self) -> None:
        """Before the task starts (exactly-once: register the producer's transactional.id)."""

    def before_send(self) -> None:
        """Called before a polled batch is produced."""

    def after_batch(self, sent: bool) -> None:
        """Called after every turn of the loop (`sent`: a batch was produced)."""

    def pause(self) -> None:
        """The task pauses: make everything sent so far durable."""

    def finish(self, clean: bool, timeout: float) -> None:
        """The task ends: `clean` when it stopped normally and its producer delivered what was queued;
        otherwise (a failure) keep only what is certain. Within `timeout` seconds (the stop's budget)."""


class CommitTimes:
    """How long a task's offset commits took (Connect's offset-commit-avg/max-time-ms, since the
    task started): the committer records each successful commit, a scrape reads the figures."""

    AVG = "kafka_connect_connector_task_offset_commit_avg_time_ms"
    MAX = "kafka_connect_connector_task_offset_commit_max_time_ms"

    def __init__(self) -> None:
        self._figures = (0.0, 0.0, 0)  # (total ms, max ms, commits): replaced, never mutated

    def record(self, started: float) -> None:
        """A commit that began at `started` (time.monotonic()) succeeded now."""
        ms = (time.monotonic() - started) * 1000
        total, high, n = self._figures
        self._figures = (total + ms, max(high, ms), n + 1)

    def samples(self, labels: dict[str, str]) -> list[MetricSample]:
        total, high, n = self._figures
        return [MetricSample(self.AVG, "Average time taken by the task to commit offsets (ms).", labels,
                             total / n if n else 0.0),
                MetricSample(self.MAX, "Longest time taken by the task to commit offsets (ms).", labels, high)]


class FlushCommitter:
    """At-least-once: periodic offset flushes of acknowledged records."""

    def __init__(self, task_id: str, connector: str, producer: Producer, delivery: Delivery[Any],
                 offsets: ConnectorOffsetStores, flush_interval: float, flush_timeout: float,
                 on_commit: Callable[[], None]) -> None:
        self._id, self._connector, self._producer, self._delivery = task_id, connector, producer, delivery
        self._offsets, self._interval, self._timeout = offsets, flush_interval, flush_timeout
        self._on_commit = on_commit
        self._next = time.monotonic() + flush_interval
        self.times = CommitTimes()

    def start(self) -> None:
        return None

    def before_send(self) -> None:
        return None

    def after_batch(self, sent: bool) -> None:
        if time.monotonic() >= self._next:
            self.commit()
            self._next = time.monotonic() + self._interval

    def pause(self) -> None:
        # PAUSED means nothing more lands: deliver what is in flight and commit it first.
        self._producer.flush(self._timeout)
        self.commit()

    def finish(self, clean: bool, timeout: float) -> None:
        self.commit(timeout)  # acknowledged records are on Kafka either way: their offsets may be committed

    def commit(self, timeout: float | None = None) -> None:
        """Write the offsets of every acknowledged record (a failure is logged; the next flush retries)."""
        started = time.monotonic()
        pending = self._delivery.committable()
        if not pending:
            return
        futures = self._offsets.put(self._connector, pending)
        timeout = self._timeout if timeout is None else timeout
        try:
            self._offsets.flush(timeout)
            for fut in futures:
                fut.result(timeout)
            self._offsets.copy_to_worker(self._connector, pending)
            self.times.record(started)
            self._on_commit()
        except Exception as exc:
            log.error("[%s] offset commit failed: %s", self._id, exc)
