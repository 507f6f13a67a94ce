"""Topic deletion propagation (`sync.topic.deletions.enabled`) against two real clusters: A (source)
and B (target, where the worker runs). Java's MM2 never deletes a topic, so there is no Kafka test to
port; the rules are those of connectors.mirror.topic_deletions.

On Tansu the source topic is deleted while the flow is stopped (PUT .../stop, then .../resume): a
librdkafka consumer that is assigned a topic when Tansu deletes it crashes its process (SIGSEGV in
librdkafka's main thread, reproduced without this project: assign a Tansu topic, delete it, poll), so
a running MirrorSource task cannot outlive the deletion of its source topic there. The restart also
shows the ledger surviving a connector restart. Against Apache Kafka the topic is deleted live."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.harness.brokers import Broker, free_port
from tests.harness.kafka_io import create_topic, produce, produce_many, read_all, topic_names
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, WorkerProcess, wait_for
from tests.test_metrics import sample

GRACE = 3
DELETED = "kafka_connect_mirror_mirrorsourceconnector_topic_deletions_total"
REFUSED = "kafka_connect_mirror_mirrorsourceconnector_topic_deletions_refused_total"


def delete_source_topic(flow: Flow, broker: Broker, topic: str) -> None:
    """Delete `topic` on A under the running flow (Apache Kafka) or while it is stopped (Tansu: see above)."""
    if broker.kind != "tansu":
        delete_topic(broker.bootstrap, topic)
        return
    assert flow.worker.request("PUT", "/connectors/mm/stop").status_code == 204
    wait_for(lambda: flow.worker.request("GET", "/connectors/mm/status").json()["connector"]["state"] == "STOPPED"
             and not flow.worker.request("GET", "/connectors/mm/status").json()["tasks"], 60, "flow stopped")
    delete_topic(broker.bootstrap, topic)
    assert flow.worker.request("PUT", "/connectors/mm/resume").status_code == 202


def delete_topic(bootstrap: str, topic: str) -> None:
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept alive until the result arrives
    for fut in admin.delete_topics([topic], operation_timeout=30).values():
        fut.result(30)
    wait_for(lambda: topic not in topic_names(bootstrap), 30, f"{topic} deleted")


@dataclass
class Flow:
    worker: WorkerProcess
    metrics_port: int

    def log(self) -> str:
        return self.worker.log_path.read_text(errors="replace")

    def scrape(self) -> str:
        return httpx.get(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=5).text

    def running(self) -> bool:
        r = self.worker.request("GET", "/connectors/mm/status")
        st = r.json() if r.status_code == 200 else {}
        return bool(st) and st["connector"]["state"] == "RUNNING" and bool(st["tasks"]) and all(
            t["state"] == "RUNNING" for t in st["tasks"])


StartFlow = Callable[..., Flow]


@pytest.fixture
def start_flow(cluster_factory: Any, broker: Broker, broker_b: Broker) -> StartFlow:
    def start(topics: str, **overrides: str) -> Flow:
        port = free_port()
        cluster: Cluster = cluster_factory(on=broker_b, extra={"metrics.prometheus.port": str(port)})
        (w,) = cluster.start(1)
        config = mirror_source(broker, broker_b, {
            "topics": topics, "tasks.max": "2", "refresh.topics.interval.seconds": "1",
            "sync.topic.deletions.enabled": "true", "sync.topic.deletions.grace.period.seconds": str(GRACE),
            **overrides})
        r = w.request("POST", "/connectors", {"name": "mm", "config": config})
        assert r.status_code == 201, r.text
        flow = Flow(w, port)
        wait_for(flow.running, 60, "flow running")
        return flow
    return start


def copied(broker_b: Broker, topic: str, count: int) -> None:
    wait_for(lambda: len(read_all(broker_b.bootstrap, topic, expect=count, timeout=5)) >= count, 60,
             f"{count} records in {topic}")


def test_deleted_source_topic_goes_after_the_grace_period(start_flow: StartFlow, broker: Broker,
                                                          broker_b: Broker, unique: str) -> None:
    gone, stays = f"d{unique}-gone", f"d{unique}-stays"
    for t in (gone, stays):
        create_topic(broker.bootstrap, t, 2)
        produce_many(broker.bootstrap, t, 40, 2)
    flow = start_flow(f"d{unique}-.*")
    copied(broker_b, f"A.{gone}", 40)
    copied(broker_b, f"A.{stays}", 40)
    delete_source_topic(flow, broker, gone)
    deleted_at = time.monotonic()
    wait_for(lambda: f"source topic {gone} is gone from cluster A" in flow.log(), 30, "the deletion noticed")
    # Not before the grace period: the remote topic is there for (nearly) all of it.
    while time.monotonic() - deleted_at < GRACE - 0.5:
        assert f"A.{gone}" in topic_names(broker_b.bootstrap), "deleted before the grace period"
        time.sleep(0.2)  # an observation interval: the test checks the topic stays for the whole grace period
    wait_for(lambda: f"A.{gone}" not in topic_names(broker_b.bootstrap), 60, "remote topic deleted")
    assert time.monotonic() - deleted_at >= GRACE
    line = next(x for x in flow.log().splitlines() if f"deleted remote topic A.{gone}" in x)
    assert "WARN" in line and f"source topic {gone} has been gone from cluster A" in line
    wait_for(lambda: sample(flow.scrape(), DELETED, source="A", target="B") == 1, 30, "deletion counted")
    assert sample(flow.scrape(), REFUSED, source="A", target="B") == 0
    # The other topic still replicates, and the tasks run without the vanished partitions.
    wait_for(flow.running, 60, "tasks running after the reconfiguration")
    produce_many(broker.bootstrap, stays, 20, 2, start=40)
    copied(broker_b, f"A.{stays}", 60)
    assert f"{gone}-" not in flow.worker.request("GET", "/connectors/mm/tasks").text
    names = topic_names(broker_b.bootstrap)
    assert f"A.{stays}" in names and f"A.{gone}" not in names, "no client of the flow re-created it"
    ledger = [v for _p, _o, k, v in read_all(broker_b.bootstrap, "mm2-remote-topics.A.internal")
              if k == f"A.{gone}".encode()]
    assert ledger[0] is not None and b'"created":true' in ledger[0] and ledger[-1] is None, "recorded, tombstoned"


def test_remote_topic_with_local_writes_is_kept(start_flow: StartFlow, broker: Broker, broker_b: Broker,
                                                unique: str) -> None:
    t, other = f"l{unique}", f"l{unique}-other"
    for name in (t, other):
        create_topic(broker.bootstrap, name, 1)
        produce_many(broker.bootstrap, name, 30, 1)
    flow = start_flow(f"l{unique}.*")
    copied(broker_b, f"A.{t}", 30)
    # An application on B writes into the remote topic too.
    produce(broker_b.bootstrap, f"A.{t}", [(b"local", b"written on B")], partition=0,
            overrides={"linger.ms": "0", "batch.num.messages": "1"})
    delete_source_topic(flow, broker, t)
    wait_for(lambda: f"keeping remote topic A.{t} although source topic {t} was deleted" in flow.log(), 60,
             "refusal logged")
    line = next(x for x in flow.log().splitlines() if f"keeping remote topic A.{t}" in x)
    assert "WARN" in line and "partition 0 holds a record at offset 30 after this flow's last copy (offset 29)" in line
    assert sample(flow.scrape(), REFUSED, source="A", target="B") == 1
    time.sleep(GRACE)  # later refreshes decide nothing new
    assert f"A.{t}" in topic_names(broker_b.bootstrap)
    assert len(read_all(broker_b.bootstrap, f"A.{t}", expect=31, timeout=10)) == 31
    assert sample(flow.scrape(), REFUSED, source="A", target="B") == 1, "counted once"
    assert sample(flow.scrape(), DELETED, source="A", target="B") == 0


def test_remote_topic_the_flow_did_not_create_is_kept(start_flow: StartFlow, broker: Broker, broker_b: Broker,
                                                      unique: str) -> None:
    t, other = f"p{unique}", f"p{unique}-other"
    for name in (t, other):
        create_topic(broker.bootstrap, name, 1)
        produce_many(broker.bootstrap, name, 25, 1)
    create_topic(broker_b.bootstrap, f"A.{t}", 1)  # existed before the flow started
    flow = start_flow(f"p{unique}.*")
    copied(broker_b, f"A.{t}", 25)
    delete_source_topic(flow, broker, t)
    wait_for(lambda: f"keeping remote topic A.{t}" in flow.log(), 60, "refusal logged")
    line = next(x for x in flow.log().splitlines() if f"keeping remote topic A.{t}" in x)
    assert "WARN" in line and f"A.{t} although source topic {t} was deleted from cluster A: this flow did not " \
        "create it (it existed when the flow began replicating into it)" in line
    assert f"A.{t}" in topic_names(broker_b.bootstrap)
    assert sample(flow.scrape(), REFUSED, source="A", target="B") == 1
    assert sample(flow.scrape(), DELETED, source="A", target="B") == 0


def test_nothing_is_deleted_with_the_key_off(start_flow: StartFlow, broker: Broker, broker_b: Broker,
                                             unique: str) -> None:
    t, other = f"o{unique}", f"o{unique}-other"
    for name in (t, other):
        create_topic(broker.bootstrap, name, 1)
        produce_many(broker.bootstrap, name, 10, 1)
    flow = start_flow(f"o{unique}.*", **{"sync.topic.deletions.enabled": "false"})
    copied(broker_b, f"A.{t}", 10)
    delete_source_topic(flow, broker, t)
    wait_for(flow.running, 60, "flow running without the deleted topic")
    wait_for(lambda: f"{t}-0" not in flow.worker.request("GET", "/connectors/mm/tasks").text, 30, "tasks reconfigured")
    time.sleep(GRACE + 3)
    assert f"A.{t}" in topic_names(broker_b.bootstrap)
    log = flow.log()
    assert "deleted remote topic" not in log and "keeping remote topic" not in log and "is gone from" not in log
    text = flow.scrape()
    assert sample(text, DELETED) is None and sample(text, REFUSED) is None, "no deletion side at all"


def test_source_topic_recreated_within_the_grace_period_keeps_its_remote(start_flow: StartFlow, broker: Broker,
                                                                         broker_b: Broker, unique: str) -> None:
    t, other = f"r{unique}", f"r{unique}-other"
    for name in (t, other):
        create_topic(broker.bootstrap, name, 1)
        produce_many(broker.bootstrap, name, 15, 1)
    grace = 10
    flow = start_flow(f"r{unique}.*", **{"sync.topic.deletions.grace.period.seconds": str(grace)})
    copied(broker_b, f"A.{t}", 15)
    delete_source_topic(flow, broker, t)
    wait_for(lambda: f"source topic {t} is gone from cluster A" in flow.log(), 30, "the deletion noticed")
    create_topic(broker.bootstrap, t, 1)
    wait_for(lambda: f"source topic {t} exists again: its remote topic stays" in flow.log(), 30, "back noticed")
    time.sleep(grace + 3)
    assert f"A.{t}" in topic_names(broker_b.bootstrap)
    assert "deleted remote topic" not in flow.log() and "keeping remote topic" not in flow.log()
    assert sample(flow.scrape(), DELETED, source="A", target="B") == 0
