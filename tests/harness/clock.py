"""A fake `Clock` (pyconnect.runtime.clock) for unit tests: time moves only when the test says so.

Threads that wait on the clock (`wait_for`) sleep until the test calls `advance`. `advance` moves
time to each sleeper's deadline in turn, wakes the sleepers due and lets each of them run until it
sleeps on the clock again (or ends) before time moves on: a heartbeat thread beating every 50 ms
beats exactly eight times while the test advances 0.4 s, and the test reads the result at once,
without real sleeps or time windows.

Do not call a waiting method on the test's own thread: nothing would advance the clock for it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

SETTLE_TIMEOUT = 10.0  # real seconds a woken thread gets to come back to the clock (a hang otherwise)


class FakeClock:
    """Monotonic and wall time that stand still until `advance`; `wait_for` waits on that time."""

    def __init__(self, monotonic: float = 10_000.0, wall: float = 1_700_000_000.0) -> None:
        self._state = threading.Condition()  # a leaf lock: never held while taking another
        self._now = monotonic
        self._wall_offset = wall - monotonic
        self._sleepers: dict[threading.Thread, tuple[float, threading.Condition]] = {}

    def monotonic(self) -> float:
        """The fake monotonic time."""
        with self._state:
            return self._now

    def time(self) -> float:
        """The fake wall-clock time (moves with the monotonic time)."""
        with self._state:
            return self._now + self._wall_offset

    def wait_for(self, condition: threading.Condition, predicate: Callable[[], bool], timeout: float) -> bool:
        """As `condition.wait_for`, but `timeout` is in fake seconds: the caller sleeps until the predicate
        holds (after a notify of `condition`) or the test advances the clock past the deadline."""
        me = threading.current_thread()
        with self._state:
            deadline = self._now + timeout
            self._sleepers[me] = (deadline, condition)
            self._state.notify_all()
        try:
            while True:
                if predicate():
                    return True
                if self.monotonic() >= deadline:
                    return False
                condition.wait()  # advance() notifies `condition` once the deadline has come
        finally:
            with self._state:
                del self._sleepers[me]
                self._state.notify_all()

    def advance(self, seconds: float) -> None:
        """Move time on by `seconds`, stopping at every sleeper's deadline on the way (see the module)."""
        with self._state:
            target = self._now + seconds
        while True:
            with self._state:
                deadlines = [d for d, _c in self._sleepers.values() if d <= target]
                self._now = max(self._now, min(deadlines, default=target))
                due = {t: c for t, (d, c) in self._sleepers.items() if d <= self._now}
            for condition in {id(c): c for c in due.values()}.values():
                with condition:
                    condition.notify_all()
            self._settle(list(due))
            if not due and self.monotonic() >= target:
                return

    def await_sleeper(self, thread_name: str) -> None:
        """Block until the thread named `thread_name` sleeps on this clock (a synchronisation point,
        not a time window: e.g. a thread just started has reached its first wait)."""
        with self._state:
            if not self._state.wait_for(lambda: any(t.name == thread_name for t in self._sleepers),
                                        SETTLE_TIMEOUT):
                raise AssertionError(f"thread {thread_name!r} never waited on the clock")

    def await_settled(self, thread: threading.Thread) -> None:
        """Block until `thread` sleeps on this clock past the current time, or has ended (a thread just
        started whose next step, wait or finish, the test cannot know in advance)."""
        self._settle([thread])

    def _settle(self, woken: list[threading.Thread]) -> None:
        """Wait until every woken thread sleeps again with a later deadline, or has ended."""
        def settled(t: threading.Thread) -> bool:
            return not t.is_alive() or (t in self._sleepers and self._sleepers[t][0] > self._now)

        give_up = time.monotonic() + SETTLE_TIMEOUT
        with self._state:
            while not all(settled(t) for t in woken):
                if time.monotonic() > give_up:
                    raise AssertionError(f"threads {[t.name for t in woken if not settled(t)]} did not come back "
                                         "to the clock")
                self._state.wait(0.01)  # sleepers notify when they come back; a thread's end does not
