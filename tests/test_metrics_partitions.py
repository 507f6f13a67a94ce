"""MirrorSource series for every assigned partition, in two flows of one dedicated process (A->B and C->B).

Followed: Kafka's MirrorSourceMetrics (connect/mirror), whose constructor registers the record-count,
record-rate, byte-count and byte-rate metrics of every partition in the task's configuration
(taskTopicPartitions, under its remote topic) when the task starts, so a series exists before any record
flows and a restarted task has one for each of its partitions again. The offset lag (this project's
addition) follows the source's end offsets whether or not the task moves records.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests import test_metrics_flows as flows
from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic, produce_many, read_to_end
from tests.harness.workers import wait_for
from tests.test_metrics import sample

P = "kafka_connect_mirror_mirrorsourceconnector_"
TASKS = {"A": 2, "C": 1}
broker_c = flows.broker_c  # the module's third cluster (a fixture)


@pytest.fixture
def from_start(tmp_path_factory: pytest.TempPathFactory, broker: Broker, broker_b: Broker,
               broker_c: Broker) -> Iterator[flows.Running]:
    """Both flows started on topics `<topic>.*`: `<topic>` (2 partitions, 200 records) on A and C, and
    `<topic>e` (2 partitions, empty) on A. Yields as soon as the process is started (nothing replicated)."""
    uid = uuid.uuid4().hex[:6]
    topic, groups = f"parts{uid}", {"A": f"pga{uid}", "C": f"pgc{uid}"}
    flows.seed(broker, topic, groups["A"])
    flows.seed(broker_c, topic, groups["C"])
    create_topic(broker.bootstrap, f"{topic}e", 2)
    running = flows.launch(tmp_path_factory.mktemp("parts"), {"A": broker, "B": broker_b, "C": broker_c}, topic,
                           f"topics = {topic}.*\ngroups = pg.{uid}\n", groups)
    try:
        yield running
    finally:
        running.mm.stop()


def _tasks_running(text: str, alias: str) -> bool:
    return all(sample(text, "kafka_connect_connector_task_status", **flows.FLOWS[alias],
                      connector="MirrorSourceConnector", task=str(t), status="running") == 1
               for t in range(TASKS[alias]))


def _missing(text: str, alias: str, partitions: list[tuple[str, int]]) -> list[str]:
    """The flow's remote partitions without a record_count or offset_lag series in this scrape."""
    return [f"{alias}.{t}-{p}" for t, p in partitions for name in ("record_count", "offset_lag")
            if sample(text, P + name, **flows.FLOWS[alias], topic=f"{alias}.{t}", partition=str(p)) is None]


def _count(text: str, alias: str, topic: str, partition: int) -> float:
    return sample(text, P + "record_count", **flows.FLOWS[alias], topic=f"{alias}.{topic}",
                  partition=str(partition)) or 0


def test_every_assigned_partition_has_series_from_task_start_and_across_a_restart(
        from_start: flows.Running, broker: Broker, broker_b: Broker) -> None:
    run, t = from_start, from_start.topic
    partitions = {"A": [(t, 0), (t, 1), (f"{t}e", 0), (f"{t}e", 1)], "C": [(t, 0), (t, 1)]}
    checked = {"A": 0, "C": 0}
    gaps: list[tuple[str, int, list[str]]] = []  # recorded, not raised: wait_for retries on exceptions

    def scrape_and_check() -> str:
        """One scrape: every partition of a flow whose source tasks run has its series."""
        text = run.scrape()
        for alias in partitions:
            if _tasks_running(text, alias):
                checked[alias] += 1
                missing = _missing(text, alias, partitions[alias])
                if missing:
                    gaps.append((alias, checked[alias], missing))
        return text

    first = wait_for(lambda: (lambda s: s if all(_tasks_running(s, a) for a in partitions) else None)(
        scrape_and_check()), 90, "both flows' source tasks running")
    assert sample(first, P + "record_count", **flows.FLOWS["A"], topic=f"A.{t}e", partition="0") == 0, \
        "an empty partition: its series at 0 from the task's start"
    wait_for(lambda: (lambda s: all(_count(s, a, t, p) == 100 for a in partitions for p in (0, 1)))(
        scrape_and_check()), 120, "both flows' records counted")
    # A new topic on A: topic discovery reconfigures A->B, whose tasks restart with the new assignment.
    create_topic(broker.bootstrap, f"{t}n", 1)
    before = dict(checked)
    wait_for(lambda: (lambda s: _tasks_running(s, "A") and not _missing(s, "A", [(f"{t}n", 0)]))(
        scrape_and_check()), 90, "A->B's tasks restarted with the new topic")
    partitions["A"].append((f"{t}n", 0))
    for _ in range(10):  # every scrape after the restart: the caught-up partitions keep their series
        scrape_and_check()
    assert checked["A"] - before["A"] >= 10 and checked["C"] - before["C"] >= 10, checked
    assert gaps == [], f"scrapes of running tasks without their partitions' series ({checked} checked)"
    assert {r[3] for r in read_to_end(broker_b.bootstrap, f"A.{t}")} == {f"{t}:{i}".encode() for i in range(200)}


def test_a_paused_tasks_lag_grows_with_the_source_end_offsets(from_start: flows.Running, broker: Broker) -> None:
    run, t = from_start, from_start.topic
    lag: dict[str, str] = {"topic": f"A.{t}", "partition": "0", **flows.FLOWS["A"]}
    c_lag = {**lag, "topic": f"C.{t}", **flows.FLOWS["C"]}
    # Both flows caught up on partition 0 first: C->B is the control that keeps running while A->B pauses.
    wait_for(lambda: (lambda s: all(_count(s, a, t, 0) == 100 for a in "AC") and sample(s, P + "offset_lag", **lag)
                      == 0 == sample(s, P + "offset_lag", **c_lag))(run.scrape()), 120, "both flows caught up on 0")
    put = httpx.put(run.url("A", "/connectors/MirrorSourceConnector/pause"), timeout=10)
    assert put.status_code == 202, put.text
    wait_for(lambda: all(task["state"] == "PAUSED" for task in httpx.get(
        run.url("A", "/connectors/MirrorSourceConnector/status"), timeout=10).json()["tasks"]), 30, "tasks paused")
    seen = []
    for batch in range(1, 4):  # 30 more records at a time: the paused task's lag grows with the end offset
        produce_many(broker.bootstrap, t, 30, 1, overrides={"linger.ms": "0", "batch.num.messages": "1"},
                     start=1000 * batch)
        text = wait_for(lambda batch=batch: (lambda s: s if sample(s, P + "offset_lag", **lag) == 30 * batch
                                             else None)(run.scrape()), 30, f"lag {30 * batch}")
        seen.append(sample(text, P + "offset_lag", **lag))
        assert _count(text, "A", t, 0) == 100, "paused: nothing replicated"
        assert sample(text, P + "offset_lag", **c_lag) == 0
    assert seen == [30, 60, 90]
    assert httpx.put(run.url("A", "/connectors/MirrorSourceConnector/resume"), timeout=10).status_code == 202
    wait_for(lambda: (lambda s: _count(s, "A", t, 0) == 190 and sample(s, P + "offset_lag", **lag) == 0)(
        run.scrape()), 60, "resumed: caught up, lag back to 0")
