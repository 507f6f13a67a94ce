"""`TaskId`: one task of one connector, the unit the assignment places and the worker runs.

Connect writes it as `<connector>-<n>` (status keys, assignments, thread names). Connector names may
contain `-`, so the text is split at the last one: `TaskId.parse` is the one place that does it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True, slots=True)
class TaskId:
    """Connect's ConnectorTaskId. Orders by connector, then task number (so `c-10` after `c-9`)."""

    connector: str
    task: int

    def __str__(self) -> str:
        return f"{self.connector}-{self.task}"

    @classmethod
    def parse(cls, text: str) -> TaskId:
        """The id `<connector>-<n>` names; ValueError if it names none."""
        connector, sep, index = text.rpartition("-")
        if not sep or not connector or not index.isdigit():
            raise ValueError(f"not a task id: {text!r} (expected <connector>-<n>)")
        return cls(connector, int(index))
