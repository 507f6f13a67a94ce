"""Spark backfill against real brokers with Spark in local mode."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.harness.backfill import backfill_then_streaming, landed, own_brokers, plan_key, records_on, source_key
from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic, produce_many, read_partitions, stored_offsets
from tests.harness.mirror import mirror_source, offset_syncs, sync_store
from tests.harness.workers import REPO, Cluster, wait_for, worker_properties, write_properties

pytest.importorskip("pyspark")
broker, broker_b = own_brokers()


def backfill_cli(tmp_path: Path, worker: dict[str, str], connector: dict[str, str], *extra: str
                 ) -> subprocess.Popen[bytes]:
    wp = write_properties(tmp_path / "worker.properties", worker)
    cp = write_properties(tmp_path / "connector.properties", connector)
    log = open(tmp_path / "backfill.log", "ab")  # noqa: SIM115 - owned by the child
    return subprocess.Popen([sys.executable, "-m", "replikafka", "backfill", str(wp), str(cp), *extra],
                            stdout=log, stderr=subprocess.STDOUT, cwd=REPO, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})


def test_killed_backfill_resumes_without_duplicates(broker: Broker, broker_b: Broker, tmp_path: Path,
                                                    unique: str) -> None:
    t, parts, n = f"bf{unique}", 4, 40_000
    create_topic(broker.bootstrap, t, parts)
    produce_many(broker.bootstrap, t, n, parts)
    source = read_partitions(broker.bootstrap, t, n)
    name, group = f"bf-{unique}", f"bfw{unique}"
    worker = worker_properties(broker_b, group, 0)
    connector = {"name": name, **mirror_source(broker, broker_b, {
        "topics": t, "spark.master": "local[2]", "spark.ui.enabled": "false",
        "backfill.threshold.records": "1000"})}

    first = backfill_cli(tmp_path, worker, connector)

    def quarter_copied() -> int:
        if first.poll() is not None:
            pytest.fail(f"backfill exited early: {(tmp_path / 'backfill.log').read_text()[-3000:]}")
        copied = landed(broker_b.bootstrap, f"A.{t}", parts)
        return copied if copied >= n // 4 else 0
    try:
        at_kill = wait_for(quarter_copied, 180, "the first run to copy a quarter", interval=0.05)
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(30)
    assert at_kill < n, "the first run finished before it could be killed"

    second = backfill_cli(tmp_path, worker, connector)
    assert second.wait(300) == 0, (tmp_path / "backfill.log").read_text()[-3000:]
    offsets = stored_offsets(broker_b.bootstrap, f"{group}-offsets", name)
    ends = {p: offsets[plan_key(t, p)]["end"] for p in range(parts)}
    target = records_on(broker_b.bootstrap, f"A.{t}", parts, sum(len([r for r in source[p] if r[0] < ends[p]])
                                                                     for p in range(parts)))
    for p in range(parts):
        plan = offsets[plan_key(t, p)]
        assert plan["done"] and plan["start"] == 0 and plan["end"] > n // parts // 2
        # the planned range [start, end) is on B exactly once, in order; streaming starts at `end`
        assert target[p] == [r for r in source[p] if r[0] < plan["end"]], f"partition {p}"
        assert offsets[source_key(t, p)] == {"offset": plan["end"] - 1}
    log = (tmp_path / "backfill.log").read_text()
    assert "found already copied" in log
    assert f"{t}" in log and "records at" in log and "partitions  ETA" in log, "no progress bar printed"


def test_backfill_of_a_missing_topic_is_a_clear_error(broker: Broker, broker_b: Broker, tmp_path: Path,
                                                      unique: str) -> None:
    worker = worker_properties(broker_b, f"bfm{unique}", 0)
    connector = {"name": f"bfm-{unique}", **mirror_source(broker, broker_b, {"topics": "nothing-here"})}
    started = time.monotonic()
    proc = backfill_cli(tmp_path, worker, connector, "--topic", f"missing{unique}")
    assert proc.wait(120) == 2
    out = (tmp_path / "backfill.log").read_text()
    assert f"error: topic(s) missing{unique} do not exist on source cluster A" in out, out
    assert time.monotonic() - started < 60


def test_backfill_then_streaming_is_exact_and_checkpoints_translate(cluster_factory: Any, broker: Broker,
                                                                    broker_b: Broker, unique: str) -> None:
    backfill_then_streaming(cluster_factory, broker, broker_b, f"bfs{unique}", 8, 40_000, 4_000,
                            {"spark.master": "local[2]", "spark.ui.enabled": "false"})


def test_spark_failures_fail_only_the_batch_task(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                 unique: str) -> None:
    big, small = f"bfx{unique}", f"bfy{unique}"
    create_topic(broker.bootstrap, big, 2)
    create_topic(broker.bootstrap, small, 1)
    # One-record batches: the backfill plan reads end offsets with ListOffsets, which Tansu gets wrong for
    # multi-record batches (test-brokers.md), and the big topic must count as a backlog.
    one_record_batches = {"batch.num.messages": "1", "linger.ms": "0"}
    produce_many(broker.bootstrap, big, 4_000, 2, overrides=one_record_batches)
    produce_many(broker.bootstrap, small, 100, 1, overrides=one_record_batches)
    cluster: Cluster = cluster_factory(on=broker_b)
    (w,) = cluster.start(1)
    cases = {  # an unreachable master, and a job whose Spark task fails (Kafka refuses the producer config)
        "nomaster": ({"spark.master": "spark://127.0.0.1:1"}, "Spark master spark://127.0.0.1:1 is unreachable"),
        "badjob": ({"spark.master": "local[1]", "backfill.producer.compression.type": "bogus"},
                   "compression.type"),
    }
    for name, (extra, _reason) in cases.items():
        assert w.request("POST", "/connectors", {"name": name, "config": mirror_source(broker, broker_b, {
            "topics": f"{big}|{small}", "backfill.enabled": "true", "backfill.threshold.records": "1000",
            "spark.ui.enabled": "false", "replication.policy.separator": f".{name}.", **extra})}
        ).status_code == 201
    for name, (_extra, reason) in cases.items():
        # Both tasks reported (under load the batch task can fail before the streaming task's first status).
        status = wait_for(lambda name=name: (lambda s: s if any(task["state"] == "FAILED" for task in s["tasks"])
                                             and len(s["tasks"]) == 2 else None)(
            w.request("GET", f"/connectors/{name}/status").json()), 120, f"{name}: the batch task FAILED")
        failed = [task for task in status["tasks"] if task["state"] == "FAILED"]
        assert len(failed) == 1 and reason in failed[0]["trace"], failed
        assert status["connector"]["state"] == "RUNNING"
        # the streaming task is unaffected: the small topic (below the threshold) is replicated
        assert [task["state"] for task in status["tasks"] if task is not failed[0]] == ["RUNNING"]
        wait_for(lambda name=name: len(read_partitions(broker_b.bootstrap, f"A.{name}.{small}", 100, 10)[0]) == 100,
                 60, f"{name}: streaming of the small topic")


def test_transactional_source_gaps_copy_exactly_and_syncs_translate(broker: Broker, broker_b: Broker,
                                                                     tmp_path: Path, unique: str) -> None:
    """Transaction markers leave offsets without records upstream: the copy skips them, writes a sync at
    every gap, and the syncs translate every upstream record to the offset where it landed."""
    from confluent_kafka import Producer

    t, parts = f"bftx{unique}", 2
    create_topic(broker.bootstrap, t, parts)
    producer = Producer({"bootstrap.servers": broker.bootstrap, "transactional.id": f"tx-{unique}",
                         "batch.num.messages": 1, "linger.ms": 0})  # exact end offsets on Tansu
    producer.init_transactions(30)
    for txn in range(6):
        producer.begin_transaction()
        for i in range(300):
            producer.produce(t, b"v%d-%d" % (txn, i), key=b"k%d" % i, partition=i % parts)
        producer.commit_transaction(30)
    source = read_partitions(broker.bootstrap, t, 1_800)
    assert any(r[0] != i for p in range(parts) for i, r in enumerate(source[p])), "no gaps upstream"
    name = f"bftx-{unique}"
    worker = worker_properties(broker_b, f"bftxw{unique}", 0)
    connector = {"name": name, **mirror_source(broker, broker_b, {
        "topics": t, "spark.master": "local[1]", "spark.ui.enabled": "false"})}
    proc = backfill_cli(tmp_path, worker, connector, "--threshold", "0")
    assert proc.wait(300) == 0, (tmp_path / "backfill.log").read_text()[-3000:]

    offsets = stored_offsets(broker_b.bootstrap, f"bftxw{unique}-offsets", name)
    target = read_partitions(broker_b.bootstrap, f"A.{t}", 1_801, timeout=5)
    store = sync_store(offset_syncs(broker.bootstrap), t)
    for p in range(parts):
        end = offsets[plan_key(t, p)]["end"]
        copied = [r for r in source[p] if r[0] < end]
        assert [r[1:] for r in target[p]] == [r[1:] for r in copied], f"partition {p}"
        for (up, *_), (down, *_) in zip(copied, target[p], strict=True):
            assert store.translate(t, p, up) == down, (p, up, down)
        assert offsets[source_key(t, p)] == {"offset": end - 1}
