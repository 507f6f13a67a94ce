"""Checkpoints across a worker crash, active/rewound/excluded groups, and heartbeats across 3 clusters."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from connectors.mirror.client import MirrorClient
from connectors.mirror.formats import Heartbeat, OffsetSync
from pyconnect.kafka.admin import Admin
from pyconnect.testing.brokers import Broker, start_tansu
from tests.harness.checkpoints import checkpoint_config, commit, latest_checkpoints
from tests.harness.kafka_io import create_topic, produce_many, read_partitions, read_to_end, replica_counts
from tests.harness.mirror import cluster_settings, mirror_source
from tests.harness.own_broker import start_own_broker
from tests.harness.workers import Cluster, WorkerProcess, wait_for

HEARTBEAT = "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector"


def offset_syncs(bootstrap: str) -> list[OffsetSync]:
    records = read_to_end(bootstrap, "mm2-offset-syncs.B.internal")
    return [OffsetSync.decode(k or b"", v or b"") for _p, _o, k, v in records]


def target_offset(bootstrap: str, group: str, topic: str) -> int:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    (tp,) = consumer.committed([TopicPartition(topic, 0)], timeout=10)
    consumer.close()
    return int(tp.offset)


def test_exact_across_a_worker_crash(cluster_factory: Any, broker: Broker, broker_b: Broker, unique: str) -> None:
    t = f"cr{unique}"
    create_topic(broker.bootstrap, t, 1)
    produce_many(broker.bootstrap, t, 30_000, 1)
    # No offset commit before the kill (the first would come after 10 minutes): everything copied before the
    # crash is sent again afterwards, on any broker. With a 10 s interval a fast broker (Apache Kafka) could
    # copy all and commit before the kill, leaving no duplicate to translate around.
    cluster: Cluster = cluster_factory(on=broker_b, extra={"offset.flush.interval.ms": "600000"})
    w = cluster.add_worker().wait_ready()
    assert w.request("POST", "/connectors", {"name": "src", "config": mirror_source(
        broker, broker_b, {"topics": t})}).status_code == 201
    wait_for(lambda: len(read_to_end(broker_b.bootstrap, f"A.{t}")) >= 3_000, 60, "copy under way")
    w.kill()  # uncommitted records are sent again after the restart: duplicates downstream, a new sync
    w = cluster.add_worker(port=w.port).wait_ready()
    # Complete means every distinct record is there (the total also counts the duplicates).
    wait_for(lambda: len({r[3] for r in read_to_end(broker_b.bootstrap, f"A.{t}")}) == 30_000, 90, "copy complete")
    target = read_partitions(broker_b.bootstrap, f"A.{t}", len(read_to_end(broker_b.bootstrap, f"A.{t}")))[0]
    dups = len(target) - 30_000
    assert dups > 0, "the crash must leave duplicates for this test to mean anything"
    by_offset = {off: value for off, _k, value, _h, _ts in target}
    # The sync of the last record goes out once the task is caught up; before it, the end of the log
    # translates conservatively (re-read, never skip), which is not what this test checks.
    wait_for(lambda: any(s.topic == t and s.upstream_offset == 29_999 for s in offset_syncs(broker.bootstrap)),
             30, "the last record's offset sync")
    positions = [0, 1, 2_999, 15_000, 29_999, 30_000]
    for i, g in enumerate(positions):
        commit(broker.bootstrap, f"g{i}-{unique}", t, g)
    assert w.request("POST", "/connectors", {"name": "cp", "config": checkpoint_config(
        broker, broker_b, t, f"g\\d-{unique}")}).status_code == 201
    found = wait_for(lambda: (lambda cps: cps if len([c for c in cps if c[0].endswith(unique)]) == len(positions)
                              else None)(latest_checkpoints(broker_b.bootstrap)), 60, "checkpoints for every group")
    for i, g in enumerate(positions):
        cp = found[(f"g{i}-{unique}", f"A.{t}", 0)]
        assert cp.upstream_offset == g
        if g < 30_000:  # the next record a failed-over consumer reads is upstream record g itself
            assert by_offset.get(cp.downstream_offset) == f"{t}:{g}".encode(), (g, cp, max(by_offset))
        else:
            assert cp.downstream_offset == max(by_offset) + 1, "a fully read partition maps to its end"
    print(f"\nRESTART: {dups} duplicates on B after kill -9; all {len(positions)} translations exact")


BUSY_MEMBER = """
import sys
from confluent_kafka import Consumer
c = Consumer({"bootstrap.servers": sys.argv[1], "group.id": sys.argv[2], "enable.auto.commit": False,
              "max.poll.interval.ms": 6000, "session.timeout.ms": 6000})
c.subscribe([sys.argv[3]])
announced = False
while True:
    c.poll(0.2)
    if c.assignment() and not announced:
        print("assigned", flush=True)
        announced = True
"""


def test_active_excluded_and_rewound_groups(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                            unique: str) -> None:
    t = f"gr{unique}"
    create_topic(broker.bootstrap, t, 1)
    produce_many(broker.bootstrap, t, 2_000, 1)
    for g in ("idle", "busy", "skip"):
        commit(broker.bootstrap, f"{g}-{unique}", t, 1_500)
    # "busy" has a live member on B (its own process, polling): its offsets there belong to it.
    create_topic(broker_b.bootstrap, f"A.{t}", 1)
    member = subprocess.Popen([sys.executable, "-c", BUSY_MEMBER, broker_b.bootstrap, f"busy-{unique}", f"A.{t}"],
                              stdout=subprocess.PIPE, text=True)
    cluster: Cluster = cluster_factory(on=broker_b)
    (w,) = cluster.start(1)
    try:
        assert member.stdout is not None and member.stdout.readline().strip() == "assigned"
        assert Admin({"bootstrap.servers": broker_b.bootstrap}).group_state(f"busy-{unique}") == "STABLE"
        assert w.request("POST", "/connectors", {"name": "src", "config": mirror_source(
            broker, broker_b, {"topics": t})}).status_code == 201
        wait_for(lambda: len(read_to_end(broker_b.bootstrap, f"A.{t}")) >= 2_000, 60, "copied")
        config = checkpoint_config(broker, broker_b, t, f".*-{unique}", groups_exclude=f"skip-{unique}",
                                   sync_group_offsets_enabled="true", sync_group_offsets_interval_seconds="1")
        assert w.request("POST", "/connectors", {"name": "cp", "config": config}).status_code == 201
        wait_for(lambda: target_offset(broker_b.bootstrap, f"idle-{unique}", f"A.{t}") == 1_500, 60, "idle synced")
        # Rewind the group upstream: a checkpoint says so, but the target group never moves backwards.
        commit(broker.bootstrap, f"idle-{unique}", t, 1_000)
        wait_for(lambda: latest_checkpoints(broker_b.bootstrap)[(f"idle-{unique}", f"A.{t}", 0)].upstream_offset
                 == 1_000, 30, "rewind checkpointed")
        deadline = time.monotonic() + 4  # four sync intervals
        while time.monotonic() < deadline:
            assert target_offset(broker_b.bootstrap, f"idle-{unique}", f"A.{t}") == 1_500, "moved backwards"
        cps = latest_checkpoints(broker_b.bootstrap)
        assert target_offset(broker_b.bootstrap, f"busy-{unique}", f"A.{t}") < 0, "active group touched"
        assert (f"busy-{unique}", f"A.{t}", 0) in cps, "active groups still get checkpoints"
        assert not any(k[0] == f"skip-{unique}" for k in cps), "groups.exclude ignored"
    finally:
        member.kill()


def seeded_worker(cluster_factory: Any, a: Broker, b: Broker, topic: str, records: int, group: str,
                  offset: int) -> WorkerProcess:
    """A one-partition topic on A with `records` records and `group`'s commit at `offset`, and a worker on B."""
    create_topic(a.bootstrap, topic, 1)
    produce_many(a.bootstrap, topic, records, 1)
    commit(a.bootstrap, group, topic, offset)
    cluster: Cluster = cluster_factory(on=b)
    (w,) = cluster.start(1)
    return w


def test_without_group_refresh_only_the_groups_found_at_start_are_checkpointed(
        cluster_factory: Any, broker: Broker, broker_b: Broker, unique: str) -> None:
    """refresh.groups.enabled=false: Kafka's MirrorCheckpointConnector lists the groups when it starts and only
    then (it schedules refreshConsumerGroups only when the key is true); a group that commits later gets no
    checkpoint until the connector starts again."""
    t = f"rg{unique}"
    w = seeded_worker(cluster_factory, broker, broker_b, t, 200, f"early-{unique}", 100)
    assert w.request("POST", "/connectors", {"name": "src", "config": mirror_source(
        broker, broker_b, {"topics": t})}).status_code == 201
    wait_for(lambda: len(read_to_end(broker_b.bootstrap, f"A.{t}")) >= 200, 60, "copied")
    config = checkpoint_config(broker, broker_b, t, f".*-{unique}", refresh_groups_enabled="false")
    assert w.request("POST", "/connectors", {"name": "cp", "config": config}).status_code == 201
    wait_for(lambda: (f"early-{unique}", f"A.{t}", 0) in latest_checkpoints(broker_b.bootstrap), 60, "early")
    commit(broker.bootstrap, f"late-{unique}", t, 150)
    # Proving an absence: five refresh and checkpoint intervals (1 s each) pass without a checkpoint of it.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        assert not any(k[0] == f"late-{unique}" for k in latest_checkpoints(broker_b.bootstrap)), "refreshed"
    # The same group is checkpointed once the connector starts again (it was only never listed).
    assert w.request("POST", "/connectors/cp/restart").status_code in (200, 202, 204)
    wait_for(lambda: (f"late-{unique}", f"A.{t}", 0) in latest_checkpoints(broker_b.bootstrap), 60, "late")


@pytest.fixture
def broker_c() -> Iterator[Broker]:
    c = start_own_broker("C")
    yield c
    c.stop()


def test_heartbeats_layout_and_hops_over_a_chain(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                 broker_c: Broker, unique: str) -> None:
    """A -> B -> C, plus heartbeats into A (MM2 dedicated mode emits them for every pair)."""
    def heartbeat(src: Broker, dst: Broker, s: str, d: str) -> dict[str, str]:
        return {"connector.class": HEARTBEAT, "source.cluster.alias": s, "target.cluster.alias": d,
                "emit.heartbeats.interval.seconds": "1", "heartbeats.topic.replication.factor": "1",
                **cluster_settings("source", src), **cluster_settings("target", dst)}

    on_a: Cluster = cluster_factory(on=broker, group=f"a-{unique}")
    on_b: Cluster = cluster_factory(on=broker_b, group=f"b-{unique}")
    on_c: Cluster = cluster_factory(on=broker_c, group=f"c-{unique}")
    (wa,), (wb,), (wc,) = on_a.start(1), on_b.start(1), on_c.start(1)
    assert wa.request("POST", "/connectors", {"name": "hb-c2a", "config": heartbeat(broker_c, broker, "C", "A")}
                      ).status_code == 201
    wait_for(lambda: read_to_end(broker.bootstrap, "heartbeats"), 30, "heartbeats on A")
    for w, name, config in (
            (wb, "hb-a2b", heartbeat(broker, broker_b, "A", "B")),
            (wb, "src-a2b", mirror_source(broker, broker_b, {"topics": "nothing"})),
            (wc, "hb-b2c", heartbeat(broker_b, broker_c, "B", "C")),
            (wc, "src-b2c", mirror_source(broker_b, broker_c, {"topics": "nothing"}, source="B", target="C"))):
        assert w.request("POST", "/connectors", {"name": name, "config": config}).status_code == 201
    started_ms = time.time() * 1000

    def fresh_heartbeat() -> Heartbeat | None:
        # B is shared with other tests' A->B flows: the newest heartbeat is this test's once it beats.
        _p, _o, key, value = read_to_end(broker_b.bootstrap, "heartbeats")[-1]
        newest = Heartbeat.decode(key or b"", value or b"")
        return newest if newest.timestamp >= started_ms - 1000 else None
    hb = wait_for(fresh_heartbeat, 30, "this test's heartbeats on B")
    assert (hb.source_cluster_alias, hb.target_cluster_alias) == ("A", "B")
    assert abs(hb.timestamp - time.time() * 1000) < 60_000
    client = MirrorClient({"bootstrap.servers": broker_c.bootstrap})
    wait_for(lambda: client.replication_hops("A") == 2, 60, "A two hops from C (B.A.heartbeats)")
    assert client.replication_hops("B") == 1
    wait_for(lambda: {"A", "B"} <= client.upstream_clusters(), 30, "A and B upstream of C")
    # read_to_end, not read_all: heartbeats never go quiet, so read_all would wait out its whole timeout.
    wait_for(lambda: read_to_end(broker_c.bootstrap, "B.A.heartbeats"), 30, "heartbeats replicate like other topics")


@pytest.fixture
def fresh_pair() -> Iterator[tuple[Broker, Broker]]:
    """Two Tansu clusters of this test's own: the session's already hold the offset-syncs, checkpoints and
    heartbeats topics (created by earlier tests), and Tansu reports the replicas a CreateTopics asked for.
    Tansu on every run: a single-node Apache Kafka refuses a replication factor above 1."""
    a, b = start_tansu("A-rf"), start_tansu("B-rf")
    yield a, b
    a.stop()
    b.stop()


def test_mirror_topics_get_the_configured_replication_factors(fresh_pair: tuple[Broker, Broker],
                                                              cluster_factory: Any, unique: str) -> None:
    """The MM2 connectors create their topics with MirrorSourceConfig's replication.factor (remote topics) and
    offset-syncs.topic.replication.factor, MirrorCheckpointConfig's checkpoints.topic.replication.factor and
    MirrorHeartbeatConfig's heartbeats.topic.replication.factor (MirrorUtils.createSinglePartitionCompactedTopic,
    MirrorSourceConnector.createNewTopics)."""
    a, b = fresh_pair
    t = f"rf{unique}"
    w = seeded_worker(cluster_factory, a, b, t, 10, f"rf-{unique}", 5)
    configs = {"src": mirror_source(a, b, {"topics": t, "replication.factor": "2",
                                           "offset-syncs.topic.replication.factor": "3"}),
               "cp": checkpoint_config(a, b, t, f"rf-{unique}", checkpoints_topic_replication_factor="2"),
               "hb": {"connector.class": HEARTBEAT, "source.cluster.alias": "A", "target.cluster.alias": "B",
                      "emit.heartbeats.interval.seconds": "1", "heartbeats.topic.replication.factor": "3",
                      **cluster_settings("source", a), **cluster_settings("target", b)}}
    for name, config in configs.items():
        assert w.request("POST", "/connectors", {"name": name, "config": config}).status_code == 201, name
    for bootstrap, topic, replicas in ((b.bootstrap, f"A.{t}", 2), (a.bootstrap, "mm2-offset-syncs.B.internal", 3),
                                       (b.bootstrap, "A.checkpoints.internal", 2), (b.bootstrap, "heartbeats", 3)):
        wait_for(lambda bs=bootstrap, tp=topic, n=replicas: replica_counts(bs, tp) == {n}, 60,
                 f"{topic} with {replicas} replicas")
