"""The last 15 minutes of a worker's lag, throughput and latency figures, for the operator console.

A thread samples the worker's own metrics (what its Prometheus collector serves: whatever the running
connectors and tasks registered on their context) every `console.sample.interval.ms` and keeps each
series in a ring buffer. The runtime knows no connector, so the figures are picked by the metric
names' endings (MirrorMaker 2's `..._offset_lag`, `..._record_rate`, `..._record_age_ms`,
`..._replication_latency_ms`, `..._checkpoint_latency_ms`, and any connector's series named alike),
and a series is named by its labels (`topic-partition`, the consumer group first where there is one).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pyconnect.runtime.metrics.worker_metrics import WorkerCollector, WorkerState

log = logging.getLogger(__name__)

WINDOW_S = 900.0
TOTAL = "total"

Point = tuple[float, float]


@dataclass(frozen=True)
class Kind:
    """One figure the console charts: the metric-name ending it is read from and how its series add up."""

    key: str
    title: str
    suffix: str
    scale: float
    combine: Callable[[list[float]], float]
    per_group: bool = False  # series per consumer group and partition, not per partition


KINDS = (
    Kind("lag_records", "Lag (records)", "_offset_lag", 1.0, sum),
    Kind("lag_seconds", "Lag (seconds, age of the newest record polled)", "_record_age_ms", 0.001, max),
    Kind("throughput", "Throughput (records/s)", "_record_rate", 1.0, sum),
    Kind("replication_latency_ms", "Replication latency (ms)", "_replication_latency_ms", 1.0, max),
    Kind("checkpoint_latency_ms", "Checkpoint latency (ms)", "_checkpoint_latency_ms", 1.0, max, True),
)
_BY_SUFFIX = {kind.suffix: kind for kind in KINDS}
# Figures the console shows as current values, not charts (by metric-name ending): where a flow's target
# hears from (MirrorSourceConnector's upstream hops) and each group's newest checkpoint.
CURRENT = ("_upstream_replication_hops", "_checkpoint_timestamp_seconds")
Current = list[tuple[dict[str, str], float]]


def _charted(name: str) -> bool:
    """Whether `sample` reads the series named `name` (the others are not built for it)."""
    return name.endswith(CURRENT) or name.endswith(tuple(_BY_SUFFIX))


def series_name(labels: Mapping[str, str]) -> str:
    """`topic-partition` (`group topic-partition` for a group's figure; the task for other series)."""
    if "topic" in labels:
        where = f"{labels['topic']}-{labels.get('partition', '')}".rstrip("-")
        return f"{labels['group']} {where}" if "group" in labels else where
    return "/".join(labels[k] for k in ("connector", "task") if k in labels) or TOTAL


class MetricHistory:
    """Ring buffers of the worker's figures over the last `window` seconds, one per series and kind,
    plus each kind's total (sum of lags and rates, the highest latency) under the name "total"."""

    def __init__(self, worker: WorkerState, labels: Mapping[str, str], interval: float,
                 window: float = WINDOW_S) -> None:
        self._collector = WorkerCollector(worker, labels, _charted)
        self.interval, self.window = interval, window
        self._capacity = int(window / interval) + 1
        self._series: dict[str, dict[str, deque[Point]]] = {kind.key: {} for kind in KINDS}
        self._current: dict[str, Current] = {}  # replaced whole at each sample
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Sample every `interval` seconds on a daemon thread until `stop()`."""
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="metric-history", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.sample()
            except Exception:  # a failed sample leaves a gap in the charts, not a dead sampler
                log.warning("sampling the worker's metrics failed", exc_info=True)

    def sample(self, now: float | None = None) -> None:
        """Read the worker's metrics once and append what the console charts (`now`: wall-clock seconds)."""
        at = time.time() if now is None else now
        found: dict[str, dict[str, float]] = {kind.key: {} for kind in KINDS}
        current: dict[str, Current] = {}
        for family in self._collector.collect():
            ending = next((s for s in CURRENT if family.name.endswith(s)), None)
            if ending is not None:
                current.setdefault(ending, []).extend((dict(s.labels), s.value) for s in family.samples)
                continue
            kind = _BY_SUFFIX.get(next((s for s in _BY_SUFFIX if family.name.endswith(s)), ""))
            if kind is None:
                continue
            for sample in family.samples:
                name = series_name(sample.labels)
                values = found[kind.key]
                values[name] = max(values.get(name, 0.0), sample.value * kind.scale)
        with self._lock:
            self._current = current
            for kind in KINDS:
                values = found[kind.key]
                if values:
                    values[TOTAL] = kind.combine(list(values.values()))
                self._append(self._series[kind.key], values, at)

    def _append(self, series: dict[str, deque[Point]], values: Mapping[str, float], at: float) -> None:
        for name, value in values.items():
            points = series.get(name)
            if points is None:
                points = series[name] = deque(maxlen=self._capacity)
            points.append((at, value))
        for name in [n for n, points in series.items() if points[-1][0] < at - self.window]:
            del series[name]  # its partition went (reassigned, topic deleted) over a window ago

    def series(self, kind: str) -> dict[str, list[Point]]:
        """The points of each series of `kind` (one of KINDS' keys), oldest first, within the window."""
        with self._lock:
            return {name: list(points) for name, points in self._series[kind].items()}

    def current(self, ending: str) -> Current:
        """The latest sample's values of the figure named `ending` (one of CURRENT), with their labels."""
        with self._lock:
            return list(self._current.get(ending, []))
