"""BatchTaskRunner's state machine over the in-memory offsets store: run, progress, pause (stops the
run), resume (a new run), completion, failure with the trace, and offsets written through the context."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from pyconnect.api import BatchTask
from pyconnect.runtime.source.batch_runner import BatchTaskRunner
from pyconnect.storage.log import MemoryLog, MemoryTopic
from pyconnect.storage.offset_store import OffsetStore
from tests.harness.workers import wait_for


class Steps(BatchTask):
    """Works through `steps` units, one per 10 ms; resumable from the offsets it writes."""

    def __init__(self, steps: int, fail_at: int | None = None) -> None:
        self.steps, self.fail_at = steps, fail_at
        self.runs = 0
        self._stop = threading.Event()

    def start(self, config: Mapping[str, str]) -> None:
        self.config = dict(config)

    def run(self) -> None:
        assert self.context is not None
        self.runs += 1
        self._stop.clear()
        done = (self.context.offset_storage_reader.offset({"unit": "all"}) or {"done": 0})["done"]
        while done < self.steps and not self._stop.is_set():
            if done == self.fail_at:
                raise RuntimeError(f"unit {done} cannot be processed")
            done += 1
            self.context.write_offsets([({"unit": "all"}, {"done": done})])
            self.context.report_progress({"done": done, "total": self.steps})
            time.sleep(0.01)  # one unit of simulated work, so that a pause lands mid-run

    def stop(self) -> None:
        self._stop.set()


def runner_for(task: BatchTask) -> tuple[BatchTaskRunner, list[tuple[str, str | None, Any]], OffsetStore]:
    store = OffsetStore(MemoryLog(MemoryTopic(25)))
    store.start()
    reports: list[tuple[str, str | None, Any]] = []
    runner = BatchTaskRunner("c", 0, task, {"k": "v"}, store,
                             lambda state, trace, progress: reports.append((state, trace, progress)))
    return runner, reports, store


def test_pause_stops_the_run_and_resume_continues_it_to_completion() -> None:
    task = Steps(60)
    runner, reports, store = runner_for(task)
    runner.start()
    wait_for(lambda: (store.get("c", {"unit": "all"}) or {"done": 0})["done"] >= 10, 5, "ten units done")
    runner.pause()
    wait_for(lambda: runner.state == "PAUSED", 5, "PAUSED")
    paused_at = store.get("c", {"unit": "all"})["done"]  # type: ignore[index]
    time.sleep(0.1)  # the behaviour under test: nothing advances over a window while paused
    assert store.get("c", {"unit": "all"})["done"] == paused_at < 60, "work went on while paused"  # type: ignore[index]
    runner.resume()
    wait_for(lambda: runner.completed, 5, "completion")
    assert store.get("c", {"unit": "all"}) == {"done": 60} and task.runs == 2
    assert runner.state == "RUNNING" and reports[-1][2] == {"done": 60, "total": 60}
    assert [r[0] for r in reports if r[2] is None][:1] == ["RUNNING"]
    runner.stop()
    assert runner.join(5)


def test_a_failing_run_is_failed_with_its_trace() -> None:
    runner, reports, _store = runner_for(Steps(10, fail_at=3))
    runner.start()
    wait_for(lambda: runner.state == "FAILED", 5, "FAILED")
    state, trace, progress = reports[-1]
    assert state == "FAILED" and trace is not None and "unit 3 cannot be processed" in trace
    assert progress == {"done": 3, "total": 10}
    assert runner.join(5)
