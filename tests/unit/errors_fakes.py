"""Fakes for the error-handling tests: a clock whose waits pass at once, a producer that records."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


class StepClock:
    """A Clock (pyconnect.runtime.clock) whose `wait_for` moves time on by the whole timeout at once and
    records each wait in ms, as Java's tests mock the stop latch's await over MockTime. `on_wait(ms)`
    runs after time has moved (a test stops the operator there)."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[int] = []
        self.on_wait: Callable[[int], None] | None = None

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return 1_700_000_000.0 + self.now

    def sleep_ms(self, ms: int) -> None:
        self.now += ms / 1000.0

    def wait_for(self, condition: threading.Condition, predicate: Callable[[], bool], timeout: float) -> bool:
        ms = round(timeout * 1000)
        self.waits.append(ms)
        self.now += timeout
        if self.on_wait is not None:
            self.on_wait(ms)
        return predicate()


class FakeProducer:
    """Records produce() calls; deliveries succeed (or fail with `fail_with`) when polled or flushed."""

    def __init__(self, fail_with: Any = None) -> None:
        self.sent: list[dict[str, Any]] = []
        self.fail_with = fail_with
        self._pending: list[Callable[[Any, Any], None]] = []
        self._lock = threading.Lock()
        self.hold = False  # True: deliveries wait until released

    def produce(self, topic: str, value: Any = None, key: Any = None, headers: Any = None,
                on_delivery: Callable[[Any, Any], None] | None = None, timestamp: int | None = None) -> None:
        self.sent.append({"topic": topic, "value": value, "key": key, "headers": list(headers or []),
                          "timestamp": timestamp})
        if on_delivery is not None:
            with self._lock:
                self._pending.append(on_delivery)

    def poll(self, timeout: float = 0) -> int:
        if self.hold:
            time.sleep(min(timeout, 0.01))
            return 0
        with self._lock:
            pending, self._pending = self._pending, []
        for callback in pending:
            callback(self.fail_with, None)
        if not pending:
            time.sleep(min(timeout, 0.01))
        return len(pending)

    def flush(self, timeout: float = 0) -> int:
        if not self.hold:
            self.poll(0)
        with self._lock:
            return len(self._pending)

    def purge(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
        for callback in pending:
            callback("purged", None)
