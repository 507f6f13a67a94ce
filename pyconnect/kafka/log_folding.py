"""Folding of repeated log lines: the first of a kind at once, then one summary per interval with a count.

A client that cannot reach its cluster retries every few milliseconds, and librdkafka logs every failed
attempt: hundreds of identical lines a minute per client, which bury the one sentence that says what is
wrong. A `LogFolder` decides, per key (cluster, address, cause), which occurrences are reported.

Invariants (per key, whatever the order and timing of the occurrences):
- the first occurrence is reported at once, with count 1;
- two reports are at least `interval` seconds apart, by the injected clock;
- every occurrence is counted in exactly one report, except those since the last report, which are
  counted in the next one (a burst that ended is reported with the next occurrence, never counted twice);
- at most `max_keys` keys are remembered: past that, the key seen longest ago is forgotten (with its
  unreported count), so memory stays bounded whatever the causes are.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

DEFAULT_INTERVAL_S = 60.0  # one summary a minute per cluster and cause: a flood becomes one line a minute
MAX_KEYS = 1000


@dataclass(frozen=True)
class Report:
    """What to log for an occurrence: `count` occurrences (this one included) over `seconds`."""

    count: int
    seconds: float
    first: bool


class LogFolder:
    """Counts occurrences per key and says when one must be reported (thread-safe: clients log from
    whichever thread polls them)."""

    def __init__(self, interval: float = DEFAULT_INTERVAL_S, clock: Callable[[], float] = time.monotonic,
                 max_keys: int = MAX_KEYS) -> None:
        self.interval = interval
        self._clock = clock
        self._max_keys = max_keys
        self._lock = threading.Lock()
        # key -> (time of its last report, occurrences since then not yet reported)
        self._windows: OrderedDict[Hashable, tuple[float, int]] = OrderedDict()

    def offer(self, key: Hashable) -> Report | None:
        """One occurrence of `key`: the report to log now, or None when it is folded into a later one."""
        now = self._clock()
        with self._lock:
            window = self._windows.get(key)
            if window is None:
                self._remember(key, now, 0)
                return Report(1, 0.0, first=True)
            reported_at, folded = window
            if now - reported_at < self.interval:
                self._remember(key, reported_at, folded + 1)
                return None
            self._remember(key, now, 0)
            return Report(folded + 1, now - reported_at, first=False)

    def _remember(self, key: Hashable, reported_at: float, folded: int) -> None:
        self._windows[key] = (reported_at, folded)
        self._windows.move_to_end(key)
        while len(self._windows) > self._max_keys:
            self._windows.popitem(last=False)
