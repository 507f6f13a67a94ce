"""MirrorSource under failures: worker crash mid-stream, bad configs, records the target refuses."""

from __future__ import annotations

import collections
import threading
from typing import Any

import orjson
from confluent_kafka import Producer

from tests.harness.brokers import Broker
from tests.harness.kafka_io import (
    committed_records,
    create_topic,
    keep_producing,
    produce_many,
    read_all,
    read_to_end,
)
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, wait_for


def test_kill9_mid_stream_loses_nothing(cluster_factory: Any, broker: Broker, broker_b: Broker, unique: str) -> None:
    t, backlog = f"k{unique}", 20_000

    create_topic(broker.bootstrap, t, 4)
    produce_many(broker.bootstrap, t, backlog, 4)
    # This test reads B by fetching (no ListOffsets), so the tasks may batch as in production instead of
    # the harness's one-record requests (tens of thousands of those take minutes on a loaded Tansu).
    cluster: Cluster = cluster_factory(on=broker_b, extra={"producer.batch.num.messages": "10000",
                                                           "producer.linger.ms": "5"})
    w = cluster.add_worker().wait_ready()
    config = mirror_source(broker, broker_b, {"topics": t, "tasks.max": "2"})

    def committed_now() -> int:  # read from the offsets topic, not B: stays small while the topics grow
        return committed_records(broker_b.bootstrap, f"{cluster.group}-offsets", "mm", t)

    assert w.request("POST", "/connectors", {"name": "mm", "config": config}).status_code == 201
    stop = threading.Event()
    producer = keep_producing(broker.bootstrap, t, backlog, 10**9, 4, stop)  # until stopped
    try:
        # Crash while records are still arriving: the backlog is copied (and committed), streaming is
        # under way. The commits are read, not B: they stay small while the topics grow.
        committed = wait_for(lambda: (lambda n: n if n >= backlog + 2_000 else None)(
            committed_now()), 60, "streaming under way")
        assert producer.is_alive(), "the crash must happen mid-stream"
        w.kill()
        copied_at_kill = len(read_to_end(broker_b.bootstrap, f"A.{t}"))
        w2 = cluster.add_worker(port=w.port).wait_ready()  # same worker id, new process
        wait_for(lambda: committed_now() > copied_at_kill, 60, "copying again after the restart")
    finally:
        stop.set()
        producer.join(30)
    total = backlog + producer.produced

    def missing() -> list[int]:
        seen = {r[3] for r in read_to_end(broker_b.bootstrap, f"A.{t}")}
        return [i for i in range(total) if f"{t}:{i}".encode() not in seen]

    # Done when every distinct record is there (the total also counts duplicates); none may be lost.
    wait_for(lambda: not missing(), 120, "every record copied after the restart")
    values = collections.Counter(r[3] for r in read_all(broker_b.bootstrap, f"A.{t}"))
    duplicates = sum(c - 1 for c in values.values())
    print(f"\nKILL-9: {copied_at_kill} records on B at the crash, {committed} of them committed before it; "
          f"{duplicates} duplicates after restart (offset.flush.interval.ms=1000)")
    # Only the uncommitted window is sent again: never a record whose offset was committed.
    assert duplicates <= copied_at_kill - committed
    assert w2.request("GET", "/connectors/mm/status").json()["connector"]["state"] == "RUNNING"


def test_bad_regex_and_unknown_policy_are_reported(cluster_factory: Any, broker: Broker, broker_b: Broker) -> None:
    cluster: Cluster = cluster_factory(on=broker_b)
    (w,) = cluster.start(1)
    bad_regex = mirror_source(broker, broker_b, {"name": "bad", "topics": "orders-(unclosed"})
    r = w.request("PUT", "/connector-plugins/MirrorSourceConnector/config/validate", bad_regex)
    assert r.status_code == 200
    errors = {c["value"]["name"]: c["value"]["errors"] for c in r.json()["configs"] if c["value"]["errors"]}
    assert list(errors) == ["topics"] and "orders-(unclosed" in errors["topics"][0]
    assert r.json()["error_count"] == 1 and r.json()["name"].endswith("MirrorSourceConnector")
    r = w.request("POST", "/connectors", {"name": "bad", "config": bad_regex})
    assert r.status_code == 400 and "topics" in r.json()["message"]

    unknown = mirror_source(broker, broker_b, {"name": "pol", "replication.policy.class": "com.example.NoSuchPolicy"})
    r = w.request("PUT", "/connector-plugins/MirrorSource/config/validate", unknown)
    assert r.json()["error_count"] == 1
    # Written past the REST checks (another tool, an older worker): the connector fails, readably.
    producer = Producer({"bootstrap.servers": broker_b.bootstrap})
    producer.produce(f"{cluster.group}-configs", orjson.dumps({"properties": {"name": "pol", **unknown}}),
                     key=b"connector-pol", partition=0)
    assert producer.flush(10) == 0
    st = wait_for(lambda: (lambda s: s if s.get("connector", {}).get("state") == "FAILED" else None)(
        w.request("GET", "/connectors/pol/status").json()), 30, "FAILED")
    assert "Class com.example.NoSuchPolicy could not be found" in st["connector"]["trace"]


def test_oversized_record_fails_the_task_naming_it(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                   unique: str) -> None:
    t = f"big{unique}"
    # Apache Kafka takes a 2 MB record only into a topic that allows it (its default is 1 MB); MM2 copies
    # the setting to the remote topic, so the mirror producer's own limit is what stops it.
    create_topic(broker.bootstrap, t, 1, {"max.message.bytes": "3000000"})
    producer = Producer({"bootstrap.servers": broker.bootstrap, "message.max.bytes": 3_000_000})
    failed: list[str] = []
    for i in range(3):
        producer.produce(t, b"small-%d" % i, partition=0)
    producer.produce(t, b"x" * 2_000_000, partition=0,  # offset 3: larger than the mirror producer allows
                     on_delivery=lambda err, _m: err is not None and failed.append(str(err)))
    assert producer.flush(30) == 0 and not failed, failed
    cluster: Cluster = cluster_factory(on=broker_b)
    (w,) = cluster.start(1)
    assert w.request("POST", "/connectors", {"name": "mm", "config": mirror_source(
        broker, broker_b, {"topics": t})}).status_code == 201
    st = wait_for(lambda: (lambda s: s if s.get("tasks") and s["tasks"][0]["state"] == "FAILED" else None)(
        w.request("GET", "/connectors/mm/status").json()), 60, "task FAILED")
    trace = st["tasks"][0]["trace"]
    assert f"topic A.{t} partition 0" in trace and "'offset': 3" in trace and "2000000 bytes" in trace, trace
    # Nothing after the poison record was silently skipped, and what came before is there.
    assert sorted(r[3] for r in read_all(broker_b.bootstrap, f"A.{t}")) == [b"small-0", b"small-1", b"small-2"]
    # With a larger producer request size (Connect's per-connector override) the record goes through.
    config = mirror_source(broker, broker_b, {"topics": t, "producer.override.max.request.size": "3000000"})
    assert w.request("PUT", "/connectors/mm/config", config).status_code == 200
    assert w.request("POST", "/connectors/mm/restart?includeTasks=true&onlyFailed=true").status_code == 202
    wait_for(lambda: len(read_to_end(broker_b.bootstrap, f"A.{t}")) == 4, 60, "large record copied")
