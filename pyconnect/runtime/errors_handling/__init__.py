"""Connect's error handling for tasks (KIP-298): retries, tolerance, the error log and the dead
letter queue. `pyconnect.runtime.errors` is something else: the REST layer's herder errors."""

from pyconnect.runtime.errors_handling.config_keys import DLQ_KEYS, ERROR_KEYS, SINK_ERROR_KEYS
from pyconnect.runtime.errors_handling.context import ConsumedRecord, ProcessingContext, TimestampType
from pyconnect.runtime.errors_handling.dlq_reporter import (
    DeadLetterQueueReporter,
    create_dlq_reporter,
    ensure_dlq_topic,
)
from pyconnect.runtime.errors_handling.dlq_validation import dlq_errors
from pyconnect.runtime.errors_handling.futures import ErrantFutures, ErrantRecordFuture
from pyconnect.runtime.errors_handling.log_reporter import LogReporter
from pyconnect.runtime.errors_handling.metrics import ErrorHandlingMetrics
from pyconnect.runtime.errors_handling.operator import ToleranceOperator
from pyconnect.runtime.errors_handling.reporter import ErrorReporter
from pyconnect.runtime.errors_handling.settings import ErrorSettings
from pyconnect.runtime.errors_handling.stage import Stage, ToleranceType
from pyconnect.runtime.errors_handling.task_reporters import sink_task_reporters, source_task_reporters

__all__ = [
    "DLQ_KEYS", "ERROR_KEYS", "SINK_ERROR_KEYS", "ConsumedRecord", "ProcessingContext", "TimestampType",
    "DeadLetterQueueReporter", "create_dlq_reporter", "ensure_dlq_topic", "dlq_errors", "ErrantFutures",
    "ErrantRecordFuture", "LogReporter", "ErrorHandlingMetrics", "ToleranceOperator", "ErrorReporter",
    "ErrorSettings", "Stage", "ToleranceType", "sink_task_reporters", "source_task_reporters",
]
