"""ToleranceOperator: Connect's RetryWithToleranceOperatorTest, ported (each case names its source)."""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import Future
from typing import Any

import pytest

from pyconnect.api.errors import ConnectException, RetriableException
from pyconnect.runtime.clock import SYSTEM_CLOCK
from pyconnect.runtime.errors import (
    ConsumedRecord,
    ErrorSettings,
    ProcessingContext,
    Stage,
    ToleranceOperator,
    ToleranceType,
)
from tests.unit.errors_fakes import StepClock

ALL, NONE = ToleranceType.ALL, ToleranceType.NONE
RECORD = ConsumedRecord("t", 0, 0)


def operator(timeout: int = 0, tolerance: ToleranceType = ALL, max_delay: int = 60000,
             clock: Any = None, reporters: Any = ()) -> ToleranceOperator:
    settings = ErrorSettings(tolerance=tolerance, retry_timeout_ms=timeout, retry_delay_max_ms=max_delay)
    return ToleranceOperator(settings, reporters=reporters, clock=clock or StepClock(), rng=random.Random(1))


class Failing:
    """An operation that raises `error` `times` times, then returns "Success"."""

    def __init__(self, error: Exception, times: int) -> None:
        self.error, self.times, self.calls = error, times, 0

    def __call__(self) -> str:
        self.calls += 1
        if self.calls <= self.times:
            raise self.error
        return "Success"


def raiser(exc: Exception) -> Any:
    def run() -> Any:
        raise exc
    return run


def test_execute_failed_tolerated() -> None:
    """RetryWithToleranceOperatorTest.testExecuteFailed"""
    op = operator(tolerance=ALL)
    future = op.execute_failed(ProcessingContext(RECORD), Stage.TASK_PUT, "org.apache.kafka.connect.sink.SinkTask",
                               Exception())
    assert future.done()
    assert op.metrics.total_record_failures == 1 and op.metrics.total_record_errors == 0


def test_execute_failed_no_tolerance() -> None:
    """RetryWithToleranceOperatorTest.testExecuteFailedNoTolerance"""
    cause = Exception("boom")
    with pytest.raises(ConnectException, match="^Tolerance exceeded in error handler$") as info:
        operator(tolerance=NONE).execute_failed(ProcessingContext(RECORD), Stage.TASK_PUT, None, cause)
    assert info.value.__cause__ is cause


@pytest.mark.parametrize("stage, error", [
    (Stage.TRANSFORMATION, Exception()),  # testHandleExceptionInTransformations
    (Stage.HEADER_CONVERTER, Exception()),  # testHandleExceptionInHeaderConverter
    (Stage.VALUE_CONVERTER, Exception()),  # testHandleExceptionInValueConverter
    (Stage.KEY_CONVERTER, Exception()),  # testHandleExceptionInKeyConverter
    (Stage.TASK_PUT, RetriableException("Test")),  # testHandleExceptionInTaskPut
    (Stage.TASK_POLL, RetriableException("Test")),  # testHandleExceptionInTaskPoll
])
def test_handle_exception_in_stage(stage: Stage, error: Exception) -> None:
    """RetryWithToleranceOperatorTest.testHandleExceptionIn*: tolerance all skips the record."""
    op = operator(tolerance=ALL)
    context = ProcessingContext(RECORD)
    assert op.execute(stage, ToleranceOperator, raiser(error), context) is None
    assert context.failed and context.error is error
    assert op.metrics.total_records_skipped == 1 and op.metrics.total_record_errors == 1


@pytest.mark.parametrize("stage", [Stage.TASK_PUT, Stage.TASK_POLL, Stage.KAFKA_CONSUME, Stage.KAFKA_PRODUCE])
def test_throw_exception_in_stage(stage: Stage) -> None:
    """RetryWithToleranceOperatorTest.testThrowExceptionIn{TaskPut,TaskPoll,KafkaConsume,KafkaProduce}:
    outside converters and transformations only a RetriableException is tolerated."""
    error = Exception("not retriable")
    context = ProcessingContext(RECORD)
    with pytest.raises(ConnectException, match="^Unhandled exception in error handler$") as info:
        operator(tolerance=ALL).execute(stage, ToleranceOperator, raiser(error), context)
    assert info.value.__cause__ is error and context.failed


@pytest.mark.parametrize("stage, error", [
    (Stage.KEY_CONVERTER, Exception("bad")), (Stage.VALUE_CONVERTER, Exception("bad")),
    (Stage.HEADER_CONVERTER, Exception("bad")), (Stage.TRANSFORMATION, Exception("bad")),
    (Stage.TASK_PUT, RetriableException("bad")), (Stage.TASK_POLL, RetriableException("bad")),
])
def test_tolerance_none_fails_every_stage(stage: Stage, error: Exception) -> None:
    """RetryWithToleranceOperatorTest.testHandleExceptionIn* with ToleranceType.NONE (Java's noopOperator):
    the first failure exceeds the tolerance, chained to its cause, and is still reported."""
    reported: list[ProcessingContext] = []

    class Recorder:
        def report(self, context: ProcessingContext) -> None:
            reported.append(context)

        def close(self) -> None:
            pass

    op = operator(tolerance=NONE, reporters=[Recorder()])
    context = ProcessingContext(RECORD)
    with pytest.raises(ConnectException, match="^Tolerance exceeded in error handler$") as info:
        op.execute(stage, ToleranceOperator, raiser(error), context)
    assert info.value.__cause__ is error
    assert reported == [context] and op.metrics.total_record_errors == 1


def test_success_returns_the_result() -> None:
    """RetryWithToleranceOperatorTest.execAndHandleRetriableError (no failure)."""
    op = operator()
    context = ProcessingContext(RECORD)
    assert op.execute(Stage.KEY_CONVERTER, "x", lambda: 42, context) == 42
    assert not context.failed and context.attempt == 1 and op.metrics.total_record_failures == 0


@pytest.mark.parametrize("timeout, failures, waits, success", [
    (6000, 1, [300], True),  # testExecAndHandleRetriableErrorOnce
    (6000, 3, [300, 600, 1200], True),  # testExecAndHandleRetriableErrorThrice
    (-1, 8, [300, 600, 1200, 2400, 4800, 9600, 19200, 38400], True),  # ...WithInfiniteRetries
    (6000, 6, [300, 600, 1200, 2400, 1500], False),  # ...WithMaxRetriesExceeded
])
def test_exec_and_handle_retriable_error(timeout: int, failures: int, waits: list[int], success: bool) -> None:
    """RetryWithToleranceOperatorTest.testExecAndHandleRetriableError*: exponential backoff from 300 ms,
    bounded by errors.retry.timeout."""
    clock = StepClock()
    op = operator(timeout=timeout, tolerance=ALL, clock=clock)
    operation = Failing(RetriableException("Test"), failures)
    context = ProcessingContext(RECORD)
    result = op.execute(Stage.TRANSFORMATION, ToleranceOperator, operation, context)
    assert clock.waits == waits
    assert operation.calls == (failures + 1 if success else failures)
    if success:
        assert result == "Success" and not context.failed
        assert op.metrics.total_retries == failures and op.metrics.total_record_failures == failures
    else:
        assert result is None and context.failed
        assert op.metrics.total_records_skipped == 1 and op.metrics.total_retries == len(waits)


def test_exhausted_retries_under_tolerance_none_raise() -> None:
    """RetryWithToleranceOperatorTest.testExecAndHandleRetriableErrorWithMaxRetriesExceeded under NONE:
    here the record is not skipped (Java returns null); the task fails with the last retriable error."""
    op = operator(timeout=6000, tolerance=NONE)
    error = RetriableException("Test")
    with pytest.raises(ConnectException, match="^Tolerance exceeded in error handler$") as info:
        op.execute(Stage.TASK_PUT, "sink", Failing(error, 99), ProcessingContext(RECORD))
    assert info.value.__cause__ is error


def test_exec_and_handle_non_retriable_error() -> None:
    """RetryWithToleranceOperatorTest.testExecAndHandleNonRetriableError: no retry, no backoff."""
    clock = StepClock()
    op = operator(timeout=6000, tolerance=ALL, clock=clock)
    operation = Failing(Exception("Test"), 1)
    context = ProcessingContext(RECORD)
    assert op.execute(Stage.TRANSFORMATION, ToleranceOperator, operation, context) is None
    assert context.failed and operation.calls == 1 and clock.waits == []


def test_exit_latch() -> None:
    """RetryWithToleranceOperatorTest.testExitLatch: trigger_stop during a backoff ends the retries."""
    clock = StepClock()
    op = operator(timeout=-1, tolerance=ALL, clock=clock)
    clock.on_wait = lambda ms: op.trigger_stop() if ms == 2400 else None
    context = ProcessingContext(RECORD)
    op.execute(Stage.TRANSFORMATION, ToleranceOperator, Failing(RetriableException("test"), 10**9), context)
    assert context.failed
    assert clock.waits == [300, 600, 1200, 2400]
    assert round(clock.now * 1000) == 4500


def test_stop_interrupts_a_real_backoff() -> None:
    """RetryWithToleranceOperatorTest.testExitLatch with the system clock: a stop from another thread
    wakes a task waiting out a backoff at once."""
    op = ToleranceOperator(ErrorSettings(tolerance=ALL, retry_timeout_ms=-1, retry_delay_max_ms=60000),
                           clock=SYSTEM_CLOCK)
    context = ProcessingContext(RECORD)
    done = threading.Event()

    def run() -> None:
        op.execute(Stage.TASK_PUT, "sink", Failing(RetriableException("x"), 10**9), context)
        done.set()

    start = time.monotonic()
    threading.Thread(target=run, daemon=True).start()
    time.sleep(0.05)  # the task is in its first 300 ms backoff
    op.trigger_stop()
    assert done.wait(5)
    assert time.monotonic() - start < 0.25 and context.failed


def test_backoff_limit() -> None:
    """RetryWithToleranceOperatorTest.testBackoffLimit: delays double, are cut at the deadline, never negative."""
    clock = StepClock()
    op = operator(timeout=5, max_delay=5000, tolerance=NONE, clock=clock)
    for attempt in range(1, 6):
        op.backoff(attempt, 5000)
    clock.sleep_ms(1)  # a little time between computing the deadline and backing off
    op.backoff(6, 5000)
    assert clock.waits == [300, 600, 1200, 2400, 500, 0]


def test_backoff_past_max_delay_is_random_below_it() -> None:
    """RetryWithToleranceOperator.backoff: past errors.retry.delay.max.ms, a random delay below it."""
    clock = StepClock()
    op = operator(timeout=-1, max_delay=1000, clock=clock)
    for _ in range(50):
        op.backoff(5, float("inf"))  # 4800 ms > 1000
    assert all(0 <= w < 1000 for w in clock.waits) and len(set(clock.waits)) > 1


def test_tolerance_limit() -> None:
    """RetryWithToleranceOperatorTest.testToleranceLimit"""
    op = operator(tolerance=NONE)
    assert op.within_tolerance_limits(), "no tolerance is within limits if no failures"
    op._mark_as_failed()
    assert not op.within_tolerance_limits(), "should not tolerate any errors"
    op = operator(tolerance=ALL)
    op._mark_as_failed()
    op._mark_as_failed()
    assert op.within_tolerance_limits(), "should tolerate all errors"


def test_failed_context_runs_nothing() -> None:
    """RetryWithToleranceOperator.execute: a context already failed skips the next operations."""
    op = operator(tolerance=ALL)
    context = ProcessingContext(RECORD)
    op.execute(Stage.KEY_CONVERTER, "k", raiser(Exception("bad key")), context)
    calls: list[int] = []
    assert op.execute(Stage.VALUE_CONVERTER, "v", lambda: calls.append(1), context) is None
    assert calls == [] and context.stage is Stage.VALUE_CONVERTER


class FutureReporter:
    def __init__(self) -> None:
        self.futures: list[Future[None]] = []
        self.closed = False
        self.fail_close = False

    def report(self, context: ProcessingContext) -> Future[None]:
        future: Future[None] = Future()
        self.futures.append(future)
        return future

    def close(self) -> None:
        self.closed = True
        if self.fail_close:
            raise RuntimeError("close failed")


@pytest.mark.parametrize("count", [1, 2])
def test_report_with_reporters(count: int) -> None:
    """RetryWithToleranceOperatorTest.testReportWithSingleReporter / testReportWithMultipleReporters"""
    reporters = [FutureReporter() for _ in range(count)]
    op = operator(timeout=-1, reporters=reporters)
    result = op.report(ProcessingContext(RECORD))
    for reporter in reporters:
        assert not result.done()
        reporter.futures[0].set_result(None)
    assert result.done()


def test_pending_reports_by_partition() -> None:
    """WorkerErrantRecordReporter.awaitFutures: a partition's DLQ writes are awaited before its commit."""
    reporter = FutureReporter()
    op = operator(reporters=[reporter])
    op.execute(Stage.VALUE_CONVERTER, "v", raiser(Exception()), ProcessingContext(ConsumedRecord("a", 1, 5)))
    op.execute(Stage.VALUE_CONVERTER, "v", raiser(Exception()), ProcessingContext(ConsumedRecord("b", 0, 7)))
    op.pending.await_futures([("c", 0)], timeout=0.01)  # nothing pending there
    with pytest.raises(ConnectException):
        op.pending.await_futures([("a", 1)], timeout=0.01)
    reporter.futures[1].set_exception(ConnectException("Could not produce message to dead letter queue"))
    with pytest.raises(ConnectException, match="errant record"):
        op.pending.await_futures([("b", 0)])
    op.pending.await_futures()  # all taken


def test_close_error_reporters() -> None:
    """RetryWithToleranceOperatorTest.testCloseErrorReporters"""
    a, b = FutureReporter(), FutureReporter()
    operator(reporters=[a, b]).close()
    assert a.closed and b.closed


def test_close_error_reporters_exception_propagation() -> None:
    """RetryWithToleranceOperatorTest.testCloseErrorReportersExceptionPropagation"""
    a, b = FutureReporter(), FutureReporter()
    a.fail_close = b.fail_close = True
    with pytest.raises(ConnectException, match="Failed to close all reporters"):
        operator(reporters=[a, b]).close()
    assert a.closed and b.closed
