"""Copy one planned source partition range to its remote partition: the work of one Spark task.

Runs in a Spark executor's Python worker, so it takes and returns plain picklable data and owns its
clients. Progress is derived from the target, never from memory: the remote partition holds
`target_end - target_start` records of this range (an idempotent producer appends them in order, and
nothing else writes the partition while it is being backfilled), so a new run skips exactly that
many source records and goes on from there. Killing a run at any point therefore never duplicates.

Downstream offsets are known without per-record acknowledgements (record k of the range lands at
`target_start + k`), so the loop produces with no success callback, and offset syncs (first record,
every upstream gap, the newest record) are written once the records they describe are flushed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from connectors.mirror.formats import OffsetSync
from pyconnect.kafka.clients import (
    assign,
    consume_available,
    end_offsets,
    new_bulk_producer,
    new_consumer,
    new_producer,
    positional_produce,
    positions,
    produce,
)

log = logging.getLogger(__name__)

FLUSH_EVERY = 200_000  # records between producer flushes (each flush also writes the syncs so far)


@dataclass(frozen=True)
class CopySpec:
    topic: str
    partition: int
    remote_topic: str
    start: int  # first source offset of the range
    end: int  # source end offset captured at plan time (exclusive)
    target_start: int  # end of the remote partition when the plan was made
    source_consumer: dict[str, str]
    target_consumer: dict[str, str]
    target_producer: dict[str, str]
    syncs_producer: dict[str, str] | None = None  # None: emit.offset-syncs.enabled=false
    syncs_topic: str = ""
    batch: int = 10_000


@dataclass
class CopyResult:
    topic: str
    partition: int
    skipped: int = 0  # records of the range found already on the target (earlier runs)
    copied: int = 0  # records this run copied
    syncs: int = 0
    failures: list[str] = field(default_factory=list)


class RangeCopyError(RuntimeError):
    """The range could not be copied (the reason names the partition)."""


def copy_range(spec: CopySpec) -> CopyResult:
    result = CopyResult(spec.topic, spec.partition)
    name = f"{spec.topic}-{spec.partition}"
    probe = new_consumer({**spec.target_consumer, "group.id": "pyconnect-backfill"})
    try:
        landed = end_offsets(probe, spec.remote_topic, [spec.partition])[spec.partition] - spec.target_start
    finally:
        probe.close()
    if landed < 0:
        raise RangeCopyError(f"{spec.remote_topic}-{spec.partition} ends before the planned target start "
                             f"{spec.target_start}: the remote topic was truncated or recreated")
    # fetch.queue.backoff.ms: see MirrorSourceTask (librdkafka's 1 s default starves a busy reader).
    consumer = new_consumer({"fetch.queue.backoff.ms": "20", **spec.source_consumer, "group.id": "pyconnect-backfill"})
    syncs: list[OffsetSync] = []
    sync_producer = (new_producer({"acks": "all", **spec.syncs_producer})
                     if spec.syncs_producer is not None else None)
    failures: list[str] = []
    producer = new_bulk_producer({"enable.idempotence": "true", "acks": "all", "linger.ms": "20",
                                  **spec.target_producer}, lambda err: failures.append(str(err)))
    try:
        assign(consumer, [(spec.topic, spec.partition, spec.start)])
        state = _Cursor(spec, syncs)
        if landed:
            _skip(consumer, spec, landed, state, name)
            result.skipped = landed
        if state.prev_upstream + 1 < spec.end:
            result.copied = _copy(consumer, producer, spec, state, name, failures,
                                  lambda: _write_syncs(sync_producer, spec, syncs, result))
        _flush(producer, failures, name)
        state.close()
        _write_syncs(sync_producer, spec, syncs, result)
    finally:
        consumer.close()
        producer.flush(10)
    result.failures = failures
    return result


class _Cursor:
    """Upstream/downstream position of the copy, and the sync points it passed. The copy lands record
    k of the range at `target_start + k`, so each sync continues the previous one (OffsetSync.since)."""

    __slots__ = ("spec", "prev_upstream", "next_downstream", "syncs", "last_sync")

    def __init__(self, spec: CopySpec, syncs: list[OffsetSync]) -> None:
        self.spec = spec
        self.prev_upstream = spec.start - 1
        self.next_downstream = spec.target_start
        self.syncs = syncs
        self.last_sync: tuple[int, int] | None = None  # the newest sync point

    @property
    def last_synced(self) -> int:
        return -1 if self.last_sync is None else self.last_sync[0]

    def sync(self, upstream: int, downstream: int) -> None:
        self.syncs.append(OffsetSync(self.spec.topic, self.spec.partition, upstream, downstream, self.last_sync))
        self.last_sync = (upstream, downstream)

    def close(self) -> None:
        """A sync for the newest record, so translation is exact up to the range's end."""
        if self.next_downstream > 0 and self.prev_upstream > self.last_synced and self.prev_upstream >= 0:
            self.sync(self.prev_upstream, self.next_downstream - 1)


def _messages(consumer: Any, spec: CopySpec, name: str) -> Any:
    """Yield batches of messages of the range; ends when the consumer's position passed `spec.end`
    (the range may end in offsets that hold no data record: transaction markers, compacted keys)."""
    idle = 0
    while True:
        msgs = consume_available(consumer, spec.batch, 1.0)
        if not msgs:
            if positions(consumer, spec.topic, [spec.partition])[spec.partition] >= spec.end:
                return
            idle += 1
            if idle >= 60:
                raise RangeCopyError(f"no records from {name} for 60 s before reaching offset {spec.end}")
            continue
        idle = 0
        for m in msgs:
            err = m.error()
            if err is not None and not err.retriable():
                raise RangeCopyError(f"reading {name}: {err}")
        yield msgs


def _skip(consumer: Any, spec: CopySpec, count: int, state: _Cursor, name: str) -> None:
    """Pass over the `count` records earlier runs copied, re-deriving their sync points."""
    left = count
    for msgs in _messages(consumer, spec, name):
        for m in msgs:
            if m.error() is not None:
                continue
            offset = m.offset()
            if offset >= spec.end:
                raise RangeCopyError(f"{spec.remote_topic}-{spec.partition} holds more records than "
                                     f"{name} has in [{spec.start}, {spec.end})")
            _advance(state, offset)
            left -= 1
            if left == 0:
                _seek(consumer, spec, offset + 1)
                return
    raise RangeCopyError(f"{spec.remote_topic}-{spec.partition} holds more records than {name} has in "
                         f"[{spec.start}, {spec.end})")


def _seek(consumer: Any, spec: CopySpec, offset: int) -> None:
    # Re-assign rather than seek: a seek right after consume() may race the fetcher's queue.
    consumer.unassign()
    assign(consumer, [(spec.topic, spec.partition, offset)])


def _advance(state: _Cursor, upstream: int) -> None:
    if upstream != state.prev_upstream + 1 or state.last_sync is None:
        state.sync(upstream, state.next_downstream)
    state.prev_upstream = upstream
    state.next_downstream += 1


def _copy(consumer: Any, producer: Any, spec: CopySpec, state: _Cursor, name: str, failures: list[str],
          on_flush: Any) -> int:
    produce_, remote, partition, end = positional_produce(producer), spec.remote_topic, spec.partition, spec.end
    copied = since_flush = 0
    for msgs in _messages(consumer, spec, name):
        for m in msgs:
            if m.error() is not None:
                continue
            offset = m.offset()
            if offset >= end:
                return copied
            _advance(state, offset)
            while True:
                try:
                    # No callback of its own: failures reach the bulk producer's `on_failure`.
                    produce_(remote, m.value(), m.key(), partition, None, None, m.timestamp()[1], m.headers())
                    break
                except BufferError:
                    producer.poll(0.05)
            copied += 1
        producer.poll(0)
        if failures:
            raise RangeCopyError(f"Kafka refused records copied from {name}: {failures[0]}")
        since_flush += len(msgs)
        if since_flush >= FLUSH_EVERY:
            since_flush = 0
            _flush(producer, failures, name)
            state.close()
            on_flush()
        if state.prev_upstream + 1 >= end:
            return copied
    return copied  # the range ends in offsets without data records


def _flush(producer: Any, failures: list[str], name: str) -> None:
    left = producer.flush(120)
    if failures:
        raise RangeCopyError(f"Kafka refused records copied from {name}: {failures[0]}")
    if left:
        raise RangeCopyError(f"{left} record(s) copied from {name} were not acknowledged within 120 s")


def _write_syncs(producer: Any, spec: CopySpec, syncs: list[OffsetSync], result: CopyResult) -> None:
    if producer is None or not syncs:
        syncs.clear()
        return
    for sync in syncs:
        produce(producer, spec.syncs_topic, sync.value(), key=sync.key(), partition=0, headers=sync.headers())
    if producer.flush(60):
        raise RangeCopyError(f"offset syncs for {spec.topic}-{spec.partition} were not acknowledged within 60 s")
    result.syncs += len(syncs)
    syncs.clear()
