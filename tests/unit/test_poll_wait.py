"""The pieces behind consumer.poll.timeout.ms: how a MirrorMaker 2 poll waits (connectors/mirror/poll_wait.py) and
Connect's poll-batch-time figures (pyconnect/runtime/metrics/poll_batch_time.py), without brokers.

Followed (apache/kafka): MirrorCheckpointTask.poll (sleeps consumer.poll.timeout.ms at a time until the emit
interval has passed) and AbstractWorkerSourceTask.SourceTaskMetricsGroup (poll-batch-time: Max and Avg, sampled
stats over Connect's default windows, NaN with no sample).
"""

from __future__ import annotations

import math
import threading
import time

import pytest

from connectors.mirror.poll_wait import SLICE, checkpoint_period, slices
from pyconnect.runtime.metrics.poll_batch_time import SAMPLES, WINDOW_S, PollBatchTime


@pytest.mark.parametrize(("interval_s", "timeout_ms", "period_s"), [
    (1.0, 100, 1.0), (1.0, 2500, 2.5), (60.0, 1000, 60.0), (1.0, 300, 1.2), (0.5, 1, 0.5), (60.0, 7000, 63.0)])
def test_checkpoint_period_is_the_interval_rounded_up_to_whole_poll_timeouts(interval_s: float, timeout_ms: int,
                                                                             period_s: float) -> None:
    """MirrorCheckpointTask sleeps `consumer.poll.timeout.ms` until the interval has passed: whole sleeps."""
    assert checkpoint_period(interval_s, timeout_ms) == pytest.approx(period_s)


class _Context:
    """The runtime's side of keep_polling: counts the calls, says False after `allowed` of them."""

    def __init__(self, allowed: int) -> None:
        self.calls, self.allowed = 0, allowed

    def keep_polling(self) -> bool:
        self.calls += 1
        return self.calls <= self.allowed


def test_a_wait_is_the_full_timeout_in_slices_with_the_runtime_served_between() -> None:
    context = _Context(allowed=1000)
    waits = []
    for wait in slices(context, 0.35, threading.Event()):  # type: ignore[arg-type]
        waits.append(wait)
        time.sleep(wait)  # the consumer's wait for records that do not come, stood in for
    assert waits[0] == pytest.approx(SLICE) and all(w <= SLICE for w in waits)
    assert sum(waits) == pytest.approx(0.35, abs=0.05)  # the slices add up to the timeout: it is not capped
    assert context.calls == len(waits) - 1  # between two slices, not before the first
    alone = []
    for wait in slices(None, 0.25, threading.Event()):  # a task run without a runtime just waits
        alone.append(wait)
        time.sleep(wait)  # as above
    assert sum(alone) == pytest.approx(0.25, abs=0.05)


def test_a_wait_ends_when_the_runtime_says_so_or_the_task_stops() -> None:
    context = _Context(allowed=2)
    started = time.monotonic()
    for wait in slices(context, 30.0, threading.Event()):  # type: ignore[arg-type]
        time.sleep(wait)  # the consumer's wait, stood in for
    assert time.monotonic() - started < 3 * SLICE + 0.2 and context.calls == 3
    stopping = threading.Event()
    stopping.set()
    assert list(slices(_Context(1000), 30.0, stopping)) == []  # type: ignore[arg-type]


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_poll_batch_time_is_max_and_avg_over_connects_sample_windows() -> None:
    clock = _Clock()
    times = PollBatchTime(clock)
    assert all(math.isnan(v) for v in times.figures())  # Kafka's Max and Avg of no sample
    for ms in (100, 300):
        started = clock.now
        clock.now += ms / 1000
        times.record(started)
    assert times.figures() == pytest.approx((200.0, 300.0))
    clock.now += WINDOW_S  # a new window for the next sample; the first still counts
    started = clock.now
    clock.now += 0.05
    times.record(started)
    assert times.figures() == pytest.approx((150.0, 300.0))
    clock.now += WINDOW_S * (SAMPLES - 1) + 1  # the first window is out
    assert times.figures() == pytest.approx((50.0, 50.0))
    clock.now += WINDOW_S * SAMPLES
    assert all(math.isnan(v) for v in times.figures())
    labels = {"connector": "c", "task": "0"}
    assert [s.name for s in times.samples(labels)] == [PollBatchTime.AVG, PollBatchTime.MAX]
