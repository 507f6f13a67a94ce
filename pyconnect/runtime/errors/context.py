"""`ProcessingContext`: what one record's processing went through, for the error reporters.

Connect's ProcessingContext<T> holds the original record (the consumed Kafka message of a sink, or
the source task's record), the stage and class executing, the attempts made and the last error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pyconnect.api.records import Header, SourceRecord
from pyconnect.api.sink import TimestampType as TimestampType  # re-exported
from pyconnect.runtime.errors.stage import Stage

NO_TIMESTAMP = -1  # Java's RecordBatch.NO_TIMESTAMP


@dataclass(frozen=True)
class ConsumedRecord:
    """A raw message a sink consumed (Connect's ConsumerRecord<byte[], byte[]>), as it came from Kafka."""

    topic: str
    partition: int
    offset: int
    key: bytes | None = None
    value: bytes | None = None
    headers: Sequence[Header] = ()
    timestamp: int = NO_TIMESTAMP
    timestamp_type: TimestampType = TimestampType.NO_TIMESTAMP_TYPE

    @classmethod
    def from_message(cls, message: Any) -> ConsumedRecord:
        """From a confluent-kafka `Message` (duck-typed: topic(), partition(), offset(), key(), value(),
        headers(), timestamp())."""
        ts_type, ts = message.timestamp()
        kind = TimestampType.of_message(ts_type)
        return cls(message.topic(), message.partition(), message.offset(), message.key(), message.value(),
                   tuple(message.headers() or ()),
                   ts if kind is not TimestampType.NO_TIMESTAMP_TYPE else NO_TIMESTAMP, kind)


Original = ConsumedRecord | SourceRecord


def class_name(executing: type | str | None) -> str:
    """The name written for an executing class: a string as given (a Java class name, such as a
    configured converter's), a Python class as `module.QualName`, none as Java's "null"."""
    if executing is None:
        return "null"
    if isinstance(executing, str):
        return executing
    return f"{executing.__module__}.{executing.__qualname__}"


@dataclass
class ProcessingContext:
    """One record's processing state. Not thread-safe: one thread works on a context at a time.

    `original` is the ConsumedRecord of a sink, the SourceRecord (before transforms) of a source, or
    None when the failure belongs to no one record."""

    original: Original | None = None
    stage: Stage | None = None
    executing_class: type | str | None = None
    attempt: int = 0
    error: BaseException | None = field(default=None)

    def current(self, stage: Stage, executing_class: type | str | None) -> None:
        """Connect's currentContext: the stage and class about to run."""
        self.stage = stage
        self.executing_class = executing_class

    @property
    def failed(self) -> bool:
        """The last operation ended in an error."""
        return self.error is not None

    @property
    def consumed(self) -> ConsumedRecord | None:
        """The consumed Kafka message, on the sink side."""
        return self.original if isinstance(self.original, ConsumedRecord) else None

    @property
    def source_record(self) -> SourceRecord | None:
        """The source task's record, on the source side."""
        return self.original if isinstance(self.original, SourceRecord) else None
