"""From a consumed Kafka message to the SinkRecord a sink task is given (Connect's
WorkerSinkTask.convertAndTransformRecord): key, value and headers through the connector's converters,
then its transforms. Each step runs under the connector's error handling (a `ToleranceOperator`): a step
that fails within `errors.tolerance=all` yields None and the message is skipped (its offset still
committed once its dead-letter-queue write, if any, is acknowledged)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyconnect.api.connect_record import Header, Headers
from pyconnect.api.converter import Deserialize, HeaderConverter, SchemaAndValue
from pyconnect.api.sink import SinkRecord, TimestampType
from pyconnect.runtime.errors import ConsumedRecord, ProcessingContext, Stage, ToleranceOperator
from pyconnect.runtime.errors.tolerant_chain import apply_tolerantly
from pyconnect.transforms.chain import TransformationChain


@dataclass(frozen=True)
class SinkConverters:
    """A connector's converters for reading, with the class names error reports show."""

    key: Deserialize
    value: Deserialize
    headers: HeaderConverter
    key_class: str
    value_class: str
    header_class: str


class SinkRecordConversion:
    """Converts and transforms consumed messages for one sink task."""

    def __init__(self, converters: SinkConverters, chain: TransformationChain | None,
                 operator: ToleranceOperator) -> None:
        self._converters, self._chain, self.operator = converters, chain, operator

    def convert(self, message: Any) -> SinkRecord | None:
        """The record the task is given, or None if a tolerated failure or a transform dropped it."""
        c, execute, topic = self._converters, self.operator.execute, message.topic()
        context = ProcessingContext(ConsumedRecord.from_message(message))
        key = execute(Stage.KEY_CONVERTER, c.key_class, lambda: c.key(topic, message.key()), context)
        if key is None:
            return None
        value = execute(Stage.VALUE_CONVERTER, c.value_class, lambda: c.value(topic, message.value()), context)
        if value is None:
            return None
        headers = execute(Stage.HEADER_CONVERTER, c.header_class, lambda: self._headers(topic, message), context)
        if headers is None:
            return None
        record = self._record(message, key, value, headers)
        if self._chain is None:
            return record
        transformed = apply_tolerantly(self._chain, record, self.operator, context)
        if transformed is None or isinstance(transformed, SinkRecord):
            return transformed
        return _as_sink_record(transformed, record)

    def _headers(self, topic: str, message: Any) -> Headers:
        out = Headers()
        for key, data in message.headers() or ():
            converted = self._converters.headers.to_connect(topic, key, data)
            out.add_header(Header(key, converted.value, converted.schema))
        return out

    @staticmethod
    def _record(message: Any, key: SchemaAndValue, value: SchemaAndValue, headers: Headers) -> SinkRecord:
        kind, timestamp = message.timestamp()
        timestamp_type = TimestampType.of_message(kind)
        topic, partition, offset = message.topic(), message.partition(), message.offset()
        return SinkRecord(topic, partition, key.schema, key.value, value.schema, value.value,
                          None if timestamp_type is TimestampType.NO_TIMESTAMP_TYPE or timestamp < 0 else timestamp,
                          headers, offset, timestamp_type, topic, partition, offset)


def _as_sink_record(record: Any, original: SinkRecord) -> SinkRecord:
    """A transform that built a plain ConnectRecord: keep the sink fields of the record it was given."""
    return SinkRecord(record.topic, record.kafka_partition, record.key_schema, record.key, record.value_schema,
                      record.value, record.timestamp, record.headers, original.kafka_offset, original.timestamp_type,
                      original.original_topic, original.original_kafka_partition, original.original_kafka_offset)
