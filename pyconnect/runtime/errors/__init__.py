"""Connect's error handling for tasks (KIP-298): retries, tolerance, the error log and the dead
letter queue. `pyconnect.runtime.herder.request_errors` is something else: the REST layer's herder errors."""

from pyconnect.runtime.errors.config_keys import DLQ_KEYS, ERROR_KEYS, SINK_ERROR_KEYS
from pyconnect.runtime.errors.context import ConsumedRecord, ProcessingContext, TimestampType
from pyconnect.runtime.errors.dlq_reporter import (
    DeadLetterQueueReporter,
    create_dlq_reporter,
    ensure_dlq_topic,
)
from pyconnect.runtime.errors.dlq_validation import dlq_errors
from pyconnect.runtime.errors.futures import ErrantFutures, ErrantRecordFuture
from pyconnect.runtime.errors.log_reporter import LogReporter
from pyconnect.runtime.errors.metrics import ErrorHandlingMetrics
from pyconnect.runtime.errors.operator import ToleranceOperator
from pyconnect.runtime.errors.reporter import ErrorReporter
from pyconnect.runtime.errors.settings import ErrorSettings
from pyconnect.runtime.errors.stage import Stage, ToleranceType
from pyconnect.runtime.errors.task_reporters import sink_task_reporters, source_task_reporters

__all__ = [
    "DLQ_KEYS", "ERROR_KEYS", "SINK_ERROR_KEYS", "ConsumedRecord", "ProcessingContext", "TimestampType",
    "DeadLetterQueueReporter", "create_dlq_reporter", "ensure_dlq_topic", "dlq_errors", "ErrantFutures",
    "ErrantRecordFuture", "LogReporter", "ErrorHandlingMetrics", "ToleranceOperator", "ErrorReporter",
    "ErrorSettings", "Stage", "ToleranceType", "sink_task_reporters", "source_task_reporters",
]
