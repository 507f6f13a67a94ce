"""Reads what a topic-deletion decision rests on (connectors.mirror.topic_deletions): the flow's offset
syncs written since an offset, each partition's log start, and whether a range of a partition holds a
data record. Reads end at the partition's end as the fetch responses report it (PARTITION_EOF), not at
ListOffsets(latest), which some brokers get wrong for multi-record batches."""

from __future__ import annotations

import struct
import time
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from connectors.mirror.formats import OffsetSync
from pyconnect.kafka.clients import Consumer, KafkaClientError, assign, broker_watermarks, new_consumer
from pyconnect.kafka.errors import error_text, is_partition_eof

# upstream, downstream of each sync of one source partition, in the order written
SyncPoints = list[tuple[int, int]]


def _reader(conf: Mapping[str, str]) -> Consumer:
    # read_uncommitted: a record of an open or aborted transaction is someone's record too.
    return new_consumer({**conf, "enable.partition.eof": "true", "isolation.level": "read_uncommitted",
                         "auto.offset.reset": "earliest"})


def _drain(consumer: Consumer, topic: str, start: int, stop_at: int | None, timeout: float) -> list[Any]:
    """Data messages of partition 0.. of `topic` from `start` to the end (or before `stop_at`); stops at
    the first data message when `stop_at` is given (only existence matters then)."""
    out: list[Any] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for m in consumer.consume(500, 0.2):
            err = m.error()
            if err is not None:
                if is_partition_eof(err):
                    return out
                raise KafkaClientError(f"reading {topic}: {error_text(err)}")
            if stop_at is not None:
                return [m] if (m.offset() or 0) < stop_at else out
            out.append(m)
    raise KafkaClientError(f"could not read {topic} from offset {start} to its end within {timeout:.0f}s")


def syncs_end(conf: Mapping[str, str], topic: str, timeout: float = 10.0) -> int:
    """End offset of the offset-syncs topic (0 if it is empty or absent). A lower value than the true end
    only makes later reads include older syncs, which can only make the flow keep a topic."""
    consumer = _reader(conf)
    try:
        _low, high = broker_watermarks(consumer, topic, 0, timeout)
        return max(high, 0)
    finally:
        consumer.close()


def read_syncs(conf: Mapping[str, str], topic: str, start: int, source_topics: set[str],
               timeout: float = 60.0) -> dict[tuple[str, int], SyncPoints]:
    """The syncs of `source_topics` in the offset-syncs topic from offset `start`, per source partition."""
    consumer = _reader(conf)
    try:
        assign(consumer, [(topic, 0, start)])
        out: dict[tuple[str, int], SyncPoints] = defaultdict(list)
        for m in _drain(consumer, topic, start, None, timeout):
            try:
                sync = OffsetSync.decode(m.key() or b"", m.value() or b"", m.headers())
            except (ValueError, struct.error, UnicodeDecodeError):  # not a sync: not evidence
                continue
            if sync.topic in source_topics:
                out[(sync.topic, sync.partition)].append((sync.upstream_offset, sync.downstream_offset))
        return dict(out)
    finally:
        consumer.close()


def log_start(conf: Mapping[str, str], topic: str, partition: int, timeout: float = 10.0) -> int:
    """The partition's log start offset (records below it are gone)."""
    consumer = _reader(conf)
    try:
        low, _high = broker_watermarks(consumer, topic, partition, timeout)
        return max(low, 0)
    finally:
        consumer.close()


def first_record(conf: Mapping[str, str], topic: str, partition: int, start: int, end: int | None,
                 timeout: float = 60.0) -> int | None:
    """Offset of the first data record (not a transaction marker) of the partition in [start, end)
    (`end` None: to the partition's end), or None."""
    consumer = _reader(conf)
    try:
        assign(consumer, [(topic, partition, start)])
        found = _drain(consumer, topic, start, end if end is not None else 2**62, timeout)
        return int(found[0].offset()) if found else None
    finally:
        consumer.close()
