"""The console's metric history: series picked by name, totals, the 15-minute window, the rendering."""

from __future__ import annotations

from dataclasses import dataclass, field

from pyconnect.api.metrics import MetricSample
from pyconnect.api.task_id import TaskId
from pyconnect.runtime.metrics.history import TOTAL, MetricHistory, series_name
from pyconnect.runtime.metrics.worker_metrics import TaskMetricsRegistry
from rest.console_charts import charts_html, partitions_html

P = "kafka_connect_mirror_mirrorsourceconnector_"


@dataclass
class FakeRunner:
    state: str = "RUNNING"
    metrics: TaskMetricsRegistry = field(default_factory=TaskMetricsRegistry)


@dataclass
class FakeWorker:
    connectors: dict[str, FakeRunner] = field(default_factory=dict)
    tasks: dict[TaskId, FakeRunner] = field(default_factory=dict)


def mirror_worker(partitions: int, lag: list[float]) -> FakeWorker:
    """A worker with one mirror task reporting `partitions` partitions of topic A.t, lag `lag[0]` each."""
    runner = FakeRunner()

    def samples() -> list[MetricSample]:
        out = []
        for p in range(partitions):
            labels = {"source": "A", "target": "B", "topic": "A.t", "partition": str(p)}
            out += [MetricSample(P + "offset_lag", "", labels, lag[0]),
                    MetricSample(P + "record_rate", "", labels, 10.0),
                    MetricSample(P + "record_age_ms", "", labels, 1500.0),
                    MetricSample(P + "record_age_ms_max", "", labels, 99999.0)]
        return out
    runner.metrics.register(samples)
    return FakeWorker(tasks={TaskId("mm", 0): runner})


def test_samples_per_partition_with_totals() -> None:
    lag = [5.0]
    history = MetricHistory(mirror_worker(3, lag), {}, interval=5.0)
    history.sample(now=1000.0)
    lag[0] = 7.0
    history.sample(now=1005.0)
    lags = history.series("lag_records")
    assert lags["A.t-0"] == [(1000.0, 5.0), (1005.0, 7.0)]
    assert lags[TOTAL] == [(1000.0, 15.0), (1005.0, 21.0)]
    assert history.series("throughput")[TOTAL][-1] == (1005.0, 30.0)
    assert history.series("lag_seconds")[TOTAL][-1] == (1005.0, 1.5), "the _max variant is not the lag"
    assert history.series("checkpoint_latency_ms") == {}


def test_ring_buffer_keeps_the_window() -> None:
    history = MetricHistory(mirror_worker(1, [1.0]), {}, interval=5.0, window=60.0)
    for i in range(100):
        history.sample(now=1000.0 + 5 * i)
    points = history.series("lag_records")[TOTAL]
    assert len(points) == 13 and points[-1][0] == 1495.0 and points[0][0] == 1435.0


def test_series_names() -> None:
    assert series_name({"topic": "A.t", "partition": "3"}) == "A.t-3"
    assert series_name({"group": "g", "topic": "t", "partition": "0"}) == "g t-0"
    assert series_name({"connector": "c", "task": "1"}) == "c/1"


def test_rendered_charts_and_table() -> None:
    history = MetricHistory(mirror_worker(4, [3.0]), {}, interval=5.0)
    for i in range(3):
        history.sample(now=1000.0 + 5 * i)
    charts = charts_html(history, now=1010.0)
    assert 'data-kind="lag_records" data-points="3"' in charts and "<polyline" in charts
    assert 'data-kind="checkpoint_latency_ms" data-points="0"' in charts and "no data yet" in charts
    table = partitions_html(history, now=1010.0)
    assert table.count('<tr class="partition">') == 4
