"""A batch task restarted in the middle of its copy, inside one worker: the running Spark job is cancelled,
a new Spark session starts, and every range resumes from what is already on the target without copying a
record twice. Connect's `POST /connectors/{name}/tasks/{id}/restart` (Kafka's ConnectorsResource.restartTask)
is the trigger; a worker that loses its session under load restarts its tasks the same way.

The resumed copy measures B with ListOffsets: the harness's one-record batches keep Tansu's answer exact (with
the copy's producer in bulk batches, this restart wrote 3,683 records of one partition twice: the rest of its
last batch, whose base offset + 1 Tansu reported as the end)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from confluent_kafka import Consumer

from tests.harness.backfill import end_offsets, own_brokers, plan_key, records_on, source_key
from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic, produce_many, read_partitions, stored_offsets
from tests.harness.mirror import mirror_source
from tests.harness.workers import wait_for

pytest.importorskip("pyspark")
broker, broker_b = own_brokers()


def test_batch_task_restarted_mid_copy_resumes_exactly(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                       unique: str) -> None:
    t, parts, n = f"bfr{unique}", 2, 30_000  # ranges of ~15,000: longer than a restart takes to stop the copy
    create_topic(broker.bootstrap, t, parts)
    produce_many(broker.bootstrap, t, n, parts)
    cluster = cluster_factory(on=broker_b)
    (w,) = cluster.start(1)
    assert w.request("POST", "/connectors", {"name": "mm", "config": mirror_source(broker, broker_b, {
        "topics": t, "backfill.enabled": "true", "backfill.threshold.records": "1000",
        "spark.master": "local[2]", "spark.ui.enabled": "false", "spark.python.task.killTimeout": "100ms",
        # produce requests of at most 10 KB (tens of records): B's end offsets move in small steps, not in
        # one request of a thousand records that would jump over the window below
        "backfill.producer.message.max.bytes": "10000"})}).status_code == 201

    # Restart early in a range (at most a quarter copied), as seen on B itself (ListOffsets every 20 ms): the
    # task's progress is published once a second, too late (the first ranges could be done). A restart takes
    # ~1.5 s to stop the copy (the REST call, then Spark's cancel); the ranges are long enough to outlast it.
    probe = Consumer({"bootstrap.servers": broker_b.bootstrap, "group.id": "probe"})
    try:
        def started() -> tuple[int, int] | None:
            ends = end_offsets(probe, f"A.{t}", parts)  # raises until the remote topic exists: polled again
            return next(((p, end) for p, end in ends.items() if 0 < end <= n // parts // 4), None)
        partition, seen = wait_for(started, 180, "a range started on B", interval=0.02)
    finally:
        probe.close()
    restarted = time.monotonic()
    assert w.request("POST", "/connectors/mm/tasks/0/restart").status_code in (202, 204)

    def handed_over() -> bool:
        tasks = w.request("GET", "/connectors/mm/status").json()["tasks"]
        return bool(tasks) and all("progress" not in task and task["state"] == "RUNNING" for task in tasks)
    wait_for(handed_over, 240, "streaming after the resumed backfill")
    source = read_partitions(broker.bootstrap, t, n)
    target = records_on(broker_b.bootstrap, f"A.{t}", parts, n)  # streaming copies what lies past the ranges
    offsets = stored_offsets(broker_b.bootstrap, f"{cluster.group}-offsets", "mm")
    for p in range(parts):
        assert target[p] == source[p], (
            f"partition {p}: {len(target[p])} records on B, {len(source[p])} on A")
        plan = offsets[plan_key(t, p)]
        # handed over at `end` (streaming has committed past it since)
        assert plan["done"] and offsets[source_key(t, p)]["offset"] >= plan["end"] - 1
    # the second run resumed inside ranges: it found records of the first run on B and went on after them
    # (the last line of a partition is its resumed run's; a range done before the restart has one line only)
    resumed = {int(m[0]): int(m[1]) for m in re.findall(
        rf"backfilled {t}-(\d+): \d+ record\(s\) copied, (\d+) found already copied", w.log_path.read_text())}
    assert resumed.get(partition, 0) >= seen, (
        f"partition {partition} had {seen} records on B at the restart; the resumed run found {resumed}")
    print(f"\nrestarted with {seen:,} records of partition {partition} on B; resumed and handed over in "
          f"{time.monotonic() - restarted:.1f} s; found already copied: {resumed}; B == A on {parts} partitions")
