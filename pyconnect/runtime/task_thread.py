"""What every task runner shares: a thread of its own, pause/resume flags the worker sets, and the state
it reports (the control surface the worker drives, whatever the kind of task)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from pyconnect.api.states import State
from pyconnect.logging_context import context_thread

StatusCallback = Callable[..., None]  # (state, trace[, progress])


class TaskThread:
    """Base of the source, sink and batch runners: `_run` is the task's thread body."""

    def __init__(self, connector: str, index: int, report: StatusCallback) -> None:
        self.connector, self.index = connector, index
        self.id = f"{connector}-{index}"
        self._report = report
        self._stopping = threading.Event()
        self._paused = threading.Event()
        self.state: State = State.UNASSIGNED
        # Started from the worker's thread: the task's log records belong to that worker's scope.
        self._thread = context_thread(self._run, f"task-{self.id}")

    def _run(self) -> None:
        raise NotImplementedError

    def start(self, paused: bool = False) -> None:
        if paused:
            self._paused.set()
        self._thread.start()

    def pause(self) -> None:
        self._paused.set()

    def resume(self) -> None:
        self._paused.clear()

    def stop(self) -> None:
        self._stopping.set()

    def join(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _set_state(self, state: State, trace: str | None = None, *extra: Any) -> None:
        if state != self.state or trace:
            self.state = state
            self._report(state, trace, *extra)
