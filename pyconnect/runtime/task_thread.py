"""What every task runner shares: a thread of its own, pause/resume flags the worker sets, and the state
it reports (the control surface the worker drives, whatever the kind of task)."""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from pyconnect.api.states import State
from pyconnect.logging_context import context_thread

StatusCallback = Callable[..., None]  # (state, trace[, progress])
log = logging.getLogger(__name__)


def bounded(step: Callable[[], None], timeout: float, what: str) -> bool:
    """Run `step` (a call that may block on an unreachable cluster) for at most `timeout` seconds, on a
    thread of its own; False, logged, if it had not returned by then (it is left to finish or die with
    the process)."""
    thread = threading.Thread(target=step, name=what, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        log.warning("%s did not finish within %.1fs; given up", what, timeout)
        return False
    return True


class LeaseLost(Exception):
    """The worker lost the assignment this task runs under (it was out of its cluster for a session
    timeout, so the task may run elsewhere now): the task stops without writing anything more."""


def _always() -> bool:
    return True


class TaskThread(ABC):
    """Base of the source, sink and batch runners: `_run` is the task's thread body.

    `lease` (set by the worker before `start`) says whether the assignment the task was started under still
    holds. Invariant: a runner checks it before each batch it writes and before each offset commit, and once
    it is False writes and commits nothing more (a frozen worker, resumed, must not add duplicates or move
    offsets under the task's new owner)."""

    def __init__(self, connector: str, index: int, report: StatusCallback) -> None:
        self.connector, self.index = connector, index
        self.id = f"{connector}-{index}"
        self._report = report
        self._stopping = threading.Event()
        self._paused = threading.Event()
        self.state: State = State.UNASSIGNED
        self._stop_asked: float | None = None  # when stop() was first called: the stop's budget starts then
        self.lease: Callable[[], bool] = _always
        # Started from the worker's thread: the task's log records belong to that worker's scope.
        self._thread = context_thread(self._run, f"task-{self.id}")

    @abstractmethod
    def _run(self) -> None:
        """The task's thread body (each kind of runner has its own)."""

    def start(self, paused: bool = False) -> None:
        if paused:
            self._paused.set()
        self._thread.start()

    def pause(self) -> None:
        self._paused.set()

    def resume(self) -> None:
        self._paused.clear()

    def stop(self) -> None:
        if self._stop_asked is None:
            self._stop_asked = time.monotonic()
        self._stopping.set()

    def budget(self, timeout: float) -> float:
        """Seconds left of a stop's budget of `timeout` seconds, counted from when stop was first asked (or
        from now, when the task ends by itself)."""
        started = self._stop_asked if self._stop_asked is not None else time.monotonic()
        return max(0.0, started + timeout - time.monotonic())

    def join(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _stop_running(self) -> None:
        """The task's work has ended: its state stops saying RUNNING or PAUSED before its metric series
        are closed. A scrape reads the series before the states (WorkerCollector), so it never shows a
        running task without its series, even when it copied the runner just before the worker dropped it.
        Local only: what the status topic says is the worker's and the herder's business."""
        if self.state in (State.RUNNING, State.PAUSED):
            self.state = State.UNASSIGNED

    def _set_state(self, state: State, trace: str | None = None, *extra: Any) -> None:
        if state != self.state or trace:
            self.state = state
            self._report(state, trace, *extra)
