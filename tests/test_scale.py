"""Bad input at scale: a MirrorSourceConnector over hundreds of partitions with a tasks.max far
above the partition count, and a topic pattern that matches nothing."""

from __future__ import annotations

import time
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from connectors.mirror.source_connector import MAX_STREAMING_TASKS
from tests.harness.brokers import Broker
from tests.harness.kafka_io import produce, read_all
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, WorkerProcess, wait_for


def create_topics(bootstrap: str, names: list[str], partitions: int) -> None:
    """Many topics in one CreateTopics request each 100 (one request per topic takes minutes here)."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for i in range(0, len(names), 100):
        futures = admin.create_topics([NewTopic(n, partitions, 1) for n in names[i:i + 100]], request_timeout=60)
        for fut in futures.values():
            fut.result(120)


def running_tasks(worker: WorkerProcess, name: str) -> dict[str, Any] | None:
    """The connector's status once the connector and every task it has configs for are RUNNING."""
    configs = worker.request("GET", f"/connectors/{name}/tasks")
    r = worker.request("GET", f"/connectors/{name}/status")
    if r.status_code != 200 or configs.status_code != 200 or not configs.json():
        return None
    st: dict[str, Any] = r.json()
    ok = (st["connector"]["state"] == "RUNNING" and len(st["tasks"]) == len(configs.json())
          and all(t["state"] == "RUNNING" for t in st["tasks"]))
    return st if ok else None


def many_partitions(cluster_factory: Any, broker: Broker, broker_b: Broker, unique: str, topics: int) -> None:
    names = [f"sc{unique}-{i:04d}" for i in range(topics)]
    started = time.monotonic()
    create_topics(broker.bootstrap, names, 4)
    created = time.monotonic() - started
    partitions = topics * 4
    cluster: Cluster = cluster_factory(on=broker_b)
    (w,) = cluster.start(1)
    config = mirror_source(broker, broker_b, {"topics": f"sc{unique}-.*", "tasks.max": "1000",
                                             # the shared broker may hold `heartbeats`, which MM2 always copies
                                             "heartbeats.replication.enabled": "false",
                                             "refresh.topics.interval.seconds": "600"})
    started = time.monotonic()
    assert w.request("POST", "/connectors", {"name": "mm", "config": config}).status_code == 201
    st = wait_for(lambda: running_tasks(w, "mm"), 300, f"every task of a {partitions}-partition mirror RUNNING",
                  interval=1)
    tasks = len(st["tasks"])
    took = time.monotonic() - started
    # MirrorSourceConnector.taskConfigs deals partitions round-robin over min(tasks.max, partitions) tasks;
    # ours also stops at MAX_STREAMING_TASKS (a worker process fits ~1,000 Kafka clients), every partition
    # in exactly one task.
    configs = w.request("GET", "/connectors/mm/tasks").json()
    owned = [tp for c in configs for tp in c["config"]["task.assigned.partitions"].split(",")]
    assert sorted(owned) == sorted(f"{n}-{p}" for n in names for p in range(4))
    assert tasks == min(1000, partitions, MAX_STREAMING_TASKS) == len(configs)
    sizes = {len(c["config"]["task.assigned.partitions"].split(",")) for c in configs}
    assert max(sizes) - min(sizes) <= 1, sizes
    assert "would start" in w.log_path.read_text(errors="replace"), "the cap is not logged"
    # and it replicates: one record into the last topic's last partition reaches B
    produce(broker.bootstrap, names[-1], [(b"k", b"v")], partition=3)
    wait_for(lambda: read_all(broker_b.bootstrap, f"A.{names[-1]}", idle=0.5, expect=1), 60,
             "a record through the wide mirror")
    assert w.process is not None and w.process.poll() is None
    print(f"\nSCALE: {partitions} partitions ({created:.0f} s to create), tasks.max=1000 -> {tasks} tasks "
          f"RUNNING after {took:.0f} s")


def test_tasks_max_far_above_400_partitions(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                            unique: str) -> None:
    many_partitions(cluster_factory, broker, broker_b, unique, 100)


@pytest.mark.slow
def test_tasks_max_1000_over_2000_partitions(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                             unique: str) -> None:
    many_partitions(cluster_factory, broker, broker_b, unique, 500)


def test_pattern_matching_no_topic_runs_with_no_tasks(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                      unique: str) -> None:
    """MirrorSourceConnector.taskConfigs returns no task configs when no partition is known; Connect then
    reports the connector RUNNING with tasks []. The worker log says why there are no tasks."""
    cluster: Cluster = cluster_factory(on=broker_b)
    (w,) = cluster.start(1)
    pattern = f"nothing{unique}-.*"
    assert w.request("POST", "/connectors", {"name": "empty", "config": mirror_source(
        broker, broker_b, {"topics": pattern, "tasks.max": "4",
                           "heartbeats.replication.enabled": "false"})}).status_code == 201

    def settled() -> dict[str, Any] | None:
        r = w.request("GET", "/connectors/empty/status")
        return r.json() if r.status_code == 200 and r.json()["connector"]["state"] == "RUNNING" else None
    st = wait_for(settled, 60, "the connector RUNNING")
    time.sleep(3)  # a refresh cycle (2 s): still nothing to do, still no task
    st = w.request("GET", "/connectors/empty/status").json()
    assert st["connector"]["state"] == "RUNNING" and st["tasks"] == [], st
    assert w.request("GET", "/connectors/empty/tasks").json() == []
    line = f"no source topic on A matches topics={pattern}"
    wait_for(lambda: line in w.log_path.read_text(errors="replace"), 30, "the log line saying why")
