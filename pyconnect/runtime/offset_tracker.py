"""Which source offsets are safe to commit: those whose record, and every earlier record of the
same source partition, Kafka has acknowledged (Connect's SubmittedRecords)."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from typing import Any

from pyconnect.storage.offset_store import canonical


class Submitted:
    """One record in flight; `acked` flips on the producer's delivery callback."""

    __slots__ = ("offset", "acked")

    def __init__(self, offset: Mapping[str, Any]) -> None:
        self.offset = offset
        self.acked = False


class OffsetTracker:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[str, deque[Submitted]] = {}
        self._partitions: dict[str, Mapping[str, Any]] = {}
        # Tasks usually reuse one partition map per source partition: remember its key by identity
        # (holding the object, so its id cannot be reused) instead of serialising it per record.
        self._keys: dict[int, tuple[Mapping[str, Any], str]] = {}

    def _key(self, partition: Mapping[str, Any]) -> str:
        cached = self._keys.get(id(partition))
        if cached is not None and cached[0] is partition:
            return cached[1]
        if len(self._keys) > 10_000:
            self._keys.clear()
        key = canonical(partition)
        self._keys[id(partition)] = (partition, key)
        return key

    def submit(self, partition: Mapping[str, Any], offset: Mapping[str, Any], entry: Submitted | None = None
               ) -> Submitted:
        key = self._key(partition)
        if entry is None:
            entry = Submitted(offset)
        with self._lock:
            queue = self._pending.get(key)
            if queue is None:
                queue = self._pending[key] = deque()
                self._partitions[key] = partition
            queue.append(entry)
        return entry

    def committable(self) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
        """Pop the acknowledged prefix of every partition; return its last offset."""
        out = []
        with self._lock:
            for key, queue in self._pending.items():
                last = None
                while queue and queue[0].acked:
                    last = queue.popleft().offset
                if last is not None:
                    out.append((self._partitions[key], last))
        return out

    def in_flight(self) -> int:
        with self._lock:
            return sum(len(q) for q in self._pending.values())
