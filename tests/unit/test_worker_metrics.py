"""Per-worker collectors merged into one /metrics: each flow's series, read at scrape time."""

from __future__ import annotations

from dataclasses import dataclass, field

from prometheus_client import generate_latest

from connectors.mirror.metrics import CheckpointMetrics, SourceMetrics
from pyconnect.api.metrics import MetricSample
from pyconnect.api.task_id import TaskId
from pyconnect.runtime.metrics.endpoint import MergingRegistry
from pyconnect.runtime.metrics.worker_metrics import TaskMetricsRegistry, WorkerCollector


@dataclass
class _Runner:
    state: str
    metrics: TaskMetricsRegistry = field(default_factory=TaskMetricsRegistry)


@dataclass
class _Worker:
    connectors: dict[str, _Runner]
    tasks: dict[TaskId, _Runner]


def _flow(source: str, tasks: int) -> tuple[_Worker, SourceMetrics]:
    worker = _Worker({"MirrorSourceConnector": _Runner("RUNNING")},
                     {TaskId("MirrorSourceConnector", i): _Runner("RUNNING") for i in range(tasks)})
    metrics = SourceMetrics(source, "B", worker.tasks[TaskId("MirrorSourceConnector", 0)].metrics)
    metrics.polled(f"{source}.t", 0, 100, 1, 2)
    metrics.acked(f"{source}.t", 0, 10, 2, 10)
    metrics.publish(force=True)
    return worker, metrics


def _scrape(registry: MergingRegistry) -> list[str]:
    return generate_latest(registry).decode().splitlines()


def test_two_flows_in_one_registry_keep_their_own_series() -> None:
    registry = MergingRegistry()
    (a, _), (c, _) = _flow("A", 2), _flow("C", 1)
    registry.register(WorkerCollector(a, {"source": "A", "target": "B"}))
    registry.register(WorkerCollector(c, {"source": "C", "target": "B"}))
    lines = _scrape(registry)
    assert sum(line.startswith("# TYPE kafka_connect_worker_task_count ") for line in lines) == 1
    assert 'kafka_connect_worker_task_count{source="A",target="B"} 2.0' in lines
    assert 'kafka_connect_worker_task_count{source="C",target="B"} 1.0' in lines
    assert ('kafka_connect_connector_task_status{connector="MirrorSourceConnector",source="A",status="running",'
            'target="B",task="1"} 1.0') in lines
    for source in "AC":
        assert any(line.startswith("kafka_connect_mirror_mirrorsourceconnector_record_count{")
                   and f'source="{source}"' in line and line.endswith(" 10.0") for line in lines), source
    assert lines == _scrape(registry), "read from the workers' state: the same at every scrape"


def test_a_stopped_task_has_no_series_and_a_series_is_served_once() -> None:
    registry = MergingRegistry()
    worker, metrics = _flow("A", 1)
    registry.register(WorkerCollector(worker, {}))
    registry.register(WorkerCollector(worker, {}))  # the same series twice: Prometheus would refuse the scrape
    lines = _scrape(registry)
    assert sum(line.startswith("kafka_connect_worker_task_count ") for line in lines) == 1
    assert sum(line.startswith("kafka_connect_mirror_mirrorsourceconnector_byte_count{") for line in lines) == 1
    worker.tasks[TaskId("MirrorSourceConnector", 0)].metrics.close()
    assert not any("mirrorsourceconnector" in line for line in _scrape(registry))


def test_mirror_task_samples() -> None:
    registry = TaskMetricsRegistry()
    source = SourceMetrics("A", "B", registry)
    checkpoints = CheckpointMetrics("A", "B", registry)
    source.assign([("t", "A.t", 3, 0)], lambda topic, partition: (0, 7))
    source.polled("A.t", 3, 50, 1, 1)
    checkpoints.acked("g", "t", 0, 12.0)
    checkpoints.acked("g", "t", 0, 4.0)
    by_name = {s.name: s for s in registry.samples()}
    assert by_name["kafka_connect_mirror_mirrorsourceconnector_offset_lag"].value == 7
    assert by_name["kafka_connect_mirror_mirrorsourceconnector_byte_count"].labels == {
        "source": "A", "target": "B", "topic": "A.t", "partition": "3"}
    prefix = "kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms"
    assert [by_name[prefix + s].value for s in ("", "_min", "_max", "_avg")] == [4.0, 4.0, 12.0, 8.0]
    assert "kafka_connect_mirror_mirrorsourceconnector_replication_latency_ms" not in by_name, "nothing acked yet"


def test_assigned_partitions_have_series_from_the_start_and_lag_from_end_offsets() -> None:
    """Java's MirrorSourceMetrics registers each assigned partition (under its remote topic) when the task
    starts: record_count 0 before any record; the lag follows the end offset whether or not records come,
    and the acknowledged position once they do."""
    registry = TaskMetricsRegistry()
    source = SourceMetrics("A", "B", registry)
    ends = {("t", 0): (0, 5), ("t", 1): (-1, -1)}
    source.assign([("t", "A.t", 0, 2), ("t", "A.t", 1, -1)], lambda topic, partition: ends[(topic, partition)])

    def value(name: str, partition: int) -> float:
        return next(s.value for s in registry.samples() if s.name == "kafka_connect_mirror_mirrorsourceconnector_"
                    + name and s.labels["partition"] == str(partition))

    assert [value("record_count", p) for p in (0, 1)] == [0, 0]
    assert [value("offset_lag", p) for p in (0, 1)] == [3, 0], "committed at 1 (next 2), end 5; end unknown"
    ends[("t", 0)], ends[("t", 1)] = (0, 9), (0, 4)
    assert [value("offset_lag", p) for p in (0, 1)] == [7, 4], "no record polled: the end offsets alone"
    source.acked("A.t", 0, 6, 1, 8)
    assert (value("record_count", 0), value("offset_lag", 0)) == (6, 1)
    source.detach()
    ends[("t", 0)] = (0, 100)
    assert value("offset_lag", 0) == 1, "detached (consumers closing): the last lag stays"


def test_a_failing_provider_does_not_break_the_scrape() -> None:
    registry = TaskMetricsRegistry()

    def broken() -> list[object]:
        raise RuntimeError("boom")

    registry.register(broken)  # type: ignore[arg-type]
    SourceMetrics("A", "B", registry).polled("A.t", 0, 1, 1, 1)
    assert {s.name for s in registry.samples()} >= {"kafka_connect_mirror_mirrorsourceconnector_byte_count"}


def test_a_connectors_own_series_are_served_while_it_runs() -> None:
    """The MirrorSource connector counts topic deletions on its own context (not a task's)."""
    from connectors.mirror.metrics import TopicDeletionMetrics

    worker = _Worker({"MirrorSourceConnector": _Runner("RUNNING")}, {})
    deletions = TopicDeletionMetrics("A", "B", worker.connectors["MirrorSourceConnector"].metrics)
    deletions.deleted, deletions.refused = 2, 1
    registry = MergingRegistry()
    registry.register(WorkerCollector(worker, {}))
    lines = _scrape(registry)
    p = "kafka_connect_mirror_mirrorsourceconnector_"
    assert f'{p}topic_deletions_total{{source="A",target="B"}} 2.0' in lines
    assert f'{p}topic_deletions_refused_total{{source="A",target="B"}} 1.0' in lines
    worker.connectors["MirrorSourceConnector"].metrics.close()
    assert not any("topic_deletions" in line for line in _scrape(registry))


def _status(lines: list[str], task: int, status: str) -> bool:
    return any(line.startswith("kafka_connect_connector_task_status{") and f'task="{task}"' in line
               and f'status="{status}"' in line and line.endswith(" 1.0") for line in lines)


def test_a_task_starting_or_stopping_during_a_scrape_is_never_running_without_its_series() -> None:
    """The race CI met: the scrape read a starting task's (empty) series, then its state, by then RUNNING."""
    registry = MergingRegistry()
    worker, _ = _flow("A", 1)
    starting = TaskId("MirrorSourceConnector", 1)
    worker.tasks[starting] = _Runner("UNASSIGNED")
    last = _Runner("RUNNING")  # read after the starting task: it starts the task while the scrape runs
    worker.tasks[TaskId("MirrorSourceConnector", 2)] = last

    def start_during_scrape() -> list[MetricSample]:
        if worker.tasks[starting].state != "RUNNING":
            SourceMetrics("A", "B", worker.tasks[starting].metrics).assign([("t", "A.t", 1, 0)], lambda t, p: (0, 0))
            worker.tasks[starting].state = "RUNNING"  # as a runner: series registered, then RUNNING
        return []

    last.metrics.register(start_during_scrape)
    registry.register(WorkerCollector(worker, {}))
    lines = _scrape(registry)
    assert _status(lines, 1, "unassigned") and not _status(lines, 1, "running"), "reported as it was before"
    lines = _scrape(registry)
    assert _status(lines, 1, "running")
    assert any(line.startswith("kafka_connect_mirror_mirrorsourceconnector_record_count{") and 'partition="1"' in line
               for line in lines), "the next scrape: running, with its series"

    def stop_during_scrape() -> list[MetricSample]:
        runner = worker.tasks[TaskId("MirrorSourceConnector", 0)]
        runner.state = "UNASSIGNED"  # as TaskThread._stop_running: the state first, then the series go
        runner.metrics.close()
        return []

    last.metrics.register(stop_during_scrape)
    assert _status(_scrape(registry), 0, "unassigned")
