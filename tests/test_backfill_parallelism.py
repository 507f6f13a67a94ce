"""`backfill.parallelism`: how many partition ranges the Spark backfill copies at once, end to end.

Real brokers, real Spark (local[4]: four task slots, so Spark's default parallelism is 4) and the
`replikafka backfill` command run in this process, so that the runs share one Spark JVM. What each run
did is read back from Spark's own event log (`spark.eventLog.*`, passed through like every `spark.*`
key): one Spark task per range, and the most tasks running at once. Kafka defines no such key (it is
this project's Spark backfill); the copy itself is checked the way tests/test_backfill.py does.
"""

from __future__ import annotations

import argparse
import json
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.harness.backfill import own_brokers, plan_key, source_key
from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic, produce_many, read_partitions, stored_offsets
from tests.harness.mirror import mirror_source
from tests.harness.workers import worker_properties, write_properties

pytest.importorskip("pyspark")
broker, broker_b = own_brokers()

PARTS, PER_PARTITION = 6, 1_000
# One record per batch: the plan's end offsets come from ListOffsets, which Tansu gets wrong for
# multi-record batches (docs/brokers.md); exact ends make "the whole backlog copied" checkable.
ONE_RECORD_BATCHES = {"batch.num.messages": "1", "linger.ms": "0"}


def spark_tasks(event_dir: Path) -> list[tuple[int, int, int]]:
    """(launch ms, finish ms, attempt) of every Spark task in the event log(s) under `event_dir`."""
    tasks = []
    for log in (f for f in event_dir.iterdir() if f.is_file() and not f.name.startswith(".")):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if event.get("Event") == "SparkListenerTaskEnd":
                info = event["Task Info"]
                tasks.append((int(info["Launch Time"]), int(info["Finish Time"]), int(info["Attempt"])))
    return tasks


def most_at_once(tasks: list[tuple[int, int, int]]) -> int:
    """The largest number of tasks running at the same moment (a task ending at t is gone at t)."""
    edges = sorted([(start, 1) for start, _, _ in tasks] + [(end, -1) for _, end, _ in tasks])
    running = peak = 0
    for _, step in edges:
        running += step
        peak = max(peak, running)
    return peak


def backfill(tmp_path: Path, worker: dict[str, str], connector: dict[str, str], topic: str) -> int:
    """`replikafka backfill worker.properties connector.properties --topic T --threshold 0`, in this
    process (the Spark JVM stays up between runs); SIGINT/SIGTERM handlers are put back afterwards."""
    from replikafka import backfill_cli

    args = argparse.Namespace(worker_properties=str(write_properties(tmp_path / "worker.properties", worker)),
                              connector_properties=str(write_properties(tmp_path / "c.properties", connector)),
                              topic=[topic], threshold=0)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return backfill_cli.run(args)
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)


@pytest.mark.parametrize(("parallelism", "expected"), [("1", 1), ("3", 3), ("0", 4)])
def test_parallelism_bounds_the_ranges_copied_at_once(broker: Broker, broker_b: Broker, tmp_path: Path,
                                                      unique: str, parallelism: str, expected: int) -> None:
    """Six partitions, one Spark task per range: with backfill.parallelism=1 the ranges are copied one
    after the other, with 3 three at once, with 0 as many as Spark's default parallelism (local[4]: 4).
    Either way every range is copied once, byte for byte and in order, and handed over to streaming."""
    t, name, group = f"bfp{parallelism}{unique}", f"bfp-{unique}", f"bfpw{unique}"
    create_topic(broker.bootstrap, t, PARTS)
    produce_many(broker.bootstrap, t, PARTS * PER_PARTITION, PARTS, overrides=ONE_RECORD_BATCHES)
    events = tmp_path / "spark-events"
    events.mkdir()
    connector = {"name": name, **mirror_source(broker, broker_b, {
        "topics": t, "backfill.parallelism": parallelism, "spark.master": "local[4]",
        # bulk batches on B: one run, never resumed, so B's exact end offsets are not needed
        "backfill.producer.batch.num.messages": "10000", "backfill.producer.linger.ms": "20",
        "spark.ui.enabled": "false", "spark.eventLog.enabled": "true", "spark.eventLog.dir": events.as_uri(),
        "spark.eventLog.compress": "false", "spark.eventLog.rolling.enabled": "false"})}

    assert backfill(tmp_path, worker_properties(broker_b, group, 0), connector, t) == 0

    tasks = spark_tasks(events)
    assert len(tasks) == PARTS and all(attempt == 0 for *_, attempt in tasks), tasks  # one task per range
    assert most_at_once(tasks) == expected, tasks
    source = read_partitions(broker.bootstrap, t, PARTS * PER_PARTITION)
    target = read_partitions(broker_b.bootstrap, f"A.{t}", PARTS * PER_PARTITION + 1, timeout=3)
    offsets = stored_offsets(broker_b.bootstrap, f"{group}-offsets", name)
    for p in range(PARTS):
        assert len(source[p]) == PER_PARTITION and target[p] == source[p], f"partition {p}"
        assert offsets[plan_key(t, p)]["done"] and offsets[source_key(t, p)] == {"offset": PER_PARTITION - 1}
    print(f"\nbackfill.parallelism={parallelism}: {len(tasks)} Spark tasks, {most_at_once(tasks)} at once, "
          f"{PARTS * PER_PARTITION:,} records copied exactly once")


def test_invalid_parallelism_is_refused_naming_the_key(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                       unique: str) -> None:
    """A negative or non-number backfill.parallelism is Connect's 400 naming the key, and nothing is created
    (the ConfigDef's INT type and lower bound, as Kafka's ConfigDef.Range.atLeast(0) refuses)."""
    (w,) = cluster_factory(on=broker_b).start(1)
    for value, reason in (("-1", "Value must be at least 0"), ("two", "Not a number of type INT"),
                          ("1.5", "Not a number of type INT")):
        name = f"bfpbad-{unique}"
        r = w.request("POST", "/connectors", {"name": name, "config": mirror_source(broker, broker_b, {
            "topics": "nothing", "backfill.enabled": "true", "backfill.parallelism": value})})
        assert r.status_code == 400 and set(r.json()) == {"error_code", "message"}, r.text
        assert f"Invalid value {value} for configuration backfill.parallelism: {reason}" in r.json()["message"], r.text
        assert w.request("GET", f"/connectors/{name}").status_code == 404
