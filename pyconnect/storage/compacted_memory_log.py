"""An in-memory Log that keeps only the last record of each key: a long-running process's twin of a
compacted topic (a standalone worker's configs, statuses and membership).

MemoryLog keeps every record and counts a partition's records on each send, which suits a test but
not a worker that heartbeats every few seconds for months. This log keeps one record per
(partition, key) and a counter per partition; a reader that starts sees what a reader of a compacted
topic would: the latest value of every key whose last record is not a tombstone.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future

from pyconnect.kafka.topic_log import RecordCallback


class CompactedMemoryLog:
    """A Log held in memory, compacted as it is written; writes reach the reader synchronously."""

    def __init__(self, partitions: int = 1) -> None:
        self._partitions = partitions
        self._lock = threading.RLock()
        self._latest: dict[tuple[int, bytes], tuple[bytes, int]] = {}  # (partition, key) -> (value, offset)
        self._next: dict[int, int] = {}
        self._callback: RecordCallback | None = None

    @property
    def partitions(self) -> int:
        return self._partitions

    def start(self, on_record: RecordCallback, timeout: float = 60.0) -> None:
        with self._lock:
            for (partition, key), (value, offset) in sorted(self._latest.items(), key=lambda item: item[1][1]):
                on_record(key, value, partition, offset)
            self._callback = on_record

    def stop(self, timeout: float = 10.0) -> None:
        with self._lock:
            self._callback = None

    def send(self, key: bytes, value: bytes | None, partition: int | None = None) -> Future[None]:
        with self._lock:
            part = partition if partition is not None else hash(key) % self._partitions
            offset = self._next.get(part, 0)
            self._next[part] = offset + 1
            self._latest.pop((part, key), None)
            if value is not None:
                self._latest[(part, key)] = (value, offset)
            if self._callback is not None:
                self._callback(key, value, part, offset)
        future: Future[None] = Future()
        future.set_result(None)
        return future

    def flush(self, timeout: float = 30.0) -> None:
        return None

    def read_to_end(self, timeout: float = 30.0) -> None:
        return None
