"""The error reporters of a task, as Connect's Worker.sinkTaskReporters / sourceTaskReporters build them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.task_id import TaskId
from pyconnect.runtime.errors.dlq_reporter import create_dlq_reporter
from pyconnect.runtime.errors.log_reporter import LogReporter
from pyconnect.runtime.errors.metrics import ErrorHandlingMetrics
from pyconnect.runtime.errors.reporter import ErrorReporter
from pyconnect.runtime.errors.settings import ErrorSettings


def sink_task_reporters(task_id: TaskId, settings: ErrorSettings, metrics: ErrorHandlingMetrics,
                        admin_config: Mapping[str, str], producer_config: Mapping[str, Any]) -> list[ErrorReporter]:
    """A DLQ reporter when `errors.deadletterqueue.topic.name` is set (its topic created if missing;
    ConnectException when it cannot be), then the log reporter (which logs only with `errors.log.enable`)."""
    reporters: list[ErrorReporter] = []
    if settings.dlq_enabled:
        reporters.append(create_dlq_reporter(admin_config, producer_config, task_id, settings, metrics))
    reporters.append(LogReporter(task_id, settings, metrics))
    return reporters


def source_task_reporters(task_id: TaskId, settings: ErrorSettings,
                          metrics: ErrorHandlingMetrics) -> list[ErrorReporter]:
    """The log reporter: a source has no dead letter queue."""
    return [LogReporter(task_id, settings, metrics)]
