"""Spark backfill (issue 7) against real brokers with Spark in local mode."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from confluent_kafka import Consumer, TopicPartition

from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic, produce_many, read_all, read_partitions
from tests.harness.mirror import mirror_source
from tests.harness.workers import REPO, wait_for, worker_properties, write_properties

pytest.importorskip("pyspark")


def landed(bootstrap: str, topic: str, partitions: int) -> int:
    """Records on `topic` (sum of high watermarks; exact here: the copy writes one record per batch)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "probe"})
    try:
        return sum(consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)[1]
                   for p in range(partitions))
    finally:
        consumer.close()


def backfill_cli(tmp_path: Path, worker: dict[str, str], connector: dict[str, str], *extra: str
                 ) -> subprocess.Popen[bytes]:
    wp = write_properties(tmp_path / "worker.properties", worker)
    cp = write_properties(tmp_path / "connector.properties", connector)
    log = open(tmp_path / "backfill.log", "ab")  # noqa: SIM115 - owned by the child
    return subprocess.Popen([sys.executable, "-m", "pyconnect", "backfill", str(wp), str(cp), *extra],
                            stdout=log, stderr=subprocess.STDOUT, cwd=REPO, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})


def stored_offsets(bootstrap: str, topic: str, connector: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for _p, _o, key, value in read_all(bootstrap, topic, idle=1.0):
        name, partition = orjson.loads(key or b"[]")
        if name == connector:
            text = orjson.dumps(partition, option=orjson.OPT_SORT_KEYS).decode()
            out[text] = None if value is None else orjson.loads(value)
    return out


def plan_key(topic: str, p: int) -> str:
    return orjson.dumps({"backfill": "range", "cluster": "A", "partition": p, "topic": topic},
                        option=orjson.OPT_SORT_KEYS).decode()


def source_key(topic: str, p: int) -> str:
    return orjson.dumps({"cluster": "A", "partition": p, "topic": topic}, option=orjson.OPT_SORT_KEYS).decode()


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
    target = read_partitions(broker_b.bootstrap, f"A.{t}", n + 1, timeout=5)
    offsets = stored_offsets(broker_b.bootstrap, f"{group}-offsets", name)
    for p in range(parts):
        plan = offsets[plan_key(t, p)]
        assert plan["done"] and plan["start"] == 0 and plan["end"] > n // parts // 2
        # the planned range [start, end) is on B exactly once, in order; streaming starts at `end`
        assert target[p] == [r for r in source[p] if r[0] < plan["end"]], f"partition {p}"
        assert offsets[source_key(t, p)] == {"offset": plan["end"] - 1}
    log = (tmp_path / "backfill.log").read_text()
    assert "found already copied" in log


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
