"""What tells one worker of the process from the others.

A distributed-mode process runs one worker, in the process's scope (no name, no labels). A dedicated
MirrorMaker process runs one worker per flow: its scope is named after the flow (`A->B`, shown on the
log lines of every thread the worker runs, and owning that flow's logger levels) and labels every
metric series the worker exposes (`source`, `target`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pyconnect.runtime.logs.flow_loggers import flow_levels
from pyconnect.runtime.logs.loggers import PROCESS, LogLevels


@dataclass(frozen=True)
class WorkerScope:
    """A worker's name for logging ("" for the process) and the labels of its metrics."""

    name: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    # Sentences /health adds to this worker's message (a dedicated flow's connectors the file leaves unstarted).
    notes: tuple[str, ...] = ()

    def log_levels(self) -> LogLevels:
        """The logger levels this worker reads and sets: its own for a named scope, else the process's."""
        return flow_levels(self.name) if self.name else PROCESS
