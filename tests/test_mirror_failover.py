"""Consumer fail-over A -> B with checkpoints: exact offsets, group sync, the CLI, and A lost for good."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from connectors.mirror.formats import Checkpoint, OffsetSync
from pyconnect.testing.brokers import Broker
from tests.harness.kafka_io import create_topic, produce, produce_many, read_all, read_to_end
from tests.harness.mirror import cluster_settings, mirror_source
from tests.harness.own_broker import start_own_broker
from tests.harness.workers import REPO, Cluster, wait_for

CHECKPOINT = "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"
N, PARTITIONS = 3000, 2


@pytest.fixture
def broker_a() -> Iterator[Broker]:
    """A source cluster of this test's own: the test kills it."""
    a = start_own_broker("A-failover")
    yield a
    a.stop()


def consume_and_commit(bootstrap: str, group: str, topic: str, per_partition: int) -> dict[int, int]:
    """Read `per_partition` records of each partition as group `group` and commit; returns next offsets."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    seen = dict.fromkeys(range(PARTITIONS), 0)
    last: dict[int, int] = {}
    while any(v < per_partition for v in seen.values()):
        for m in consumer.consume(100, 1.0):
            p = m.partition()
            if m.error() is None and seen[p] < per_partition:
                seen[p] += 1
                last[p] = m.offset()
    offsets = {p: o + 1 for p, o in last.items()}
    consumer.commit(offsets=[TopicPartition(topic, p, o) for p, o in offsets.items()], asynchronous=False)
    consumer.close()
    return offsets


def first_records_from_group(bootstrap: str, group: str, topic: str) -> dict[int, bytes]:
    """What a consumer of `group` on the target reads first from each partition (its committed position)."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
                         "auto.offset.reset": "error"})
    committed = consumer.committed([TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=10)
    first: dict[int, bytes] = {}
    if any(tp.offset < 0 for tp in committed):
        consumer.close()
        return first  # not committed (yet)
    consumer.assign(committed)
    deadline = time.monotonic() + 10
    while len(first) < PARTITIONS and time.monotonic() < deadline:
        for m in consumer.consume(10, 1.0):
            if m.error() is None and m.partition() not in first:
                first[m.partition()] = m.value() or b""
    consumer.close()
    return first


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "replikafka", "offsets", "translate", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=60)


def test_failover_is_exact_then_survives_losing_a(cluster_factory: Any, broker_a: Broker, broker_b: Broker,
                                                   unique: str) -> None:
    t = f"orders{unique}"
    create_topic(broker_a.bootstrap, t, PARTITIONS)
    produce_many(broker_a.bootstrap, t, N, PARTITIONS)
    # Foreign records already in the remote topic shift every downstream offset: translation is not identity.
    create_topic(broker_b.bootstrap, f"A.{t}", PARTITIONS)
    for p in range(PARTITIONS):
        produce(broker_b.bootstrap, f"A.{t}", [(None, b"junk")] * (7 + p), partition=p)
    k = 1234  # the group reads 1234 records of each partition on A
    committed = consume_and_commit(broker_a.bootstrap, f"app-{unique}", t, k)
    consume_and_commit(broker_a.bootstrap, f"cli-{unique}", t, k + 10)

    cluster: Cluster = cluster_factory(on=broker_b)
    (w,) = cluster.start(1)
    assert w.request("POST", "/connectors", {"name": "src", "config": mirror_source(
        broker_a, broker_b, {"topics": t, "tasks.max": "2"})}).status_code == 201
    wait_for(lambda: len(read_to_end(broker_b.bootstrap, f"A.{t}")) >= N + 15, 60, "replicated")
    checkpoint_config = {
        "connector.class": CHECKPOINT, "source.cluster.alias": "A", "target.cluster.alias": "B",
        "topics": t, "groups": f"(app|cli|busy)-{unique}", "emit.checkpoints.interval.seconds": "1",
        "sync.group.offsets.enabled": "true", "sync.group.offsets.interval.seconds": "1",
        "refresh.groups.interval.seconds": "1", "checkpoints.topic.replication.factor": "1",
        **cluster_settings("source", broker_a), **cluster_settings("target", broker_b)}
    assert w.request("POST", "/connectors", {"name": "cp", "config": checkpoint_config}).status_code == 201

    # 1. Synced group offsets on B: the first record read is exactly record K+1 of each partition.
    expected = {p: f"{t}:{committed[p] * PARTITIONS + p}".encode() for p in range(PARTITIONS)}
    wait_for(lambda: first_records_from_group(broker_b.bootstrap, f"app-{unique}", f"A.{t}") == expected, 60,
             "synced offsets point at record K+1")

    # Checkpoint records decode with MM2's layout and say the same.
    cps = [Checkpoint.decode(k_ or b"", v or b"") for _p, _o, k_, v in read_all(broker_b.bootstrap,
                                                                                 "A.checkpoints.internal")]
    latest = {(c.group, c.partition): c for c in cps if c.topic == f"A.{t}"}
    assert latest[(f"app-{unique}", 0)].upstream_offset == committed[0]
    assert latest[(f"app-{unique}", 0)].downstream_offset == committed[0] + 7

    # What MM2's conservative rule would give from the same syncs (offset.lag.max=100).
    syncs = [OffsetSync.decode(k_ or b"", v or b"") for _p, _o, k_, v in read_all(
        broker_a.bootstrap, "mm2-offset-syncs.B.internal") if (k_ or b"")[2:].startswith(t.encode())]
    mm2_rereads = 0
    for p in range(PARTITIONS):
        nearest = max((s for s in syncs if s.partition == p and s.upstream_offset <= committed[p]),
                      key=lambda s: s.upstream_offset)
        exact = committed[p] + 7 + p
        mm2 = nearest.downstream_offset + (0 if nearest.upstream_offset == committed[p] else 1)
        mm2_rereads += exact - mm2
    print(f"\nFAILOVER: re-read 0 records (exact); MM2's rule from the same syncs would re-read {mm2_rereads}")

    # 2. The CLI: translate, refuse while the group is active on B, apply when it is not.
    out = cli("--target-bootstrap", broker_b.bootstrap, "--source-alias", "A", "--group", f"cli-{unique}",
              "--format", "json")
    assert out.returncode == 0, out.stderr
    rows = {r["partition"]: r for r in json.loads(out.stdout)}
    assert rows[1]["upstream_offset"] == k + 10 and rows[1]["offset"] == k + 10 + 8
    unknown = cli("--target-bootstrap", broker_b.bootstrap, "--source-alias", "A", "--group", "nobody")
    assert unknown.returncode == 3 and "no checkpoints for group 'nobody'" in unknown.stderr

    # 3. Lose A for good: translation and the synced group on B still work from B alone.
    broker_a.kill()
    applied = cli("--target-bootstrap", broker_b.bootstrap, "--source-alias", "A", "--group", f"cli-{unique}",
                  "--apply")
    assert applied.returncode == 0, applied.stderr
    expected_cli = {p: f"{t}:{(k + 10) * PARTITIONS + p}".encode() for p in range(PARTITIONS)}
    assert first_records_from_group(broker_b.bootstrap, f"cli-{unique}", f"A.{t}") == expected_cli
    assert first_records_from_group(broker_b.bootstrap, f"app-{unique}", f"A.{t}") == expected
    started = time.monotonic()
    unreachable = cli("--target-bootstrap", broker_a.bootstrap, "--source-alias", "A", "--group", "x")
    assert unreachable.returncode == 1 and "cannot reach Kafka" in unreachable.stderr
    assert time.monotonic() - started < 30, "a clear error within 30 s"
