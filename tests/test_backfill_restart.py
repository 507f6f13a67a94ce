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

from tests.harness.backfill import own_brokers, plan_key, records_on, source_key
from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic, produce_many, read_partitions, stored_offsets
from tests.harness.mirror import mirror_source
from tests.harness.workers import wait_for

pytest.importorskip("pyspark")
broker, broker_b = own_brokers()


def test_batch_task_restarted_mid_copy_resumes_exactly(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                       unique: str) -> None:
    t, parts, n = f"bfr{unique}", 4, 8_000
    create_topic(broker.bootstrap, t, parts)
    produce_many(broker.bootstrap, t, n, parts)
    cluster = cluster_factory(on=broker_b)
    (w,) = cluster.start(1)
    assert w.request("POST", "/connectors", {"name": "mm", "config": mirror_source(broker, broker_b, {
        "topics": t, "backfill.enabled": "true", "backfill.threshold.records": "1000",
        "spark.master": "local[2]", "spark.ui.enabled": "false"})}).status_code == 201

    def progress() -> dict[str, Any] | None:
        tasks = w.request("GET", "/connectors/mm/status").json()["tasks"]
        return next((task["progress"] for task in tasks if task.get("progress")), None)

    def a_quarter_copied() -> dict[str, Any] | None:
        p = progress()
        return p if p and p["records_copied"] >= p["records_total"] // 4 else None
    at_restart = wait_for(a_quarter_copied, 180, "a quarter of the backlog copied", interval=0.05)
    assert at_restart["records_copied"] < at_restart["records_total"], "copied before it could be restarted"
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
    resumed = [int(m) for m in re.findall(r"record\(s\) copied, (\d+) found already copied", w.log_path.read_text())]
    assert any(resumed), f"no range was resumed: {resumed}"
    print(f"\nrestarted at {at_restart['records_copied']:,}/{at_restart['records_total']:,}; "
          f"resumed and handed over in {time.monotonic() - restarted:.1f} s; {sum(resumed):,} records found already "
          f"copied; B == A on {parts} partitions")
