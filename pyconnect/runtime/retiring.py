"""Runners the worker has told to stop and not yet seen end: its connectors' and its tasks'.

Invariants:
- The worker's loop never waits for a runner to end (but at shutdown): it asks the runner to stop, hands it
  here and goes on, so a plugin that hangs in stop delays neither the loop nor any other connector or task.
- A unit (a connector's name, a task's id) does not start again on this worker while a runner of it is still
  here: two runners of one unit never run side by side in one worker.
- A runner leaves when it has ended, or when its budget (counted from the moment it was told to stop) has run
  out: then it is abandoned with one WARNING, as Connect's worker abandons a task that does not stop within
  `task.shutdown.graceful.timeout.ms`, and its unit may start again.
- `settled()` is True only when nothing is here: the worker reports an assignment applied only then, so a
  leader hands a unit on only once its old runner here ended or was abandoned (cluster/handover.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Hashable
from typing import Generic, Protocol, TypeVar

log = logging.getLogger(__name__)

K = TypeVar("K", bound=Hashable)


class Stoppable(Protocol):
    """A connector or task runner, as far as stopping it goes."""

    def stop(self) -> None: ...

    def join(self, timeout: float) -> bool: ...


class Retiring(Generic[K]):
    """The runners of one kind (connectors or tasks) that were told to stop, by unit."""

    def __init__(self, kind: str) -> None:
        self._kind = kind
        self._runners: dict[K, tuple[Stoppable, float]] = {}

    def add(self, unit: K, runner: Stoppable, budget: float) -> None:
        """Tell `runner` to stop; it may take `budget` seconds before it is abandoned."""
        runner.stop()
        self._runners[unit] = (runner, time.monotonic() + budget)

    def holds(self, unit: K) -> bool:
        """Whether a runner of `unit` is still stopping (after reaping what has ended)."""
        self.reap()
        return unit in self._runners

    def reap(self) -> int:
        """Drop the runners that have ended or run out of budget; how many had ended."""
        ended, now = 0, time.monotonic()
        for unit, (runner, deadline) in list(self._runners.items()):
            if runner.join(0):
                ended += 1
            elif now >= deadline:
                log.warning("[%s] %s did not stop within the graceful timeout; abandoned", unit, self._kind)
            else:
                continue
            del self._runners[unit]
        return ended

    def settled(self) -> bool:
        """True when no runner is still stopping."""
        self.reap()
        return not self._runners

    def wait(self, deadline: float) -> None:
        """Wait (shutdown only) until every runner has ended or `deadline` (monotonic) has passed."""
        for runner, _ in list(self._runners.values()):
            runner.join(max(0.0, deadline - time.monotonic()))
        self.reap()
        for unit in list(self._runners):
            log.warning("[%s] %s did not stop within the graceful timeout; abandoned", unit, self._kind)
        self._runners.clear()
