"""The idle cost of the metrics (bench/scale_bench.py's idle figure): an idle partition costs the source task's
`publish` nothing once its rates are back at 0, a scrape reuses the samples of a partition whose figures did not
move, and the console's history builds only the series it charts. Each keeps what is read exactly as before."""

from __future__ import annotations

from dataclasses import dataclass, field

from connectors.mirror.metrics import SourceMetrics
from pyconnect.api.metrics import MetricSample
from pyconnect.api.task_id import TaskId
from pyconnect.runtime.metrics.history import MetricHistory
from pyconnect.runtime.metrics.worker_metrics import TaskMetricsRegistry, WorkerCollector

P = "kafka_connect_mirror_mirrorsourceconnector_"


@dataclass
class _Runner:
    state: str = "RUNNING"
    metrics: TaskMetricsRegistry = field(default_factory=TaskMetricsRegistry)


@dataclass
class _Worker:
    connectors: dict[str, _Runner] = field(default_factory=dict)
    tasks: dict[TaskId, _Runner] = field(default_factory=dict)


def _values(metrics: SourceMetrics) -> dict[tuple[str, str], float]:
    return {(s.name, s.labels["partition"]): s.value for s in metrics.samples()}


def _task(partitions: int) -> tuple[_Worker, SourceMetrics, dict[int, int]]:
    """A worker running one mirror task over `partitions` partitions of `t`; `ends` are their high watermarks."""
    worker = _Worker(tasks={TaskId("MirrorSourceConnector", 0): _Runner()})
    metrics = SourceMetrics("A", "B", worker.tasks[TaskId("MirrorSourceConnector", 0)].metrics)
    ends = dict.fromkeys(range(partitions), 0)
    metrics.assign([("t", "A.t", p, 0) for p in range(partitions)], lambda _t, p: (0, ends[p]))
    return worker, metrics, ends


def test_publish_leaves_idle_partitions_alone_and_takes_them_up_when_they_move() -> None:
    _, metrics, _ = _task(3)
    metrics.publish(force=True)  # every partition's first window entry
    metrics.publish(force=True)
    assert metrics._moving == set(), "idle at rate 0: no partition for publish to look at"
    metrics.polled("A.t", 1, 500, 1, 1)
    metrics.acked("A.t", 1, 5, 1, 5)
    assert metrics._moving == {("A.t", 1)}
    metrics.publish(force=True)
    rate = _values(metrics)[(P + "record_rate", "1")]
    assert rate > 0, "the partition that moved has its rate"
    assert _values(metrics)[(P + "record_rate", "0")] == 0.0
    for _ in range(40):  # within its 30 s window its rate stays above 0, and it stays looked at
        metrics.publish(force=True)
    assert _values(metrics)[(P + "record_rate", "1")] > 0
    assert metrics._moving == {("A.t", 1)}


def test_scrape_reuses_the_samples_of_a_partition_whose_figures_did_not_move() -> None:
    _, metrics, ends = _task(2)
    metrics.acked("A.t", 0, 3, 1, 3)
    first = metrics.samples()
    second = metrics.samples()
    assert [s.value for s in first] == [s.value for s in second]
    assert all(a is b for a, b in zip(first, second, strict=True)), "nothing moved: the same samples"
    ends[0] = 10  # the source grew: the lag moves, read at the scrape as before
    assert _values(metrics)[(P + "offset_lag", "0")] == 7
    metrics.acked("A.t", 1, 2, 1, 2)
    values = _values(metrics)
    assert values[(P + "record_count", "1")] == 2 and values[(P + "replication_latency_ms", "1")] > 0
    assert values[(P + "record_count", "0")] == 3


def test_history_builds_only_the_series_it_charts_and_charts_the_same() -> None:
    worker, metrics, ends = _task(4)
    for p in range(4):
        metrics.polled("A.t", p, 100, 1, 1)
        metrics.acked("A.t", p, 1, 1, 1)
        ends[p] = 5
    metrics.publish(force=True)
    every = {f.name for f in WorkerCollector(worker, {}).collect()}
    charted = {f.name for f in MetricHistory(worker, {}, 5.0)._collector.collect()}
    assert P + "byte_count" in every and P + "byte_count" not in charted
    assert P + "record_age_ms_max" in every and P + "record_age_ms_max" not in charted
    assert {P + "offset_lag", P + "record_rate", P + "record_age_ms", P + "replication_latency_ms"} <= charted
    history = MetricHistory(worker, {}, 5.0)
    history.sample(now=1000.0)
    assert history.series("lag_records")["total"] == [(1000.0, 16.0)]  # 4 partitions x (5 - 1)
    assert set(history.series("lag_records")) == {"A.t-0", "A.t-1", "A.t-2", "A.t-3", "total"}


def test_collector_filter_is_asked_once_per_name() -> None:
    asked: list[str] = []
    runner = _Runner()
    runner.metrics.register(lambda: [MetricSample("x_offset_lag", "", {"partition": str(p)}, 1.0)
                                     for p in range(50)] + [MetricSample("x_other", "", {}, 2.0)])
    collector = WorkerCollector(_Worker(tasks={TaskId("c", 0): runner}), {},
                                lambda name: asked.append(name) or name.endswith("_offset_lag"))
    for _ in range(3):
        names = {f.name: len(f.samples) for f in collector.collect()}
        assert names["x_offset_lag"] == 50 and "x_other" not in names
    assert sorted(asked) == ["x_offset_lag", "x_other"]
