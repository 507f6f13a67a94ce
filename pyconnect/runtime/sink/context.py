"""The SinkTaskContext a sink task gets (Connect's WorkerSinkTaskContext): requests the task makes of its
runner, which the runner applies on its own thread between `put` calls."""

from __future__ import annotations

import threading
from collections.abc import Mapping

from pyconnect.api.sink import ErrantRecordReporter, TopicPartition


class WorkerSinkTaskContext:
    """What a task asked for since the runner last looked: offset resets, a put timeout, partitions to
    pause or resume, a commit. The task calls these from `put` (the runner's thread) or from threads of
    its own, so every request is taken under a lock and drained by the runner."""

    def __init__(self, configs: Mapping[str, str], reporter: ErrantRecordReporter | None = None) -> None:
        self._configs = dict(configs)
        self._reporter = reporter
        self._lock = threading.Lock()
        self._offsets: dict[TopicPartition, int] = {}
        self._timeout_ms = -1
        self._assignment: set[TopicPartition] = set()
        self._paused: set[TopicPartition] = set()
        self._commit_requested = False

    # the task's side ---------------------------------------------------------------------------

    @property
    def configs(self) -> Mapping[str, str]:
        return self._configs

    def offset(self, offsets: Mapping[TopicPartition, int]) -> None:
        with self._lock:
            self._offsets.update(offsets)

    def timeout(self, timeout_ms: int) -> None:
        self._timeout_ms = timeout_ms

    def assignment(self) -> set[TopicPartition]:
        with self._lock:
            return set(self._assignment)

    def pause(self, *partitions: TopicPartition) -> None:
        with self._lock:
            self._check_assigned(partitions, "pause")
            self._paused.update(partitions)

    def resume(self, *partitions: TopicPartition) -> None:
        with self._lock:
            self._check_assigned(partitions, "resume")
            self._paused.difference_update(partitions)

    def request_commit(self) -> None:
        self._commit_requested = True

    @property
    def errant_record_reporter(self) -> ErrantRecordReporter | None:
        return self._reporter

    def set_reporter(self, reporter: ErrantRecordReporter | None) -> None:
        """Set by the runner once the task's error handling exists (before the task starts)."""
        self._reporter = reporter

    def _check_assigned(self, partitions: tuple[TopicPartition, ...], action: str) -> None:
        # Connect's IllegalWorkerStateException for a partition the task does not own.
        missing = [p for p in partitions if p not in self._assignment]
        if missing:
            raise ValueError(f"SinkTasks may not {action} partitions that are not currently assigned to them: "
                             f"{', '.join(f'{p.topic}-{p.partition}' for p in missing)}")

    # the runner's side -------------------------------------------------------------------------

    def set_assignment(self, partitions: set[TopicPartition]) -> None:
        """The consumer's current assignment; pauses of partitions no longer owned are forgotten."""
        with self._lock:
            self._assignment = set(partitions)
            self._paused &= self._assignment

    def take_offsets(self) -> dict[TopicPartition, int]:
        """The offset resets asked for since the last call."""
        with self._lock:
            offsets, self._offsets = self._offsets, {}
            return offsets

    def peek_offsets(self, partitions: set[TopicPartition]) -> dict[TopicPartition, int]:
        """Resets asked for these partitions (before they were assigned), taken."""
        with self._lock:
            found = {p: o for p, o in self._offsets.items() if p in partitions}
            for p in found:
                del self._offsets[p]
            return found

    def take_timeout(self) -> int:
        timeout, self._timeout_ms = self._timeout_ms, -1
        return timeout

    def paused(self) -> set[TopicPartition]:
        with self._lock:
            return set(self._paused)

    def take_commit_request(self) -> bool:
        requested, self._commit_requested = self._commit_requested, False
        return requested
