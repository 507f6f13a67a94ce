"""Exactly-once source tasks (KIP-618): a task's records and its source offsets in one transaction.

The cycle, per transaction (Connect's ExactlyOnceWorkerSourceTask):
1. the first record of a batch begins a transaction on the task's own producer, whose
   `transactional.id` is `<group.id>-<connector>-<task>`;
2. the batch is produced; at the boundary (`poll`: after every batch that sent records; `interval`:
   every `transaction.boundary.interval.ms`) the producer is flushed, the source offsets of what it
   sent are produced to the offsets topic by the same producer, and the transaction is committed;
3. only then does the task learn what landed where (`commit_record`/`commit_run`, held until here),
   so what it derives from that (MirrorMaker's offset syncs) never names records of an aborted
   transaction; then `commit()`.

Invariants:
- A. Records and the offsets that cover them become visible together or not at all.
- B. A task only starts after `init_transactions` on its id, which aborts whatever an older holder of
  the id left open and fences that holder; the leader fences the ids of older generations before a
  new one starts (runtime/source/fencing.py). So no zombie commits after its successor started.
- C. Any failure of the cycle fails the task (as in Connect): nothing is retried inside a transaction
  whose outcome is unknown; the task's restart resumes from the last committed offsets.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from pyconnect.kafka import transactions as kt
from pyconnect.kafka.clients import Producer, produce
from pyconnect.kafka.partitioner import java_partition
from pyconnect.runtime.source.committers import CommitTimes
from pyconnect.runtime.source.delivery import Delivery, DeliveryFailed, HeldAcks
from pyconnect.runtime.source.offset_tracker import Committable
from pyconnect.storage.offset_store import offset_record

log = logging.getLogger(__name__)

class Boundary(StrEnum):
    """`transaction.boundary` values this runtime's tasks can use."""

    POLL = "poll"
    INTERVAL = "interval"


@dataclass(frozen=True)
class TransactionSettings:
    """A task's exactly-once settings, from the worker and connector configs."""

    transactional_id: str
    boundary: Boundary
    interval: float  # seconds, for Boundary.INTERVAL
    offsets_topic: str
    offsets_partitions: int
    timeout: float  # for init, flush and commit


class Preflight(Protocol):
    """The worker's checks around `init_transactions` (Connect's pre- and post-producer checks)."""

    def before_init(self) -> None:
        """Wait until older task generations are fenced (raise if they cannot be)."""

    def after_init(self) -> None:
        """Raise if the task was moved or its connector reconfigured meanwhile."""


class _NoPreflight:
    def before_init(self) -> None:
        return None

    def after_init(self) -> None:
        return None


NO_PREFLIGHT: Preflight = _NoPreflight()


class TransactionalCommitter:
    """The `Committer` of an exactly-once task (see the module docstring)."""

    def __init__(self, connector: str, producer: Producer, delivery: Delivery[Any], held: HeldAcks,
                 settings: TransactionSettings, failure: Callable[[], str | None],
                 on_commit: Callable[[], None], preflight: Preflight = NO_PREFLIGHT,
                 copy: Callable[[Committable], None] | None = None) -> None:
        self._connector, self._producer, self._delivery, self._held = connector, producer, delivery, held
        self._settings, self._failure, self._on_commit = settings, failure, on_commit
        self._preflight = preflight
        self._copy = copy  # committed offsets to the worker's store, when the task has its own
        self._open = False
        self._last_commit = time.monotonic()
        self.transactions = 0  # committed, for the task's metrics and tests
        self.times = CommitTimes()

    def start(self) -> None:
        """Register the id (fencing an older holder); before the task polls anything."""
        self._preflight.before_init()
        kt.init_transactions(self._producer, self._settings.transactional_id, self._settings.timeout)
        self._preflight.after_init()
        self._last_commit = time.monotonic()

    def before_send(self) -> None:
        if not self._open:
            kt.begin(self._producer, self._settings.transactional_id)
            self._open = True

    def after_batch(self, sent: bool) -> None:
        if not self._open:
            return
        if self._settings.boundary is Boundary.POLL:
            if sent:
                self.commit()
        elif time.monotonic() - self._last_commit >= self._settings.interval:
            self.commit()

    def pause(self) -> None:
        # Commit now rather than leave a transaction hanging while paused (as Connect does).
        if self._open:
            self.commit()

    def finish(self, clean: bool, timeout: float) -> None:
        if not self._open:
            return
        if clean:
            self.commit()  # clean: the producer delivered everything, its cluster answers
        else:
            self.abort(timeout)

    def commit(self) -> None:
        """Flush, add the offsets, commit; then tell the task what landed. Raises on any failure."""
        s, started = self._settings, time.monotonic()
        remaining = self._producer.flush(s.timeout)
        failure = self._failure()
        if failure is not None or remaining:
            raise DeliveryFailed(failure or f"{remaining} record(s) not acknowledged within {s.timeout}s")
        pending = self._delivery.committable()
        for partition, offset in pending:
            key, value = offset_record(self._connector, partition, offset)
            partition_of = java_partition(key, s.offsets_partitions)  # where Connect's writer puts the key
            produce(self._producer, s.offsets_topic, value, key=key, partition=partition_of)
        kt.commit(self._producer, s.transactional_id, s.timeout)
        self._open = False
        self._last_commit = time.monotonic()
        self.transactions += 1
        if self._copy is not None and pending:
            self._copy(pending)
        held, self._held[:] = list(self._held), []
        for hook, args in held:
            hook(*args)
        self.times.record(started)
        self._on_commit()

    def abort(self, timeout: float = 5.0) -> None:
        """Drop the open transaction: its records and offsets never become visible."""
        self._held.clear()
        self._delivery.committable()  # acknowledged, but aborted: these offsets must never be written
        self._open = False
        try:
            # Best effort, briefly: a fenced producer cannot abort (some brokers drop its connection, so
            # the call would wait its whole timeout), and the broker aborts the transaction anyway when
            # the id is registered again, by this task's next run or by its new owner.
            kt.abort(self._producer, self._settings.transactional_id, max(0.1, min(self._settings.timeout, 5.0,
                                                                                  timeout)))
        except kt.TransactionFailed as exc:
            log.warning("%s", exc)
