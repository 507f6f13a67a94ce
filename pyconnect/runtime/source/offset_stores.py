"""A source task's offset stores (Connect's ConnectorOffsetBackingStore).

Most tasks use only the worker's offsets topic. A task gets a store of its own, on the cluster its
producer writes to, when
- its connector sets `offsets.storage.topic`, or
- it runs exactly once and its producer writes to another cluster than the worker's offsets topic
  (its offsets must be written by its transactional producer, so they must live on its cluster; the
  topic then has the worker's offsets-topic name unless `offsets.storage.topic` names another).
With a store of its own, reads prefer it and fall back to the worker's (offsets written before the
connector had its own topic still count); writes go to it first (inside the transaction, when
exactly once) and are then copied to the worker's store, which REST's offsets endpoints read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from typing import Any

from pyconnect.storage.offset_store import OffsetStore

log = logging.getLogger(__name__)

Offsets = Iterable[tuple[Mapping[str, Any], Mapping[str, Any] | None]]


class ConnectorOffsetStores:
    """The worker's offset store, and optionally the task's own (the primary when present)."""

    def __init__(self, worker: OffsetStore, own: Callable[[], OffsetStore] | None = None) -> None:
        # The task's own store is made in `start`, on the task's thread: creating its topic on another
        # cluster may take a while, which must not hold up the worker's loop.
        self.worker, self._make_own = worker, own
        self.own: OffsetStore | None = None

    @property
    def has_own(self) -> bool:
        """Whether the task has (or will have, once started) a store of its own."""
        return self._make_own is not None

    @property
    def primary(self) -> OffsetStore:
        """Where the task's offsets are written first (and, exactly once, inside its transactions)."""
        return self.own if self.own is not None else self.worker

    def open(self) -> None:
        """Make the task's own store (creating its topic if needed) without reading it yet: an exactly-once
        task reads it only after `init_transactions`, as Connect's ExactlyOnceWorkerSourceTask initialises its
        producer before its offset store starts. That call aborts what a killed predecessor left open in the
        topic; before it, a read_committed reader waits on that transaction."""
        if self._make_own is not None and self.own is None:
            self.own = self._make_own()

    def start(self, timeout: float) -> None:
        """Read the task's own store to its end (opening it first if `open` was not called)."""
        self.open()
        if self.own is not None:
            self.own.start(timeout)

    def stop(self) -> None:
        if self.own is not None:
            self.own.stop()

    def refresh(self, timeout: float) -> None:
        """Read both stores to their end."""
        self.worker.refresh(timeout)
        if self.own is not None:
            self.own.refresh(timeout)

    def get(self, connector: str, partition: Mapping[str, Any]) -> dict[str, Any] | None:
        if self.own is not None:
            found = self.own.get(connector, partition)
            if found is not None:
                return found
        return self.worker.get(connector, partition)

    def put(self, connector: str, offsets: Offsets) -> list[Future[None]]:
        return self.primary.put(connector, offsets)

    def flush(self, timeout: float) -> None:
        self.primary.flush(timeout)

    def copy_to_worker(self, connector: str, offsets: Offsets) -> None:
        """After the primary write succeeded: the worker's store too (without waiting; a failure is
        logged, as Connect logs a failed secondary write)."""
        if self.own is None:
            return
        for fut in self.worker.put(connector, offsets):
            fut.add_done_callback(_log_failure)


def _log_failure(fut: Future[None]) -> None:
    if fut.exception() is not None:
        log.warning("Failed to write offsets to secondary backing store: %s", fut.exception())
