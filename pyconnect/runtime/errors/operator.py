"""`ToleranceOperator`: runs one step of a record's processing with Connect's retries and error
tolerance (Connect's RetryWithToleranceOperator, KIP-298).

An operation that raises a RetriableException is tried again after an exponential backoff (300 ms,
doubling, at most `errors.retry.delay.max.ms` and then a random delay below it), for as long as
`errors.retry.timeout` allows (-1: for ever). Other exceptions are not retried. A failure that is
tolerated (`errors.tolerance=all`, and an exception the stage may tolerate: any in converters and
transformations, a RetriableException elsewhere) is counted, reported (log, DLQ) and `execute`
returns None so that the caller skips the record. Otherwise `execute` raises a ConnectException
chained to the failure: "Unhandled exception in error handler" for an exception the stage never
tolerates, "Tolerance exceeded in error handler" under `errors.tolerance=none`.

Unlike Java's, which returns null under `errors.tolerance=none` when retries run out (or the task
stops during a backoff) and so skips the record, this operator raises "Tolerance exceeded in error
handler" then too: with tolerance none no record is ever skipped.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from pyconnect.api.errors import ConnectException, RetriableException
from pyconnect.runtime.clock import SYSTEM_CLOCK, Clock
from pyconnect.runtime.errors.context import ProcessingContext
from pyconnect.runtime.errors.futures import ErrantFutures, ErrantRecordFuture
from pyconnect.runtime.errors.metrics import ErrorHandlingMetrics
from pyconnect.runtime.errors.reporter import ErrorReporter
from pyconnect.runtime.errors.settings import ErrorSettings
from pyconnect.runtime.errors.stage import TOLERATE_ANY_EXCEPTION, Stage, ToleranceType

log = logging.getLogger(__name__)

V = TypeVar("V")
RETRIES_DELAY_MIN_MS = 300
TOLERANCE_EXCEEDED = "Tolerance exceeded in error handler"
UNHANDLED = "Unhandled exception in error handler"


class ToleranceOperator:
    """One task's operator. `execute` is called from the task's thread; `trigger_stop` from any."""

    def __init__(self, settings: ErrorSettings, metrics: ErrorHandlingMetrics | None = None,
                 reporters: Sequence[ErrorReporter] = (), clock: Clock = SYSTEM_CLOCK,
                 rng: random.Random | None = None) -> None:
        self.settings = settings
        self.metrics = metrics or ErrorHandlingMetrics(clock)
        self.reporters: list[ErrorReporter] = list(reporters)
        self.pending = ErrantFutures()  # DLQ writes of consumed records, awaited before offsets commit
        self._clock = clock
        self._rng = rng or random.Random()
        self._total_failures = 0
        self._lock = threading.Lock()
        self._stop = threading.Condition()
        self._stopping = False

    def execute(self, stage: Stage, executing_class: type | str | None, operation: Callable[[], V],
                context: ProcessingContext) -> V | None:
        """Run `operation()` for `context`'s record; its result, or None when it failed and the failure is
        tolerated (the caller skips the record). A context that already failed runs nothing (None)."""
        context.current(stage, executing_class)
        if context.failed:
            log.debug("ProcessingContext is already in failed state. Ignoring requested operation.")
            return None
        tolerated: type[Exception] = Exception if stage in TOLERATE_ANY_EXCEPTION else RetriableException
        try:
            return self._exec_and_handle_error(context, operation, tolerated)
        finally:
            if context.failed:  # reported whether tolerated or not, as Java does
                self.metrics.record_error()
                self.report(context)

    def execute_failed(self, context: ProcessingContext, stage: Stage, executing_class: type | str | None,
                       error: BaseException) -> ErrantRecordFuture:
        """An operation that failed outside `execute` (a sink task's errant record reporter, a failed
        produce): count and report it; raise "Tolerance exceeded in error handler" unless tolerated.
        Returns the report's future."""
        self._mark_as_failed()
        context.current(stage, executing_class)
        context.error = error
        self.metrics.record_failure()
        future = self.report(context)
        if not self.within_tolerance_limits():
            self.metrics.record_error()
            raise ConnectException(TOLERANCE_EXCEEDED) from error
        return future

    def report(self, context: ProcessingContext) -> ErrantRecordFuture:
        """Hand `context` to every reporter; a consumed record's pending DLQ write is tracked by its
        topic-partition in `pending`."""
        futures = [f for f in (r.report(context) for r in self.reporters) if f is not None]
        aggregate = ErrantRecordFuture(futures)
        consumed = context.consumed
        if consumed is not None:
            self.pending.add((consumed.topic, consumed.partition), aggregate)
        return aggregate

    def _exec_and_handle_error(self, context: ProcessingContext, operation: Callable[[], V],
                               tolerated: type[Exception]) -> V | None:
        try:
            result = self._exec_and_retry(context, operation)
        except Exception as exc:
            self.metrics.record_failure()
            self._mark_as_failed()
            context.error = exc
            if not isinstance(exc, tolerated):
                raise ConnectException(UNHANDLED) from exc
            if not self.within_tolerance_limits():
                raise ConnectException(TOLERANCE_EXCEEDED) from exc
            self.metrics.record_skipped()
            return None
        if context.failed:  # retries ran out, or the task is stopping
            self._mark_as_failed()
            if not self.within_tolerance_limits():
                raise ConnectException(TOLERANCE_EXCEEDED) from context.error
            self.metrics.record_skipped()
        return result

    def _exec_and_retry(self, context: ProcessingContext, operation: Callable[[], V]) -> V | None:
        attempt = 0
        timeout = self.settings.retry_timeout_ms
        deadline = self._now_ms() + timeout if timeout >= 0 else float("inf")
        while True:
            attempt += 1
            context.attempt = attempt
            try:
                return operation()
            except RetriableException as exc:
                log.debug("Caught a retriable exception while executing %s operation with %s",
                          context.stage, context.executing_class)
                self.metrics.record_failure()
                if self._now_ms() >= deadline:
                    context.error = exc
                    return None
                self.backoff(attempt, deadline)
                self.metrics.record_retry()
                if self._stopping:
                    log.debug("Shutdown has been scheduled. Marking operation as failed.")
                    context.error = exc
                    return None

    def backoff(self, attempt: int, deadline: float) -> None:
        """Wait before retry `attempt` (from 1): 300 ms doubled per attempt, a random delay below
        `errors.retry.delay.max.ms` past that, never beyond `deadline` (ms); cut short by trigger_stop."""
        delay = RETRIES_DELAY_MIN_MS << (attempt - 1)
        max_delay = self.settings.retry_delay_max_ms
        if delay > max_delay:
            delay = self._rng.randrange(max_delay) if max_delay > 0 else 0  # jitter (thundering herd)
        now = self._now_ms()
        if delay + now > deadline:
            delay = int(max(0, deadline - now))
        log.debug("Sleeping for up to %d millis", delay)
        with self._stop:
            self._clock.wait_for(self._stop, lambda: self._stopping, delay / 1000.0)

    def trigger_stop(self) -> None:
        """The task is stopping: no more retries; a backoff under way ends now (its operation fails)."""
        with self._stop:
            self._stopping = True
            self._stop.notify_all()

    def within_tolerance_limits(self) -> bool:
        """No failure yet, or errors.tolerance=all."""
        with self._lock:
            return self.settings.tolerance is ToleranceType.ALL or self._total_failures == 0

    def _mark_as_failed(self) -> None:
        self.metrics.record_error_timestamp()
        with self._lock:
            self._total_failures += 1

    def _now_ms(self) -> int:
        return round(self._clock.monotonic() * 1000)

    def close(self) -> None:
        """Close every reporter (all of them, even when one fails); raise ConnectException if any failed."""
        failures: list[BaseException] = []
        for reporter in self.reporters:
            try:
                reporter.close()
            except Exception as exc:
                failures.append(exc)
        self.reporters = []
        if failures:
            raise ConnectException(f"Failed to close all reporters: {failures}") from failures[0]

