"""How a task exposes metrics: it registers a provider of gauge samples on its context, and the
runtime reads it when `/metrics` is scraped, for as long as the task runs.

Providers are called from the scraping thread, not the task's: they must read the task's figures
under the task's own lock (or from values that are replaced, never mutated, by the task).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class MetricSample:
    """One gauge value: `name` (Prometheus syntax) with its `labels`. `documentation` is the family's
    HELP text (samples of one name should share it)."""

    name: str
    documentation: str
    labels: Mapping[str, str]
    value: float


MetricsProvider = Callable[[], Iterable[MetricSample]]


class TaskMetrics(Protocol):
    """The metrics registration a task finds on its context (`context.metrics`)."""

    def register(self, provider: MetricsProvider) -> None:
        """Read `provider()` at every scrape until the task stops."""
