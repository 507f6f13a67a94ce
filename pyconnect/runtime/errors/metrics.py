"""`ErrorHandlingMetrics`: the counters of Connect's task-error-metrics group, for one task."""

from __future__ import annotations

import threading

from pyconnect.runtime.clock import SYSTEM_CLOCK, Clock


class ErrorHandlingMetrics:
    """Connect's ErrorHandlingMetrics as plain counters. Thread-safe: the DLQ producer's delivery
    thread records failures while the task's thread records the rest. `as_dict()` gives them under
    Connect's metric names (group `task-error-metrics`)."""

    def __init__(self, clock: Clock = SYSTEM_CLOCK) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self.total_record_failures = 0
        self.total_record_errors = 0
        self.total_records_skipped = 0
        self.total_retries = 0
        self.total_errors_logged = 0
        self.deadletterqueue_produce_requests = 0
        self.deadletterqueue_produce_failures = 0
        self.last_error_timestamp = 0  # epoch ms of the last failed operation, 0 before any

    def record_failure(self) -> None:
        """A failed attempt (retriable or not)."""
        with self._lock:
            self.total_record_failures += 1

    def record_error(self) -> None:
        """An operation that could not be executed successfully."""
        with self._lock:
            self.total_record_errors += 1

    def record_skipped(self) -> None:
        """A record skipped because its failure was tolerated."""
        with self._lock:
            self.total_records_skipped += 1

    def record_retry(self) -> None:
        """A retry of a failed operation."""
        with self._lock:
            self.total_retries += 1

    def record_error_logged(self) -> None:
        """An error written to the log by the LogReporter."""
        with self._lock:
            self.total_errors_logged += 1

    def record_dlq_produce_request(self) -> None:
        """A record sent to the dead letter queue."""
        with self._lock:
            self.deadletterqueue_produce_requests += 1

    def record_dlq_produce_failed(self) -> None:
        """A record the dead letter queue could not take."""
        with self._lock:
            self.deadletterqueue_produce_failures += 1

    def record_error_timestamp(self) -> None:
        """Now is the time of the last error."""
        with self._lock:
            self.last_error_timestamp = int(self._clock.time() * 1000)

    def as_dict(self) -> dict[str, int]:
        """The values under Connect's metric names."""
        with self._lock:
            return {
                "total-record-failures": self.total_record_failures,
                "total-record-errors": self.total_record_errors,
                "total-records-skipped": self.total_records_skipped,
                "total-retries": self.total_retries,
                "total-errors-logged": self.total_errors_logged,
                "deadletterqueue-produce-requests": self.deadletterqueue_produce_requests,
                "deadletterqueue-produce-failures": self.deadletterqueue_produce_failures,
                "last-error-timestamp": self.last_error_timestamp,
            }
