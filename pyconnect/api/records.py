"""Records passed from source tasks to the runtime."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from pyconnect.api.data import Schema

Header = tuple[str, bytes | None]
# Source partitions and offsets are maps of primitives, stored as JSON in the offsets topic.
SourcePartition = Mapping[str, Any]
SourceOffset = Mapping[str, Any]


class SourceRecord(NamedTuple):
    """One record to write to Kafka.

    `source_partition`/`source_offset` say where in the external system the record came from;
    the runtime commits the offset once the record (and every earlier record of the same
    source partition) is acknowledged by Kafka. `partition=None` lets the producer choose
    (murmur2 on the key, as Java clients do). `key`/`value` are bytes, or str/JSON-able objects
    that the worker's converters turn into bytes. `key_schema`/`value_schema` are the Connect schemas
    of key and value (e.g. `STRING_SCHEMA`, or a struct's schema with a `Struct` value); None lets the
    converter infer one from the value's type.

    A NamedTuple: immutable, slot-free and the cheapest record object CPython can build, which
    matters on the per-record path.
    """

    source_partition: SourcePartition
    source_offset: SourceOffset
    topic: str
    value: Any
    key: Any = None
    partition: int | None = None
    timestamp: int | None = None
    headers: Sequence[Header] | None = None
    key_schema: Schema | None = None
    value_schema: Schema | None = None


class MessageRun(NamedTuple):
    """Consecutive Kafka messages of one source partition, bound for one target partition.

    What a `MessageRunTask` (a task that copies Kafka records as they are, like the mirror) hands
    the runtime instead of one `SourceRecord` per record. `messages` are consumer messages (objects
    with `key()`, `value()`, `timestamp()`, `headers()`, `offset()` and `len()`, such as
    `confluent_kafka.Message`), in source order; each is written to `topic`/`partition` with its key,
    value, timestamp and headers. The source offset of a message is `{"offset": message.offset()}`
    (MM2's format); the runtime commits the last acknowledged one per `source_partition`.
    """

    source_partition: SourcePartition
    topic: str
    partition: int
    messages: Sequence[Any]
