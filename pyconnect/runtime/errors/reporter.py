"""`ErrorReporter`: where a failed operation is reported (Connect's ErrorReporter)."""

from __future__ import annotations

from concurrent.futures import Future
from typing import Protocol

from pyconnect.runtime.errors.context import ProcessingContext


class ErrorReporter(Protocol):
    """Reports the failure a context holds. `report` returns a future done once the report is durable
    (a DLQ write), or None when there is nothing to wait for (a log line)."""

    def report(self, context: ProcessingContext) -> Future[None] | None:
        """Report `context`'s failure."""
        ...

    def close(self) -> None:
        """Release the reporter's resources (a producer)."""
        ...
