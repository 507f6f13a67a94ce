"""When a source task's progress becomes durable: one `Committer` per task, chosen when it starts.

* `FlushCommitter` (at-least-once, Connect's WorkerSourceTask): records go out as they are polled;
  every `offset.flush.interval.ms` (on a flush thread, runtime/source/offset_flush.py), and when the
  task pauses or stops, the source offsets of the records Kafka has acknowledged are written to the
  offsets topic. A crash in between re-sends what was sent after the last flush.
* `TransactionalCommitter` (exactly-once, runtime/source/transactions.py): records and their offsets go in
  one producer transaction, so after any crash either both are visible or neither is.

The runner's loop calls the same methods whichever it is, on the task's thread.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from pyconnect.api.metrics import MetricSample
from pyconnect.kafka.clients import Producer
from pyconnect.runtime.source.delivery import Delivery
from pyconnect.runtime.source.offset_flush import OffsetFlush, PendingOffsets
from pyconnect.runtime.source.offset_stores import ConnectorOffsetStores
from pyconnect.storage.offset_store import canonical

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
        self.record_ms((time.monotonic() - started) * 1000)

    def record_ms(self, ms: float) -> None:
        """A commit that took `ms` milliseconds succeeded."""
        total, high, n = self._figures
        self._figures = (total + ms, max(high, ms), n + 1)

    def samples(self, labels: dict[str, str]) -> list[MetricSample]:
        total, high, n = self._figures
        return [MetricSample(self.AVG, "Average time taken by the task to commit offsets (ms).", labels,
                             total / n if n else 0.0),
                MetricSample(self.MAX, "Longest time taken by the task to commit offsets (ms).", labels, high)]


class FlushCommitter:
    """At-least-once: periodic offset flushes of acknowledged records.

    Every `offset.flush.interval.ms` the offsets of the records Kafka acknowledged are written by an
    `OffsetFlush` on a thread of its own (Connect's committer thread): the task keeps polling and producing while
    the flush waits, up to `offset.flush.timeout.ms`. The next flush starts an interval after one ends. Pausing
    and stopping flush synchronously.

    Invariants (Connect's OffsetStorageWriter): an acknowledged record's offset stays in `_unflushed` until a
    flush has written it, or a newer offset of its source partition has replaced it there, so a flush that fails
    or times out loses nothing: the next one writes it again. At most one flush is in progress. Only the task's
    thread touches `_unflushed` and `_flush`.
    """

    def __init__(self, task_id: str, connector: str, producer: Producer, delivery: Delivery[Any],
                 offsets: ConnectorOffsetStores, flush_interval: float, flush_timeout: float,
                 on_commit: Callable[[], None]) -> None:
        self._id, self._connector, self._producer, self._delivery = task_id, connector, producer, delivery
        self._offsets, self._interval, self._timeout = offsets, flush_interval, flush_timeout
        self._on_commit = on_commit
        self._next = time.monotonic() + flush_interval
        self._unflushed: PendingOffsets = {}  # acknowledged, not yet written (see the invariants)
        self._flush: OffsetFlush | None = None  # the flush in progress
        self.times = CommitTimes()

    def start(self) -> None:
        return None

    def before_send(self) -> None:
        return None

    def after_batch(self, sent: bool) -> None:
        flush = self._flush
        if flush is not None:
            if flush.ended.is_set():
                self._settle(flush)
                self._next = time.monotonic() + self._interval
        elif time.monotonic() >= self._next and self._begin(self._timeout) is None:
            self._next = time.monotonic() + self._interval  # nothing to write

    def pause(self) -> None:
        # PAUSED means nothing more lands: deliver what is in flight and commit it first.
        self._producer.flush(self._timeout)
        self.commit()

    def finish(self, clean: bool, timeout: float) -> None:
        self.commit(timeout)  # acknowledged records are on Kafka either way: their offsets may be committed

    def commit(self, timeout: float | None = None) -> None:
        """Flush now and wait, within `timeout` seconds (default `offset.flush.timeout.ms`): the flush in
        progress first, then one with what was acknowledged since. A failure is logged (by the flush) and its
        offsets are kept for the next flush."""
        deadline = time.monotonic() + (self._timeout if timeout is None else timeout)
        if self._flush is not None:
            if not self._flush.wait(deadline - time.monotonic()):
                return  # still waiting on its cluster: it logs its own timeout; the next flush retries
            self._settle(self._flush)
        flush = self._begin(deadline - time.monotonic())
        if flush is not None and flush.wait(deadline - time.monotonic()):
            self._settle(flush)

    def _begin(self, timeout: float) -> OffsetFlush | None:
        """Start a flush of everything acknowledged and not yet written (None: there is nothing)."""
        for partition, offset in self._delivery.committable():
            self._unflushed[canonical(partition)] = (partition, offset)
        if not self._unflushed:
            return None
        self._flush = OffsetFlush(self._id, self._connector, self._offsets, dict(self._unflushed), timeout)
        return self._flush

    def _settle(self, flush: OffsetFlush) -> None:
        """On the task's thread, once `flush` ended: forget what it wrote, tell the task."""
        self._flush = None
        if not flush.ok:
            return  # logged by the flush; its offsets stay in _unflushed for the next one
        for key, entry in flush.pending.items():
            if self._unflushed.get(key) is entry:  # not replaced by a newer offset meanwhile
                del self._unflushed[key]
        self._offsets.copy_to_worker(self._connector, flush.pending.values())
        self.times.record_ms(flush.elapsed_ms)
        try:
            self._on_commit()
        except Exception:
            log.exception("[%s] Exception thrown while calling task.commit()", self._id)
