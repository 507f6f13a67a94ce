"""The batch task SPI: a task whose work is one bounded job (e.g. a Spark job), not a poll loop.

A connector hands a batch task out like any other task: its `task_class_for` names the batch class
for that task's config. The runtime runs `run()` on the task's own thread, reports RUNNING while it runs, a
FAILED status with the trace if it raises, and publishes whatever the task passes to
`report_progress` in the task's status (REST `GET /connectors/{name}/status` shows it).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from pyconnect.api.connector import OffsetStorageReader
from pyconnect.api.metrics import TaskMetrics
from pyconnect.api.plugin_version import plugin_version
from pyconnect.api.records import SourceOffset, SourcePartition


class BatchTaskContext(Protocol):
    """What a running batch task may ask of the runtime."""

    @property
    def offset_storage_reader(self) -> OffsetStorageReader:
        """Reader of this connector's committed offsets (read to the end before `start`)."""

    @property
    def configs(self) -> Mapping[str, str]:
        """The task's configuration."""

    def write_offsets(self, offsets: Sequence[tuple[SourcePartition, SourceOffset | None]]) -> None:
        """Write source offsets of this connector and wait until Kafka acknowledged them; raises on
        failure. This is how a batch task hands work over to the connector's source tasks."""

    def report_progress(self, progress: Mapping[str, Any]) -> None:
        """Publish progress (a JSON-able mapping) in this task's status."""

    @property
    def metrics(self) -> TaskMetrics:
        """Where the task registers the metrics it exposes (read while the task runs)."""


class BatchTask(ABC):
    """Runs one bounded job; `run` returns when the work is complete and raises when it failed."""

    context: BatchTaskContext | None = None

    def initialize(self, context: BatchTaskContext) -> None:
        self.context = context

    def version(self) -> str:
        """The version of the distribution providing this class (pyconnect.api.plugin_version)."""
        return plugin_version(type(self))

    @abstractmethod
    def start(self, config: Mapping[str, str]) -> None:
        """Check the configuration; called on the task thread before `run`."""

    @abstractmethod
    def run(self) -> None:
        """Do the work. Must be resumable: after a crash or `stop`, a new run continues."""

    @abstractmethod
    def stop(self) -> None:
        """Ask a running `run` to return soon; called from another thread."""
