"""The sink SPI, shaped like Kafka Connect's: a `SinkConnector` splits the work, each `SinkTask` receives
records read from Kafka in `put` and writes them to an external system.

The runtime owns the consumer (group `connect-<connector name>`), converts each message with the
connector's converters, applies its transforms and commits the group's offsets. A task sees its share of
the partitions through `open`/`close` and may steer consumption through its `SinkTaskContext`.

Offsets: after `put` returned records up to offset `o` of a partition, the runtime may commit `o + 1`
(the next record to read) once `pre_commit` says so. The default `pre_commit` calls `flush` and commits
everything put so far, as Connect's does: a task that writes synchronously in `put` needs nothing more,
and a task that buffers must write its buffer in `flush`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple, Protocol

from pyconnect.api.connect_record import ConnectRecord
from pyconnect.api.connector import Connector
from pyconnect.api.plugin_version import plugin_version


class TopicPartition(NamedTuple):
    """One partition of a Kafka topic."""

    topic: str
    partition: int


class TimestampType(StrEnum):
    """Kafka's TimestampType, as Connect's SinkRecord carries it."""

    NO_TIMESTAMP_TYPE = "NoTimestampType"
    CREATE_TIME = "CreateTime"
    LOG_APPEND_TIME = "LogAppendTime"

    @classmethod
    def of_message(cls, code: int) -> TimestampType:
        """From a consumed message's timestamp type (librdkafka's 0 none, 1 create time, 2 log-append time)."""
        return (cls.NO_TIMESTAMP_TYPE, cls.CREATE_TIME, cls.LOG_APPEND_TIME)[code] if 0 <= code <= 2 \
            else cls.NO_TIMESTAMP_TYPE


@dataclass(frozen=True)
class SinkRecord(ConnectRecord):
    """A record read from Kafka (Connect's SinkRecord): `kafka_offset` is its offset, and the `original_*`
    fields say where it was read, whatever transforms did to topic and partition since (KIP-793)."""

    timestamp_type: TimestampType = TimestampType.CREATE_TIME
    original_topic: str | None = None
    original_kafka_partition: int | None = None
    original_kafka_offset: int | None = None


class ReportFuture(Protocol):
    """The outcome of one errant-record report (Connect returns a Future<Void>)."""

    def done(self) -> bool:
        """The report has completed."""

    def result(self, timeout: float | None = None) -> None:
        """Wait for the report; raise if it failed (e.g. the dead letter queue refused the record)."""


class ErrantRecordReporter(Protocol):
    """Connect's ErrantRecordReporter: a task reports a record it cannot write (KIP-610)."""

    def report(self, record: SinkRecord, error: BaseException) -> ReportFuture:
        """Hand the record to the connector's error handling (errors.tolerance, log, dead-letter queue).
        The result completes when the report is durable (the DLQ write acknowledged); the runtime waits
        for every report before it commits the record's offset. With `errors.tolerance=none` it raises."""


class SinkTaskContext(Protocol):
    """What a running sink task may ask of the runtime (Connect's SinkTaskContext)."""

    @property
    def configs(self) -> Mapping[str, str]:
        """The task's configuration."""

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        """Reset the consumer to these offsets (the next record each partition delivers), e.g. to resume
        from offsets the external system stored. Applied before the next `put`."""

    def timeout(self, timeout_ms: int) -> None:
        """After a RetriableException from `put`, wait this long before the same records are put again."""

    def assignment(self) -> set[TopicPartition]:
        """The partitions this task currently owns."""

    def pause(self, *partitions: TopicPartition) -> None:
        """Stop fetching these partitions until `resume` (their records already put are unaffected)."""

    def resume(self, *partitions: TopicPartition) -> None:
        """Fetch these partitions again."""

    def request_commit(self) -> None:
        """Ask for an offset commit as soon as possible (after the current `put`)."""

    @property
    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        """The reporter of records the task cannot write; None if the runtime has none (it always has)."""


class SinkTask(ABC):
    """Writes records to an external system; every method is called on the task's own thread, except
    `stop` in the sense that the runtime calls it once the loop ended."""

    context: SinkTaskContext | None = None

    def initialize(self, context: SinkTaskContext) -> None:
        self.context = context

    def version(self) -> str:
        """The version of the distribution providing this class (pyconnect.api.plugin_version)."""
        return plugin_version(type(self))

    @abstractmethod
    def start(self, config: Mapping[str, str]) -> None:
        """Start with the task configuration produced by the connector."""

    @abstractmethod
    def put(self, records: Sequence[SinkRecord]) -> None:
        """Write (or buffer) these records. Raise `RetriableException` to have the same records put again
        after `context.timeout`; any other exception fails the task."""

    def flush(self, current_offsets: Mapping[TopicPartition, int]) -> None:  # noqa: B027 - optional hook
        """Make durable everything put so far (`current_offsets` are the offsets about to be committed)."""

    def pre_commit(self, current_offsets: Mapping[TopicPartition, int]) -> Mapping[TopicPartition, int]:
        """The offsets the runtime may commit (each the next offset to read). The default flushes and
        commits everything put; a task that writes asynchronously returns what it has made durable."""
        self.flush(current_offsets)
        return current_offsets

    def open(self, partitions: Sequence[TopicPartition]) -> None:  # noqa: B027 - optional hook
        """These partitions were assigned to this task (before any of their records is put)."""

    def close(self, partitions: Sequence[TopicPartition]) -> None:  # noqa: B027 - optional hook
        """These partitions were taken away (after their offsets were committed); drop their state."""

    @abstractmethod
    def stop(self) -> None:
        """Release resources; called once, after the last `close`."""


class SinkConnector(Connector, ABC):
    """A connector whose tasks write records read from Kafka (keys `topics` or `topics.regex`)."""

    connector_type = "sink"

    @abstractmethod
    def task_class(self) -> type[SinkTask]:
        """The sink task implementation."""
