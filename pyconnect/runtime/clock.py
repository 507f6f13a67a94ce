"""The clock the runtime reads and waits on: the real one in production, a fake one in unit tests.

Code that measures intervals or waits for a timeout takes a `Clock` instead of calling the `time`
module and `threading` timeouts itself, so that a test can move time on by hand (see
tests/harness/clock.py) instead of sleeping through real time windows.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol


class Clock(Protocol):
    """Time as the runtime sees it: two readings and one interruptible wait."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back, for intervals (as `time.monotonic`)."""
        ...

    def time(self) -> float:
        """Seconds since the epoch, for timestamps written to topics (as `time.time`)."""
        ...

    def wait_for(self, condition: threading.Condition, predicate: Callable[[], bool], timeout: float) -> bool:
        """As `condition.wait_for(predicate, timeout)`: the caller holds `condition`; returns the predicate's
        last value, False if `timeout` seconds of this clock passed first."""
        ...


class SystemClock:
    """The real clock: the `time` module and `threading.Condition.wait_for`."""

    def monotonic(self) -> float:
        """`time.monotonic()`."""
        return time.monotonic()

    def time(self) -> float:
        """`time.time()`."""
        return time.time()

    def wait_for(self, condition: threading.Condition, predicate: Callable[[], bool], timeout: float) -> bool:
        """`condition.wait_for(predicate, timeout)`."""
        return condition.wait_for(predicate, timeout)


SYSTEM_CLOCK: Clock = SystemClock()
