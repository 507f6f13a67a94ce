"""Runs one BatchTask on its own thread, with the same control surface as a source task runner.

States: RUNNING while `run()` works, FAILED with the trace if it raised, PAUSED while paused. A
pause stops the current run (batch tasks are resumable by contract) and a resume starts a new one.
A completed run stays RUNNING with its final progress until the connector retires the task.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyconnect.api import BatchTask, SourceOffset, SourcePartition
from pyconnect.api.states import State
from pyconnect.logging_context import context_thread, set_context
from pyconnect.runtime.metrics.worker_metrics import TaskMetricsRegistry
from pyconnect.runtime.source.runner import ConnectorOffsetReader
from pyconnect.storage.offset_store import OffsetStore

log = logging.getLogger(__name__)

ProgressReport = Callable[[State, str | None, dict[str, Any] | None], None]  # (state, trace, progress)


@dataclass
class BatchContext:
    """The BatchTaskContext the runtime hands to a batch task."""

    offset_storage_reader: ConnectorOffsetReader
    configs: Mapping[str, str]
    _store: OffsetStore
    _connector: str
    _publish: Callable[[dict[str, Any]], None]
    _timeout: float
    metrics: TaskMetricsRegistry = field(default_factory=TaskMetricsRegistry)

    def write_offsets(self, offsets: Sequence[tuple[SourcePartition, SourceOffset | None]]) -> None:
        futures = self._store.put(self._connector, offsets)
        for future in futures:
            future.result(self._timeout)  # raises if Kafka refused the write

    def report_progress(self, progress: Mapping[str, Any]) -> None:
        self._publish(dict(progress))


class BatchTaskRunner:
    """Owner-side lifecycle of one batch task."""

    def __init__(self, connector: str, index: int, task: BatchTask, config: Mapping[str, str],
                 offsets: OffsetStore, report: ProgressReport, write_timeout: float = 30.0) -> None:
        self.connector, self.index, self.task, self.config = connector, index, task, dict(config)
        self.id = f"{connector}-{index}"
        self._offsets = offsets
        self._report = report
        self._write_timeout = write_timeout
        self._stopping = threading.Event()
        self._paused = threading.Event()
        self._wake = threading.Event()
        self._progress: dict[str, Any] | None = None
        self.state: State = State.UNASSIGNED
        self.completed = False
        self.metrics = TaskMetricsRegistry()  # what the task registers; its worker's collector reads it
        # Started from the worker's thread: the task's log records belong to that worker's scope.
        self._thread = context_thread(self._run, f"batch-{self.id}")

    # control (same surface as SourceTaskRunner) ------------------------------------------------

    def start(self, paused: bool = False) -> None:
        if paused:
            self._paused.set()
        self._thread.start()

    def pause(self) -> None:
        if not self._paused.is_set():
            self._paused.set()
            self._interrupt()

    def resume(self) -> None:
        self._paused.clear()
        self._wake.set()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        self._interrupt()

    def join(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _interrupt(self) -> None:
        try:
            self.task.stop()
        except Exception:
            log.exception("[%s] error signalling stop", self.id)

    # task thread -----------------------------------------------------------------------------

    def _set_state(self, state: State, trace: str | None = None) -> None:
        self.state = state
        self._report(state, trace, self._progress)

    def _publish(self, progress: dict[str, Any]) -> None:
        self._progress = progress
        if self.state == State.RUNNING:
            self._report(State.RUNNING, None, progress)

    def _run(self) -> None:
        set_context(self.connector, self.index)
        try:
            self._offsets.refresh(self._write_timeout)
            context = BatchContext(ConnectorOffsetReader(self._offsets, self.connector), self.config,
                                   self._offsets, self.connector, self._publish, self._write_timeout, self.metrics)
            self.task.initialize(context)
            self.task.start(self.config)
        except Exception as exc:
            self._fail(exc)
            return
        while not self._stopping.is_set() and not self.completed:
            if self._paused.is_set():
                self._set_state(State.PAUSED)
                while self._paused.is_set() and not self._stopping.is_set():
                    self._wake.wait(1.0)
                    self._wake.clear()
                continue
            self._set_state(State.RUNNING)
            try:
                self.task.run()
            except Exception as exc:
                if self._stopping.is_set() or self._paused.is_set():
                    log.info("[%s] batch run interrupted: %s", self.id, exc)
                    continue
                self._fail(exc)
                return
            if not (self._stopping.is_set() or self._paused.is_set()):
                self.completed = True
                log.info("[%s] batch task completed", self.id)
        self.metrics.close()  # a task's series exist while it runs

    def _fail(self, exc: BaseException) -> None:
        log.error("[%s] batch task failed: %s", self.id, exc)
        self.metrics.close()
        self._set_state(State.FAILED, "".join(traceback.format_exception(exc)))
