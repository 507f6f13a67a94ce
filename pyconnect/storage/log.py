"""The log every internal store is replayed from (Connect's KafkaBasedLog), and its in-memory twin.

`KafkaLog` (pyconnect.kafka.topic_log) reads a real topic from the beginning on a background thread,
handing every record to a callback, and can block until it has read everything written before the
call (`read_to_end`). `MemoryLog` is its in-process twin over a shared `MemoryTopic`, for unit tests.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from concurrent.futures import Future
from typing import Protocol

from pyconnect.kafka.topic_log import KafkaLog, RecordCallback

__all__ = ["KafkaLog", "Log", "LogBackedStore", "MemoryLog", "MemoryTopic", "RecordCallback"]


class Log(Protocol):
    """What a store needs from its topic."""

    @property
    def partitions(self) -> int:
        """How many partitions the topic has."""

    def start(self, on_record: RecordCallback, timeout: float = 60.0) -> None:
        """Begin reading from the start; return once everything present has been read."""

    def stop(self, timeout: float = 10.0) -> None:
        """Stop reading and flush pending writes, giving up after `timeout` seconds (a stop with the
        cluster gone must not outlast the worker's shutdown budget)."""

    def send(self, key: bytes, value: bytes | None, partition: int | None = None) -> Future[None]:
        """Write one record; the future completes when the broker acknowledged it."""

    def flush(self, timeout: float = 30.0) -> None:
        """Wait for every pending write."""

    def read_to_end(self, timeout: float = 30.0) -> None:
        """Block until every record written before this call has been passed to the callback."""


class LogBackedStore(ABC):
    """Base of the config, offset and status stores: a Log replayed into `_on_record`."""

    def __init__(self, log_: Log) -> None:
        self._log = log_
        self._lock = threading.Lock()

    @abstractmethod
    def _on_record(self, key: bytes | None, value: bytes | None, partition: int, offset: int) -> None:
        """Apply one record (each store has its own keys)."""

    def start(self, timeout: float = 60.0) -> None:
        """Read the topic from the beginning; return once everything present has been applied."""
        self._log.start(self._on_record, timeout)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop reading and flush this store's pending writes (within `timeout` seconds)."""
        self._log.stop(timeout)

    @property
    def partitions(self) -> int:
        """The partitions of the store's topic."""
        return self._log.partitions

    def refresh(self, timeout: float = 30.0) -> None:
        """Apply every record written before this call (read to the end)."""
        self._log.read_to_end(timeout)

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until this store's own writes are acknowledged."""
        self._log.flush(timeout)


class MemoryTopic:
    """The shared contents of one in-memory topic."""

    def __init__(self, partitions: int = 1) -> None:
        self.partitions = partitions
        self.records: list[tuple[bytes, bytes | None, int, int]] = []
        self.lock = threading.RLock()
        self.subscribers: list[RecordCallback] = []


class MemoryLog:
    """A Log over a MemoryTopic; writes are delivered to every reader synchronously."""

    def __init__(self, topic: MemoryTopic) -> None:
        self._topic = topic
        self._callback: RecordCallback | None = None

    @property
    def partitions(self) -> int:
        return self._topic.partitions

    def start(self, on_record: RecordCallback, timeout: float = 60.0) -> None:
        with self._topic.lock:
            self._callback = on_record
            for key, value, partition, offset in self._topic.records:
                on_record(key, value, partition, offset)
            self._topic.subscribers.append(on_record)

    def stop(self, timeout: float = 10.0) -> None:
        with self._topic.lock:
            if self._callback in self._topic.subscribers:
                self._topic.subscribers.remove(self._callback)

    def send(self, key: bytes, value: bytes | None, partition: int | None = None) -> Future[None]:
        with self._topic.lock:
            part = partition if partition is not None else hash(key) % self._topic.partitions
            offset = sum(1 for r in self._topic.records if r[2] == part)
            self._topic.records.append((key, value, part, offset))
            for subscriber in list(self._topic.subscribers):
                subscriber(key, value, part, offset)
        fut: Future[None] = Future()
        fut.set_result(None)
        return fut

    def flush(self, timeout: float = 30.0) -> None:
        return None

    def read_to_end(self, timeout: float = 30.0) -> None:
        return None
