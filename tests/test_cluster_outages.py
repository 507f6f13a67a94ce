"""A cluster unreachable for a while (its broker SIGSTOPped), then back, while records keep arriving.

Target outage: the worker's own cluster is the target, so the worker is out of its cluster for longer than its
session timeout; it stops its tasks (their lease expired), and when the cluster is back it rejoins and the tasks
resume from their last commit. Source outage: the tasks wait for the source and carry on. Either way no record is
lost, order is kept per partition, and no operator acts. The default suite freezes for OUTAGE_S (15 s, past the
10 s session timeout); `-m slow` runs the 60 s outage of the issue (REPLIKAFKA_OUTAGE_SECONDS overrides)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer

from pyconnect.environment import env_value
from tests.harness.connectors import all_running
from tests.harness.durable import durable_broker
from tests.harness.faults import own_brokers
from tests.harness.kafka_io import create_topic, read_to_end
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, wait_for

PARTITIONS = 2


class SteadyProducer(threading.Thread):
    """`n` records at ~`rate`/s to `topic`, value `<p>:<seq>` per partition, through any outage (librdkafka
    buffers and retries: its message timeout is 5 minutes)."""

    def __init__(self, bootstrap: str, topic: str, rate: float, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "enable.idempotence": True})
        self.topic, self.rate, self.stop_event = topic, rate, stop
        self.sent = [0] * PARTITIONS

    def run(self) -> None:
        start = time.monotonic()
        while not self.stop_event.is_set():
            due = int((time.monotonic() - start) * self.rate) - sum(self.sent)
            for _ in range(max(0, due)):
                p = sum(self.sent) % PARTITIONS
                self.producer.produce(self.topic, f"{p}:{self.sent[p]}".encode(), partition=p)
                self.sent[p] += 1
            self.producer.poll(0.05)
        assert self.producer.flush(120) == 0


def _all_there(bootstrap: str, sent: list[int]) -> bool:
    """Every record sent is on the target (counted by value: re-sent duplicates do not count twice)."""
    values = {v for _p, _o, _k, v in read_to_end(bootstrap, "A.orders")}
    return all(f"{p}:{n}".encode() in values for p in range(PARTITIONS) for n in range(sent[p]))


def _check(records: list[Any], sent: list[int]) -> int:
    """Nothing lost and per-partition order kept (first copies in sequence); returns the duplicates."""
    duplicates = 0
    for p in range(PARTITIONS):
        values = [int(v.decode().split(":")[1]) for part, _o, _k, v in records if part == p]
        first: dict[int, int] = {}
        for i, seq in enumerate(values):
            first.setdefault(seq, i)
        assert sorted(first) == list(range(sent[p])), f"partition {p}: lost {sent[p] - len(first)}"
        assert [s for s, _i in sorted(first.items(), key=lambda kv: kv[1])] == list(range(sent[p])), "order"
        duplicates += len(values) - len(first)
    return duplicates


def _outage(tmp_path: Path, seconds: float, frozen: str) -> None:
    with own_brokers("outA", "outB") as (a, b):
        create_topic(a.bootstrap, "orders", PARTITIONS)
        cluster = Cluster(b, tmp_path, "out")
        try:
            _replicate_through(cluster, a, b, seconds, frozen)
        finally:
            cluster.close()


def _stream_through(w: Any, a: Any, b: Any, fault: Callable[[], None], traffic_after: float) -> tuple[int, int, float]:
    """Records stream A -> B while `fault()` runs, then for `traffic_after` more seconds; returns (records sent,
    duplicates on B, seconds from the fault's end until B held every record), having checked nothing was lost,
    order was kept and the tasks are RUNNING without an operator."""
    stop = threading.Event()
    producer = SteadyProducer(a.bootstrap, "orders", 200, stop)
    producer.start()
    try:
        wait_for(lambda: len(read_to_end(b.bootstrap, "A.orders")) > 400, 90, "replicating")
        fault()
        back = time.monotonic()
        time.sleep(traffic_after)  # records keep arriving after the fault: the recovery is measured under load
    finally:
        stop.set()
        producer.join(180)
    sent = producer.sent
    wait_for(lambda: _all_there(b.bootstrap, sent), 180, "caught up", 0.5)
    caught_up = time.monotonic() - back
    wait_for(lambda: all_running(w, "ms", 2), 60, "tasks RUNNING without an operator")
    return sum(sent), _check(read_to_end(b.bootstrap, "A.orders"), sent), caught_up


def _replicate_through(cluster: Cluster, a: Any, b: Any, seconds: float, frozen: str) -> None:
    (w,) = cluster.start(1)
    w.wait_ready()
    body = {"name": "ms", "config": {**mirror_source(a, b, {"topics": "orders", "tasks.max": "2"})}}
    assert w.request("POST", "/connectors", body).status_code == 201
    broker = a if frozen == "source" else b

    def outage() -> None:
        broker.pause()
        time.sleep(seconds)  # the outage itself: nothing to poll for
        broker.resume()
    total, duplicates, caught_up = _stream_through(w, a, b, outage, 2)
    print(f"{frozen} cluster frozen {seconds:.0f}s at 200 rec/s: {total} records, 0 lost, "
          f"{duplicates} duplicate(s), caught up {caught_up:.1f}s after the broker's return")


OUTAGE_S = float(env_value("OUTAGE_SECONDS", "15"))


def test_target_cluster_outage(tmp_path: Path) -> None:
    _outage(tmp_path, OUTAGE_S, "target")


def test_source_cluster_outage(tmp_path: Path) -> None:
    _outage(tmp_path, OUTAGE_S, "source")


@pytest.mark.slow
@pytest.mark.parametrize("frozen", ["target", "source"])
def test_sixty_second_outage(tmp_path: Path, frozen: str) -> None:
    _outage(tmp_path, float(env_value("OUTAGE_SECONDS", "60")), frozen)


@pytest.mark.skip(reason="Tansu's S3 storage loses acknowledged writes across a restart: a plain idempotent "
                         "producer (acks=all, 2 partitions) had 906 of 1,856 acknowledged records missing after a "
                         "kill -9 and restart, and 3 of ~1,900 here after a SIGTERM restart; with one partition none. "
                         "No client can make that lossless (docs/reliability.md). Runs where the broker is durable.")
def test_target_broker_restart_with_durable_storage(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """The target's broker is killed (-9) mid-stream and started again over the same S3 storage (its log
    survives): replication carries on, nothing lost, order kept. The worker's own cluster is a third one
    (Tansu over moto S3 answers too slowly for the workers' membership heartbeats), so the task's producer
    is pointed at the target with `producer.override.bootstrap.servers`."""
    with own_brokers("rsA", "rsW") as (a, worker_cluster), durable_broker() as target:
        b = target.broker
        create_topic(a.bootstrap, "orders", PARTITIONS)
        cluster = Cluster(worker_cluster, tmp_path, "rs")
        request.addfinalizer(cluster.close)
        (w,) = cluster.start(1)
        w.wait_ready()
        # The records go to B through the task's producer (Connect's `producer.override.*`: a Connect worker
        # writes to its own cluster otherwise), in batches rather than the worker cluster's one-record ones:
        # every batch is an S3 write on this target.
        batching = {"producer.override.bootstrap.servers": b.bootstrap, "producer.override.batch.num.messages":
                    "10000", "producer.override.linger.ms": "20"}
        body = {"name": "ms", "config": {**mirror_source(a, b, {"topics": "orders", "tasks.max": "2", **batching})}}
        assert w.request("POST", "/connectors", body).status_code == 201
        total, duplicates, caught_up = _stream_through(w, a, b, target.restart, 5)
        print(f"target broker killed and restarted on S3 storage: {total} records, 0 lost, {duplicates} "
              f"duplicate(s), caught up {caught_up:.1f}s after the restart")
