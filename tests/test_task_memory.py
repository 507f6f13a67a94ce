"""A worker that stops and restarts tasks keeps no stopped task's clients and does not grow with each task.

Kafka has no such test (the JVM's heap is bounded by -Xmx); the bound is the project's (RSS <= 500 MB across
bench/wan_bench.py's 48 sequential tasks). What a stopped task held: its clients are destroyed once its
runner is collected, and its runner's objects are cyclic (pyconnect/kafka/native_memory.py), so the worker
collects after stopping tasks; librdkafka's threads free their buffers into per-thread malloc arenas, so
the process limits them to 2 and trims after tasks stop (bench/task_rss_probe.py, docs/benchmarks.md).

One real worker process (`python -m replikafka distributed`), one MirrorSource connector copying 1 KB
records between two Tansu brokers, stopped and resumed through REST (Connect's PUT /connectors/{c}/stop and
/resume, KIP-875): each resume starts a new task, which copies what was produced meanwhile. With the
connector STOPPED (no task), read from outside the process: its librdkafka threads (/proc/PID/task/*/comm,
`rdk:*`) and its RSS.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psutil
from confluent_kafka import Producer

from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic, fetched_ends
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, WorkerProcess, wait_for

RECORDS, SIZE, PARTITIONS, TASKS = 20_000, 1000, 4, 6
# RSS the worker may gain from the first stop to the last. Measured over 6 tasks (2026-11-26): +3 MB with
# 2 arenas and the release; +27 MB with the release only (glibc's 16 arenas), +63 MB with the arenas only,
# +179 MB with neither (and 3 more librdkafka threads per stopped task until a gc happened to run).
GROWTH_MB = 15


def rdk_threads(pid: int) -> int:
    """The librdkafka threads of process `pid` (librdkafka names its threads rdk:main, rdk:broker...)."""
    count = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            count += (task / "comm").read_text().startswith("rdk:")
        except OSError:
            continue  # the thread ended while being listed
    return count


def produce(bootstrap: str, topic: str, count: int, start: int) -> None:
    """`count` records of SIZE bytes, round-robin over the partitions."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(start, start + count):
        while True:
            try:
                producer.produce(topic, b"%08d" % i + b"v" * (SIZE - 8), key=b"k%d" % i, partition=i % PARTITIONS)
                break
            except BufferError:
                producer.poll(0.05)
    assert producer.flush(60) == 0


def copied(bootstrap: str, topic: str) -> int:
    return sum(fetched_ends(bootstrap, topic).values())


def stopped(worker: WorkerProcess, name: str) -> bool:
    """The connector and its tasks are STOPPED (Connect's PUT /connectors/{c}/stop: the tasks are gone)."""
    status = worker.request("GET", f"/connectors/{name}/status").json()
    return bool(status["connector"]["state"] == "STOPPED" and not status["tasks"])


def test_stopped_tasks_leave_no_clients_and_no_growth(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                      unique: str) -> None:
    topic = f"mem{unique}"
    create_topic(broker.bootstrap, topic, PARTITIONS)
    # Batched produce (as in production) instead of the harness's one-record requests: the copies are the load.
    cluster: Cluster = cluster_factory(on=broker_b, extra={"producer.batch.num.messages": "10000",
                                                           "producer.linger.ms": "5"})
    (w,) = cluster.start(1)
    assert w.process is not None
    worker = psutil.Process(w.process.pid)
    alone = rdk_threads(worker.pid)  # the worker's own clients: what a stopped connector leaves behind
    config = mirror_source(broker, broker_b, {"topics": topic, "tasks.max": "1"})
    assert w.request("POST", "/connectors", {"name": "mm", "config": config}).status_code == 201
    threads: list[int] = []
    rss: list[float] = []
    for n in range(1, TASKS + 1):
        produce(broker.bootstrap, topic, RECORDS, (n - 1) * RECORDS)
        if n > 1:  # a new task, which copies what was produced while the connector was stopped
            assert w.request("PUT", "/connectors/mm/resume").status_code == 202
        wait_for(lambda n=n: copied(broker_b.bootstrap, f"A.{topic}") == n * RECORDS, 60, f"copy {n}")
        assert w.request("PUT", "/connectors/mm/stop").status_code == 204
        wait_for(lambda: stopped(w, "mm"), 30, "the task stopped")
        # A stopped task's runner ends on its own thread after the status says STOPPED (the worker's loop does
        # not wait for it: pyconnect/runtime/retiring.py); its clients must then be gone.
        threads.append(wait_for(lambda: (lambda t: t if t <= alone else 0)(rdk_threads(worker.pid)), 30,
                                f"the stopped task's clients closed (the worker alone had {alone} threads)"))
        rss.append(worker.memory_info().rss / 1e6)
    print(f"librdkafka threads with the connector stopped: {threads}; RSS (MB): {[round(r) for r in rss]}")
    assert max(threads) == min(threads), f"a stopped task's clients are still alive: threads {threads}"
    assert rss[-1] - rss[0] <= GROWTH_MB, f"RSS grew {rss[-1] - rss[0]:.0f} MB over {TASKS} tasks: {rss}"
