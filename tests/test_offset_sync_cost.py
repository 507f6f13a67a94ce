"""Cross-DC metadata cost: offset syncs under light traffic over many partitions, in dedicated mode with
MirrorMaker's defaults, and the fail-over that follows (producers stop, the group is exact on the target).

Before the sync budget (offset_sync_writer, invariant C) this shape cost 0.72 offset-sync records per
replicated record, every one written across the WAN to the source cluster; MM2 writes about 0.01-0.02.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition

from connectors.mirror.formats import Checkpoint, Heartbeat
from tests.harness.brokers import Broker, free_port
from tests.harness.kafka_io import create_topic, read_all
from tests.harness.mirror import cluster_lines, offset_syncs
from tests.harness.own_broker import start_own_broker
from tests.harness.traffic import Traffic
from tests.harness.workers import REPO, wait_for

PARTITIONS, RATE, SECONDS = 200, 1000, 40


@pytest.fixture
def clusters() -> Iterator[tuple[Broker, Broker]]:
    """Two clusters of this test's own: the session's brokers hold other tests' A->B herder state, whose
    connector configs this process would first run, then rewrite (a task restart: a second first-record sync
    per partition)."""
    a, b = start_own_broker("A-syncs"), start_own_broker("B-syncs")
    yield a, b
    a.stop()
    b.stop()


def mm2_defaults(path: Path, a: Broker, b: Broker, port: int, topic: str) -> Path:
    """MirrorMaker's defaults, but for what single-broker test clusters need (replication factors, the test
    brokers' client settings) and a checkpoint every 5 s instead of 60 (the fail-over check waits for one)."""
    factors = "\n".join(f"{k}=1" for k in (
        "replication.factor", "checkpoints.topic.replication.factor", "heartbeats.topic.replication.factor",
        "offset-syncs.topic.replication.factor", "offset.storage.replication.factor",
        "status.storage.replication.factor", "config.storage.replication.factor"))
    quirks = "\n".join(f"{alias}.{role}{k}={v}" for alias, broker in (("A", a), ("B", b))
                       for k, v in broker.client_overrides.items() for role in ("", "producer.", "consumer."))
    path.write_text(cluster_lines({"A": a, "B": b}) + f"""A->B.enabled = true
A->B.topics = {topic}
B->A.enabled = false
emit.checkpoints.interval.seconds = 5
listeners = http://127.0.0.1:{port}
{factors}
{quirks}
""")
    return path


def commit(bootstrap: str, group: str, topic: str, offsets: dict[int, int]) -> None:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    consumer.commit(offsets=[TopicPartition(topic, p, o) for p, o in offsets.items()], asynchronous=False)
    consumer.close()


def checkpoints(bootstrap: str, group: str, topic: str) -> dict[int, Checkpoint]:
    latest: dict[int, Checkpoint] = {}
    for _p, _o, key, value in read_all(bootstrap, "A.checkpoints.internal", idle=0.5):
        cp = Checkpoint.decode(key or b"", value or b"")
        if cp.group == group and cp.topic == topic:
            latest[cp.partition] = cp
    return latest


def test_light_traffic_over_200_partitions_costs_at_most_two_syncs_per_hundred_records_then_fails_over_exactly(
        tmp_path: Path, clusters: tuple[Broker, Broker], unique: str) -> None:
    broker, broker_b = clusters
    topic, group = f"light{unique}", f"app-{unique}"
    create_topic(broker.bootstrap, topic, PARTITIONS)
    commit(broker.bootstrap, group, topic, dict.fromkeys(range(PARTITIONS), 0))  # the group exists at start
    port = free_port()
    path = mm2_defaults(tmp_path / "mm2.properties", broker, broker_b, port, topic)
    log = open(tmp_path / "mm.log", "wb")  # noqa: SIM115 - owned by the child
    proc = subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO, stdout=log,
                            stderr=subprocess.STDOUT)
    traffic = Traffic(tmp_path, {"source": broker.bootstrap, "target": broker_b.bootstrap, "source_topic": topic,
                                 "target_topic": f"A.{topic}", "partitions": PARTITIONS, "rate": RATE})
    try:
        wait_for(lambda: (tmp_path / "mm.log").read_text(errors="replace").count("mirroring ") >= 1, 90,
                 "the source task mirroring")
        traffic.start()
        started = time.monotonic()
        wait_for(lambda: time.monotonic() - started >= SECONDS and traffic.latest() is not None, SECONDS + 30,
                 f"{SECONDS} s of traffic")
        sent = traffic.stop()
        total = sum(sent)
        wait_for(lambda: _arrived(broker_b, topic) >= total, 60, "every record on B")

        # The producers stopped: every partition is quiet, and its newest mapping is synced within its budget.
        def synced_to_end() -> list[int]:
            newest: dict[int, int] = {}
            for s in offset_syncs(broker.bootstrap, idle=0.5):
                if s.topic == topic:
                    newest[s.partition] = max(newest.get(s.partition, -1), s.upstream_offset)
            return [p for p in range(PARTITIONS) if newest.get(p, -1) != sent[p] - 1]
        wait_for(lambda: not synced_to_end(), 30, "each partition's last record synced")
        elapsed = time.monotonic() - started
        syncs = [s for s in offset_syncs(broker.bootstrap, idle=0.5) if s.topic == topic]
        window = (time.time() - elapsed) * 1000, time.time() * 1000
        beats = sum(1 for _p, _o, key, value in read_all(broker_b.bootstrap, "heartbeats", idle=0.5)
                    if (h := Heartbeat.decode(key or b"", value or b"")).source_cluster_alias == "A"
                    and window[0] <= h.timestamp <= window[1])
        cps = sum(1 for _p, _o, key, value in read_all(broker_b.bootstrap, "A.checkpoints.internal", idle=0.5)
                  if Checkpoint.decode(key or b"", value or b"").group == group)
        print(f"\nPER FLOW A->B over {elapsed:.0f} s: heartbeats {beats} ({beats / elapsed:.2f}/s, written on B), "
              f"checkpoint records {cps} (one group, 200 partitions, every 5 s only when a position moved)")
        print(f"\nOFFSET SYNCS: {len(syncs)} for {total:,} replicated records over {PARTITIONS} partitions in "
              f"{SECONDS} s: {len(syncs) / total:.4f} per record (0.72 before; MM2 about 0.01-0.02)")
        assert len(syncs) / total <= 0.02

        # Fail-over: the group read everything on A; its checkpoints on B point exactly at the end (0 skipped,
        # 0 re-read), the remote partitions holding exactly the records sent.
        commit(broker.bootstrap, group, topic, dict(enumerate(sent)))
        wait_for(lambda: {p: c.downstream_offset for p, c in checkpoints(broker_b.bootstrap, group,
                                                                         f"A.{topic}").items()}
                 == dict(enumerate(sent)), 60, "exact checkpoints at the end of every partition")
        print(f"FAILOVER: {PARTITIONS} partitions, every checkpoint exact at the end: 0 skipped, 0 re-read")
    finally:
        traffic.kill()
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def _arrived(b: Broker, topic: str) -> int:
    return len(read_all(b.bootstrap, f"A.{topic}", idle=0.5))
