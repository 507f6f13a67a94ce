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
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from pyconnect.api.metrics import MetricSample
from pyconnect.kafka.clients import Producer
from pyconnect.runtime.source.delivery import Delivery
from pyconnect.runtime.source.offset_stores import ConnectorOffsetStores, Offsets
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
        ms = (time.monotonic() - started) * 1000
        total, high, n = self._figures
        self._figures = (total + ms, max(high, ms), n + 1)

    def samples(self, labels: dict[str, str]) -> list[MetricSample]:
        total, high, n = self._figures
        return [MetricSample(self.AVG, "Average time taken by the task to commit offsets (ms).", labels,
                             total / n if n else 0.0),
                MetricSample(self.MAX, "Longest time taken by the task to commit offsets (ms).", labels, high)]


class FlushCommitter:
    """At-least-once: periodic offset flushes of acknowledged records.

    Invariant (Connect's OffsetStorageWriter): an acknowledged record's offset stays in `_unflushed` until a
    flush has written it, or a newer offset of its source partition has replaced it there. A flush that fails
    or outlasts `offset.flush.timeout.ms` therefore loses nothing: the next one writes it again. Only the
    task's thread touches `_unflushed` (the runner's loop calls every method).
    """

    def __init__(self, task_id: str, connector: str, producer: Producer, delivery: Delivery[Any],
                 offsets: ConnectorOffsetStores, flush_interval: float, flush_timeout: float,
                 on_commit: Callable[[], None]) -> None:
        self._id, self._connector, self._producer, self._delivery = task_id, connector, producer, delivery
        self._offsets, self._interval, self._timeout = offsets, flush_interval, flush_timeout
        self._on_commit = on_commit
        self._next = time.monotonic() + flush_interval
        # canonical source partition -> (partition, offset): acknowledged, not yet written (see the invariant)
        self._unflushed: dict[str, tuple[Mapping[str, Any], Mapping[str, Any]]] = {}
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
        """Write the offsets of every acknowledged record not written yet, giving up after `timeout` seconds
        (default `offset.flush.timeout.ms`). A failure is logged and the offsets are kept: the next flush
        retries them, as Connect's does."""
        started = time.monotonic()
        for partition, offset in self._delivery.committable():
            self._unflushed[canonical(partition)] = (partition, offset)
        if not self._unflushed:
            return
        pending = list(self._unflushed.values())
        try:
            self._write(pending, started + (self._timeout if timeout is None else timeout))
        except TimeoutError:
            log.error("[%s] Timed out waiting to flush offsets to storage; will try again on next flush interval "
                      "with latest offsets", self._id)
            self._failed(started)
            return
        except Exception as exc:
            log.error("[%s] Failed to flush offsets to storage: %s", self._id, exc)
            self._failed(started)
            return
        self._unflushed.clear()  # nothing was added meanwhile: only this thread adds, and it was writing
        self._offsets.copy_to_worker(self._connector, pending)
        self.times.record(started)
        try:
            self._on_commit()
        except Exception:
            log.exception("[%s] Exception thrown while calling task.commit()", self._id)

    def _write(self, pending: Offsets, deadline: float) -> None:
        """Write `pending` to the primary store and wait for every write until `deadline` (one budget for
        the whole flush, as Connect's): raises TimeoutError when a write is still unacknowledged then."""
        futures = self._offsets.put(self._connector, pending)
        self._offsets.flush(max(0.0, deadline - time.monotonic()))
        for fut in futures:
            fut.result(max(0.0, deadline - time.monotonic()))

    def _failed(self, started: float) -> None:
        # Connect's SourceTaskOffsetCommitter line, with what an operator needs to know about the flush.
        log.error("[%s] Failed to commit offsets: gave up after %d ms; the offsets of %d source partition(s) are "
                  "kept for the next flush", self._id, (time.monotonic() - started) * 1000, len(self._unflushed))
