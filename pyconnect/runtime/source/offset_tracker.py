"""Which source offsets are safe to commit: those whose record, and every earlier record of the
same source partition, Kafka has acknowledged (Connect's SubmittedRecords).

Two strategies, chosen per task:
* `GenericAcks`: one small callable object per record, for tasks whose records may go anywhere.
* `OrderedAcks`: for tasks that send each source partition to one fixed target partition (the
  mirror). Kafka acknowledges one partition's records in produce order, so one shared callback
  and a FIFO per target partition identify each record: no per-record object on the hot path.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from pyconnect.api.records import SourceRecord
from pyconnect.kafka.errors import error_text
from pyconnect.storage.offset_store import canonical

Committable = list[tuple[Mapping[str, Any], Mapping[str, Any]]]
OnAck = Callable[[SourceRecord, int, int], None]  # record, target partition, target offset
OnFailure = Callable[[SourceRecord, Any, str], None]  # record, message, reason


class _Submitted:
    """A record in flight that is its own delivery callback."""

    __slots__ = ("record", "acked", "owner")

    def __init__(self, record: SourceRecord, owner: GenericAcks) -> None:
        self.record = record
        self.acked = False
        self.owner = owner

    def __call__(self, err: Any, msg: Any) -> None:
        owner = self.owner
        if err is not None:
            owner.on_failure(self.record, msg, error_text(err))
            return
        self.acked = True
        if owner.on_ack is not None:
            owner.on_ack(self.record, msg.partition(), msg.offset())


class GenericAcks:
    def __init__(self, on_ack: OnAck | None, on_failure: OnFailure) -> None:
        self.on_ack, self.on_failure = on_ack, on_failure
        self._lock = threading.Lock()
        self._pending: dict[str, deque[_Submitted]] = {}
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

    def submit(self, record: SourceRecord) -> _Submitted:
        """Register a record before producing it; returns its delivery callback."""
        key = self._key(record.source_partition)
        entry = _Submitted(record, self)
        with self._lock:
            queue = self._pending.get(key)
            if queue is None:
                queue = self._pending[key] = deque()
                self._partitions[key] = record.source_partition
            queue.append(entry)
        return entry

    def skip(self, record: SourceRecord) -> None:
        """A record that is not produced (a transform dropped it): its offset commits in its turn."""
        self.submit(record).acked = True

    def committable(self) -> Committable:
        """Pop the acknowledged prefix of every partition; return its last offset."""
        out = []
        with self._lock:
            for key, queue in self._pending.items():
                last = None
                while queue and queue[0].acked:
                    last = queue.popleft().record.source_offset
                if last is not None:
                    out.append((self._partitions[key], last))
        return out

    def in_flight(self) -> int:
        with self._lock:
            return sum(len(q) for q in self._pending.values())


class OrderedAcks:
    """Shared delivery callback; records must carry an explicit partition."""

    def __init__(self, on_ack: OnAck | None, on_failure: OnFailure) -> None:
        self.on_ack, self.on_failure = on_ack, on_failure
        self.fifos: dict[tuple[str, int], deque[SourceRecord]] = {}
        self._acked: dict[int, tuple[Mapping[str, Any], Mapping[str, Any]]] = {}

    def fifo(self, topic: str, partition: int) -> deque[SourceRecord]:
        fifo = self.fifos.get((topic, partition))
        if fifo is None:
            fifo = self.fifos[(topic, partition)] = deque()
        return fifo

    def __call__(self, err: Any, msg: Any) -> None:
        record = self.fifos[(msg.topic(), msg.partition())].popleft()
        if err is not None:
            self.on_failure(record, msg, error_text(err))
            return
        sp = record.source_partition
        self._acked[id(sp)] = (sp, record.source_offset)
        if self.on_ack is not None:
            self.on_ack(record, msg.partition(), msg.offset())

    def committable(self) -> Committable:
        # Delivery callbacks run on the task thread (inside producer.poll), like this call.
        acked, self._acked = self._acked, {}
        return list(acked.values())

    def in_flight(self) -> int:
        return sum(len(f) for f in self.fifos.values())
