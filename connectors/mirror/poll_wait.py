"""How the MirrorMaker 2 tasks' polls wait for `consumer.poll.timeout.ms`, as Kafka's do, without holding
up the runtime.

Kafka's MirrorSourceTask.poll waits up to `consumer.poll.timeout.ms` for records (`consumer.poll(timeout)`),
and MirrorCheckpointTask.poll waits for `emit.checkpoints.interval.seconds` in sleeps of
`consumer.poll.timeout.ms` (so checkpoints go out every interval rounded up to whole poll timeouts). Connect
serves a task's producer and commits its offsets on other threads meanwhile; this runtime does both on the
task's thread, between polls.

Invariants:
- a poll waits in slices of at most SLICE seconds and, between two slices, calls the runtime's
  `context.keep_polling()`: acknowledgements are handled and a due offset commit is made within SLICE
  whatever the timeout, and the wait ends within SLICE of a stop, a pause or a delivery failure;
- the slices of one poll add up to its timeout unless the wait ends early (records arrived, the task is
  stopping, or `keep_polling()` said so): the timeout is honoured in full, never capped.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator

from pyconnect.api import SourceTaskContext

SLICE = 0.1  # seconds: the longest a waiting poll goes without handing the thread back to the runtime


def slices(context: SourceTaskContext | None, timeout: float, stopping: threading.Event) -> Iterator[float]:
    """The waits (seconds) a poll of up to `timeout` seconds is made of; the runtime (if any: a task run
    without one just waits) is served between two. The caller waits each one out (or stops iterating once
    it has what it waited for)."""
    deadline = time.monotonic() + timeout
    first = True
    while not stopping.is_set():
        left = deadline - time.monotonic()
        if left <= 0:
            return
        if not first and context is not None and not context.keep_polling():
            return
        first = False
        yield min(left, SLICE)


def checkpoint_period(interval_s: float, poll_timeout_ms: int) -> float:
    """Seconds between two checkpoint polls' emissions: MirrorCheckpointTask sleeps `consumer.poll.timeout.ms`
    at a time until `emit.checkpoints.interval.seconds` have passed, i.e. the interval rounded up to whole
    poll timeouts (at least one)."""
    interval_ms = round(interval_s * 1000)
    return max(1, math.ceil(interval_ms / poll_timeout_ms)) * poll_timeout_ms / 1000
