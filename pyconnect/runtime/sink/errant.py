"""The errant record reporter a sink task gets (Connect's WorkerErrantRecordReporter, KIP-610): a record
the task could not write goes through the connector's error handling as a TASK_PUT failure, with the
message it was read from, so the dead letter queue receives the original bytes and headers."""

from __future__ import annotations

from typing import Any

from pyconnect.api.sink import ReportFuture, SinkRecord
from pyconnect.runtime.errors import ConsumedRecord, ProcessingContext, Stage, ToleranceOperator

SINK_TASK = "org.apache.kafka.connect.sink.SinkTask"

MessageKey = tuple[str, int, int]  # topic, partition, offset as read


class WorkerErrantRecordReporter:
    """Reports a task's failed records; the consumed messages of recent batches are kept by their
    coordinates so the report carries what Kafka held (Connect keeps the ConsumerRecord likewise)."""

    def __init__(self, operator: ToleranceOperator, keep_batches: int = 2) -> None:
        self._operator = operator
        self._batches: list[dict[MessageKey, Any]] = [{} for _ in range(keep_batches)]

    def new_batch(self, messages: list[Any]) -> None:
        """The messages of the batch about to be put (older batches are forgotten)."""
        self._batches = [{(m.topic(), m.partition(), m.offset()): m for m in messages if m.error() is None},
                         *self._batches[:-1]]

    def report(self, record: SinkRecord, error: BaseException) -> ReportFuture:
        topic = record.original_topic or record.topic or ""
        partition = record.original_kafka_partition if record.original_kafka_partition is not None \
            else (record.kafka_partition or 0)
        offset = record.original_kafka_offset if record.original_kafka_offset is not None \
            else (record.kafka_offset or 0)
        message = next((b[(topic, partition, offset)] for b in self._batches if (topic, partition, offset) in b), None)
        consumed = ConsumedRecord.from_message(message) if message is not None else ConsumedRecord(
            topic, partition, offset, _bytes(record.key), _bytes(record.value))
        return self._operator.execute_failed(ProcessingContext(consumed), Stage.TASK_PUT, SINK_TASK, error)


def _bytes(value: Any) -> bytes | None:
    """A record no longer in memory is reported with its key and value as bytes where they are bytes or
    text (a converter would be needed to do better)."""
    if value is None or isinstance(value, bytes):
        return value
    return str(value).encode("utf-8")
