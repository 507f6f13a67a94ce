"""`LogReporter`: errors and where they happened, in the application log (`errors.log.enable`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from typing import Any

from pyconnect.api.records import Header, SourceRecord
from pyconnect.api.task_id import TaskId
from pyconnect.runtime.errors.context import (
    ConsumedRecord,
    ProcessingContext,
    TimestampType,
    class_name,
)
from pyconnect.runtime.errors.metrics import ErrorHandlingMetrics
from pyconnect.runtime.errors.settings import ErrorSettings

log = logging.getLogger(__name__)


def _java(value: Any) -> str:
    """A value as Java's toString shows it (null, {k=v}, [a, b])."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}={_java(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_java(v) for v in value) + "]"
    if isinstance(value, bytes):
        return repr(value)
    return str(value)


def _headers(headers: Sequence[Header] | None) -> str:
    items = [f"ConnectHeader(key={k}, value={_java(v)}, schema=null)" for k, v in headers or ()]
    return "ConnectHeaders(headers=" + ", ".join(items) + ")"


def source_record_text(record: SourceRecord) -> str:
    """Connect's SourceRecord.toString (this runtime's records carry no schemas: `null`)."""
    return (f"SourceRecord{{sourcePartition={_java(record.source_partition)}, "
            f"sourceOffset={_java(record.source_offset)}}} "
            f"ConnectRecord{{topic='{record.topic}', kafkaPartition={_java(record.partition)}, "
            f"key={_java(record.key)}, keySchema=null, value={_java(record.value)}, valueSchema=null, "
            f"timestamp={_java(record.timestamp)}, headers={_headers(record.headers)}}}")


def consumed_record_text(msg: ConsumedRecord) -> str:
    """LogReporter.Sink.appendMessage: where the record was, never its key, value or headers."""
    text = f"{{topic='{msg.topic}', partition={msg.partition}, offset={msg.offset}"
    if msg.timestamp_type is not TimestampType.NO_TIMESTAMP_TYPE:
        text += f", timestamp={msg.timestamp}, timestampType={msg.timestamp_type.value}"
    return text + "}"


class LogReporter:
    """Logs each failure at ERROR, with its traceback, when `errors.log.enable` is set; with
    `errors.log.include.messages` also the record (a sink's: topic, partition, offset and timestamp;
    a source's: the whole record, key and value included)."""

    def __init__(self, task_id: TaskId, settings: ErrorSettings, metrics: ErrorHandlingMetrics) -> None:
        self._id = task_id
        self._settings = settings
        self._metrics = metrics

    def report(self, context: ProcessingContext) -> Future[None] | None:
        """Log the failure in `context` (nothing when logging is off or nothing failed)."""
        if not self._settings.log_enable or not context.failed:
            return None
        error = context.error
        log.error(self.message(context),
                  exc_info=(type(error), error, error.__traceback__) if error is not None else None)
        self._metrics.record_error_logged()
        return None

    def message(self, context: ProcessingContext) -> str:
        """LogReporter.message: "Error encountered in task <id>. Executing stage '<stage>' with class
        '<class>'[, where ... record is ...]." """
        stage = context.stage.value if context.stage is not None else "null"
        text = (f"Error encountered in task {self._id}. Executing stage '{stage}' with class "
                f"'{class_name(context.executing_class)}'")
        if self._settings.log_include_messages:
            if isinstance(context.original, SourceRecord):
                text += ", where source record is = " + source_record_text(context.original)
            elif isinstance(context.original, ConsumedRecord):
                text += ", where consumed record is " + consumed_record_text(context.original)
        return text + "."

    def close(self) -> None:
        """Nothing to release."""
