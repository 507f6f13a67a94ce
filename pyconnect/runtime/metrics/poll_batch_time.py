"""How long a source task's polls took to return a batch: Connect's `poll-batch-max-time-ms` and
`poll-batch-avg-time-ms` (source-task-metrics), as Kafka's AbstractWorkerSourceTask records them.

Invariants (what Kafka's SourceTaskMetricsGroup does, so the figures read the same):
- only a poll that returned records is recorded (`recordPollReturned` runs when `task.poll()` gave a
  batch): an idle task that keeps returning nothing adds no sample, and a batch's time is that of the
  one poll call that returned it, not of the idle polls before it;
- the figures are windowed like Kafka's sampled stats with Connect's defaults (`metrics.sample.window.ms`
  30 s, `metrics.num.samples` 2): a sample counts until its window is older than 60 s;
- with no sample in the windows both figures are NaN (Kafka's Max and Avg of nothing).

The task's thread records; a scrape reads from another thread: the windows are a tuple replaced on each
record, never mutated.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from pyconnect.api.metrics import MetricSample

WINDOW_S = 30.0  # Connect's metrics.sample.window.ms default
SAMPLES = 2  # Connect's metrics.num.samples default

Window = tuple[float, float, float, int]  # (start, total ms, max ms, polls)


class PollBatchTime:
    """The poll-batch-time sensor of one source task."""

    AVG = "kafka_connect_source_task_poll_batch_avg_time_ms"
    MAX = "kafka_connect_source_task_poll_batch_max_time_ms"

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._windows: tuple[Window, ...] = ()

    def record(self, started: float) -> None:
        """A poll that began at `started` (the clock's time) returned a batch now."""
        now = self._clock()
        ms = (now - started) * 1000
        windows = self._live(now)
        if windows and now - windows[-1][0] < WINDOW_S:
            start, total, high, n = windows[-1]
            windows = (*windows[:-1], (start, total + ms, max(high, ms), n + 1))
        else:
            windows = (*windows, (now, ms, ms, 1))[-SAMPLES:]
        self._windows = windows

    def figures(self) -> tuple[float, float]:
        """(average ms, maximum ms) over the live windows; NaN for both when there is no sample."""
        windows = self._live(self._clock())
        polls = sum(w[3] for w in windows)
        if not polls:
            return math.nan, math.nan
        return sum(w[1] for w in windows) / polls, max(w[2] for w in windows)

    def samples(self, labels: dict[str, str]) -> list[MetricSample]:
        avg, high = self.figures()
        return [MetricSample(self.AVG, "The average time in milliseconds taken by this task to poll for a batch of "
                             "source records.", labels, avg),
                MetricSample(self.MAX, "The maximum time in milliseconds taken by this task to poll for a batch of "
                             "source records.", labels, high)]

    def _live(self, now: float) -> tuple[Window, ...]:
        return tuple(w for w in self._windows if now - w[0] < WINDOW_S * SAMPLES)
