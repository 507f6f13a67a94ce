"""Futures of error reports: one failure's (`ErrantRecordFuture`) and a sink's pending ones by
topic-partition (`ErrantFutures`), so that offsets are committed only after the DLQ has the records.

Connect's WorkerErrantRecordReporter.ErrantRecordFuture, awaitFutures and cancelFutures.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

from pyconnect.api.errors import ConnectException

TopicPartition = tuple[str, int]


class ErrantRecordFuture:
    """Done when every reporter's future is; `result()` raises the first failure."""

    def __init__(self, futures: Sequence[Future[None]] = ()) -> None:
        self._futures = list(futures)

    def done(self) -> bool:
        """Every report has completed (successfully or not)."""
        return all(f.done() for f in self._futures)

    def result(self, timeout: float | None = None) -> None:
        """Wait for every report; raise its error (ConnectException) if one failed, TimeoutError if
        `timeout` seconds (for all of them together) pass first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for future in self._futures:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                future.result(left)
            except FutureTimeout:
                raise TimeoutError("error report not completed in time") from None

    def cancel(self) -> None:
        """Stop waiting for the reports still pending (they may still reach the DLQ)."""
        for future in self._futures:
            future.cancel()


class ErrantFutures:
    """The reports still pending, by the topic-partition of the record they report. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[TopicPartition, list[ErrantRecordFuture]] = {}

    def add(self, partition: TopicPartition, future: ErrantRecordFuture) -> None:
        """Track `future` until it is awaited or cancelled (a done one is not tracked)."""
        if future.done():
            return
        with self._lock:
            self._pending.setdefault(partition, []).append(future)

    def _take(self, partitions: Iterable[TopicPartition] | None) -> list[ErrantRecordFuture]:
        with self._lock:
            chosen = list(self._pending) if partitions is None else list(partitions)
            return [f for tp in chosen for f in self._pending.pop(tp, [])]

    def await_futures(self, partitions: Iterable[TopicPartition] | None = None, timeout: float | None = None) -> None:
        """Wait for the reports of `partitions` (all when None) before their offsets are committed;
        raise ConnectException if one failed or did not complete within `timeout` seconds (each)."""
        for future in self._take(partitions):
            try:
                future.result(timeout)
            except Exception as exc:
                raise ConnectException(f"Encountered an error while awaiting an errant record future's "
                                       f"completion: {exc}") from exc

    def cancel_futures(self, partitions: Iterable[TopicPartition] | None = None) -> None:
        """Forget the reports of `partitions` (all when None), e.g. when the partitions are revoked."""
        for future in self._take(partitions):
            future.cancel()
