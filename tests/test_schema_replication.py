"""Schema replication end to end: MirrorSourceConnector between two real brokers, each cluster with its own
real schema registry (Apicurio Registry, Confluent's API), producers and consumers with confluent-kafka's
Avro, JSON Schema and Protobuf serializers and deserializers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient

from connectors.mirror.formats import Heartbeat
from pyconnect.testing.apicurio import Apicurio, start_apicurio
from pyconnect.testing.brokers import free_port
from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic, partition_count, produce, read_messages
from tests.harness.mirror import mirror_source
from tests.harness.schemas import KINDS, avro_schema, decoded, deserializer, produce_records, serializer
from tests.harness.workers import Cluster, WorkerProcess, wait_for

IDENTITY = "org.apache.kafka.connect.mirror.IdentityReplicationPolicy"


@pytest.fixture(scope="module")
def registries() -> Iterator[tuple[Apicurio, Apicurio]]:
    """The source and target clusters' registries; the target holds other subjects first, so that the same
    schema gets different ids on the two (ids are sequential: this module registers fewer than 40 schemas on
    the source, so every id the target gives a copy is above every source id)."""
    source, target = start_apicurio("source", "target")
    client = SchemaRegistryClient({"url": target.url})
    for n in range(40):
        client.register_schema(f"target-own-{n}-value", Schema(avro_schema(f"Own{n}", 1), "AVRO"))
    yield source, target
    source.stop()
    target.stop()


def schema_settings(source: str, target: str, **extra: str) -> dict[str, str]:
    return {"schema.replication.enabled": "true", "source.cluster.schema.registry.url": source,
            "target.cluster.schema.registry.url": target, **extra}


def start_flow(cluster_factory: Callable[..., Cluster], a: Broker, b: Broker, config: dict[str, str]
               ) -> WorkerProcess:
    cluster: Cluster = cluster_factory(on=b)
    (w,) = cluster.start(1)
    add_flow(w, "mm", a, b, config)
    return w


def add_flow(w: WorkerProcess, name: str, a: Broker, b: Broker, config: dict[str, str], source: str = "A",
             target: str = "B") -> None:
    reply = w.request("POST", "/connectors", {"name": name, "config": mirror_source(a, b, config, source, target)})
    assert reply.status_code == 201, reply.text


def task_state(w: WorkerProcess) -> tuple[str, str]:
    reply = w.request("GET", "/connectors/mm/status")
    tasks = reply.json().get("tasks", []) if reply.status_code == 200 else []
    return (tasks[0]["state"], tasks[0].get("trace", "")) if tasks else ("", "")


def read_n(bootstrap: str, topic: str, n: int) -> list[Any]:
    """Exactly `n` messages of `topic` (waited for), in partition and offset order."""
    messages = wait_for(lambda: (m := read_messages(bootstrap, topic, expect=n, timeout=5)) and len(m) >= n and m,
                        120, f"{n} records on {topic}")
    assert len(messages) == n, f"{len(messages)} records on {topic}, expected {n}"
    return sorted(messages, key=lambda m: (m.partition(), m.offset()))


def orders(first: int, count: int, version: int) -> list[dict[str, Any]]:
    return [{"id": i, "item": f"item-{i}", **({"qty": i % 7} if version >= 2 else {})}
            for i in range(first, first + count)]


def same_but_ids(source: list[Any], target: list[Any]) -> None:
    """Partition, offset, key (when not in wire format), headers and timestamp are the source's; the
    payload after the schema id is byte for byte the source's."""
    assert [(m.partition(), m.offset(), m.headers(), m.timestamp()) for m in target] == \
        [(m.partition(), m.offset(), m.headers(), m.timestamp()) for m in source]
    assert [m.value()[5:] for m in target] == [m.value()[5:] for m in source]


def test_three_formats_decode_on_target_with_target_ids(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                        registries: tuple[Apicurio, Apicurio], unique: str) -> None:
    src, dst = registries
    src_client, dst_client = SchemaRegistryClient({"url": src.url}), SchemaRegistryClient({"url": dst.url})
    topics = {kind: f"sr{unique}-{kind}" for kind in KINDS}
    for kind, topic in topics.items():
        create_topic(broker.bootstrap, topic, 2)
        key = serializer("avro", src_client, "OrderKey", 1) if kind == "avro" else None
        produce_records(broker.bootstrap, topic, orders(0, 10, 1), serializer(kind, src_client, "Order", 1), key)
    src_client.set_compatibility(f"{topics['avro']}-value", "FULL")
    produce(broker.bootstrap, topics["avro"], [(b"raw", b"not in wire format")], partition=0)
    w = start_flow(cluster_factory, broker, broker_b, schema_settings(src.url, dst.url, topics=f"sr{unique}-.*"))
    read_n(broker_b.bootstrap, f"A.{topics['json']}", 10)
    for kind, topic in topics.items():  # a schema evolution mid-stream: version 2 (a new field)
        produce_records(broker.bootstrap, topic, orders(10, 10, 2), serializer(kind, src_client, "Order", 2))
    for kind, topic in topics.items():
        extra = 1 if kind == "avro" else 0
        source = read_n(broker.bootstrap, topic, 20 + extra)
        target = read_n(broker_b.bootstrap, f"A.{topic}", 20 + extra)
        raw = [m for m in target if m.key() == b"raw"]
        assert [(m.value(), m.partition()) for m in raw] == [(b"not in wire format", 0)] * extra  # byte for byte
        source, target = [m for m in source if m.key() != b"raw"], [m for m in target if m.key() != b"raw"]
        same_but_ids(source, target)
        want = decoded(source, topic, deserializer(kind, src_client, "Order"))
        got = decoded(target, f"A.{topic}", deserializer(kind, dst_client, "Order"))
        assert [(p, v) for p, _, v in got] == [(p, v) for p, _, v in want], f"{kind}: decoded values differ"
        target_ids = {dst_client.get_version(f"A.{topic}-value", v).schema_id for v in (1, 2)}
        assert {i for _, i, _ in got} == target_ids, f"{kind}: records carry other ids than the target's"
        assert all(t != s for (_, t, _), (_, s, _) in zip(got, want, strict=True)), f"{kind}: a source id copied"
        assert dst_client.get_versions(f"A.{topic}-value") == [1, 2]
    assert dst_client.get_compatibility(f"A.{topics['avro']}-value") == "FULL"
    keys = [m.key() for m in target_messages(broker_b, topics["avro"], 21)]
    assert len([k for k in keys if k[0] == 0]) == 10  # the Avro keys; version 2's records have plain keys
    assert {int.from_bytes(k[1:5], "big") for k in keys if k[0] == 0} == {
        dst_client.get_version(f"A.{topics['avro']}-key", 1).schema_id}
    assert sorted(k for k in keys if k[0] != 0) == sorted(str(i).encode() for i in range(10, 20))
    assert task_state(w)[0] == "RUNNING"


def target_messages(b: Broker, topic: str, n: int) -> list[Any]:
    return [m for m in read_n(b.bootstrap, f"A.{topic}", n) if m.key() != b"raw"]


def test_identity_policy_and_record_name_subjects(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                  registries: tuple[Apicurio, Apicurio], unique: str) -> None:
    """Subjects under IdentityReplicationPolicy keep their names (TopicNameStrategy), as do RecordNameStrategy
    subjects (no topic in them); a TopicRecordNameStrategy subject is renamed with the topic."""
    src, dst = registries
    src_client, dst_client = SchemaRegistryClient({"url": src.url}), SchemaRegistryClient({"url": dst.url})
    plain, by_record, by_topic_record = (f"id{unique}-{s}" for s in ("plain", "record", "topicrecord"))
    record_name = f"R{unique}"
    for topic, strategy in ((plain, "topic"), (by_record, "record"), (by_topic_record, "topic_record")):
        create_topic(broker.bootstrap, topic, 2)
        produce_records(broker.bootstrap, topic, orders(0, 6, 1), serializer("avro", src_client, record_name, 1,
                                                                               strategy))
    start_flow(cluster_factory, broker, broker_b, schema_settings(
        src.url, dst.url, topics=f"id{unique}-.*", **{"replication.policy.class": IDENTITY}))
    subjects = {plain: f"{plain}-value", by_record: f"replikafka.test.{record_name}",
                by_topic_record: f"{by_topic_record}-replikafka.test.{record_name}"}
    for topic, subject in subjects.items():
        target = read_n(broker_b.bootstrap, topic, 6)
        got = decoded(target, topic, deserializer("avro", dst_client, record_name))
        assert [v for _, _, v in got] == [v for _, _, v in decoded(read_n(broker.bootstrap, topic, 6), topic,
                                                                     deserializer("avro", src_client, record_name))]
        assert {i for _, i, _ in got} == {dst_client.get_version(subject, 1).schema_id}, topic
    assert not [s for s in dst_client.get_subjects() if s.startswith("A.id")]


@pytest.mark.parametrize("tolerance", ["none", "all"])
def test_registry_down_follows_tolerance_and_copies_nothing(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                            registries: tuple[Apicurio, Apicurio], unique: str,
                                                            tolerance: str) -> None:
    """A target registry that does not answer: with errors.tolerance=none (the default) the task fails with the
    reason, with `all` it skips the records and keeps running; either way no record reaches the target (none
    with its source id)."""
    src, _ = registries
    topic = f"down{tolerance}{unique}"
    create_topic(broker.bootstrap, topic, 1)
    produce_records(broker.bootstrap, topic, orders(0, 5, 1), serializer("avro", SchemaRegistryClient(
        {"url": src.url}), "Order", 1), partitions=1)
    down = f"http://127.0.0.1:{free_port()}/apis/ccompat/v7"  # nothing listens there: a registry that is down
    w = start_flow(cluster_factory, broker, broker_b, schema_settings(
        src.url, down, topics=topic, **{"errors.tolerance": tolerance}))
    if tolerance == "none":
        _, trace = wait_for(lambda: (s := task_state(w))[0] == "FAILED" and s, 120, "the task FAILED")
        assert "target schema registry" in trace and down in trace and "errors.tolerance=none" in trace, trace
    else:
        wait_for(lambda: "skipped (errors.tolerance=all)" in w.log_tail(200), 120, "the records skipped")
        assert task_state(w)[0] == "RUNNING"
    assert read_messages(broker_b.bootstrap, f"A.{topic}", idle=2.0) == []


def test_unknown_id_skipped_with_tolerance_all(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                               registries: tuple[Apicurio, Apicurio], unique: str) -> None:
    """errors.tolerance=all: a record whose id the source registry does not know is skipped (logged); the
    others are copied with the target's ids and the task keeps running."""
    src, dst = registries
    src_client, dst_client = SchemaRegistryClient({"url": src.url}), SchemaRegistryClient({"url": dst.url})
    topic = f"tol{unique}"
    create_topic(broker.bootstrap, topic, 1)
    value = serializer("avro", src_client, "Order", 1)
    produce_records(broker.bootstrap, topic, orders(0, 3, 1), value, partitions=1)
    produce(broker.bootstrap, topic, [(b"bad", b"\x00" + (9_999_999).to_bytes(4, "big") + b"payload")] * 2)
    produce_records(broker.bootstrap, topic, orders(3, 3, 1), value, partitions=1)
    w = start_flow(cluster_factory, broker, broker_b, schema_settings(
        src.url, dst.url, topics=topic, **{"errors.tolerance": "all"}))
    target = read_n(broker_b.bootstrap, f"A.{topic}", 6)
    assert [m.key() for m in target] == [str(i).encode() for i in range(6)]
    assert {int.from_bytes(m.value()[1:5], "big") for m in target} == {
        dst_client.get_version(f"A.{topic}-value", 1).schema_id}
    assert read_messages(broker_b.bootstrap, f"A.{topic}", idle=2.0, expect=7, timeout=4).__len__() == 6
    assert task_state(w)[0] == "RUNNING"


def test_active_active_maps_to_the_targets_id_and_registers_nothing_again(
        cluster_factory: Any, broker: Broker, broker_b: Broker, registries: tuple[Apicurio, Apicurio],
        unique: str) -> None:
    """A->B and B->A under IdentityReplicationPolicy (provenance headers on): A's records get B's id on B;
    records produced on B with B's registry come back to A with A's id for the same schema, and neither
    registry gets a version twice (the cycle A->B->A registers nothing again)."""
    src, dst = registries
    src_client, dst_client = SchemaRegistryClient({"url": src.url}), SchemaRegistryClient({"url": dst.url})
    topic, subject = f"aa{unique}", f"aa{unique}-value"
    create_topic(broker.bootstrap, topic, 1)
    produce_records(broker.bootstrap, topic, orders(0, 4, 1), serializer("avro", src_client, "Order", 1), partitions=1)
    start_flow(cluster_factory, broker, broker_b, schema_settings(
        src.url, dst.url, topics=topic, **{"replication.policy.class": IDENTITY}))
    read_n(broker_b.bootstrap, topic, 4)
    # MM2's heartbeat encoding of one-letter aliases starts with a zero byte: it must pass untouched
    beat = Heartbeat("A", "B", int(unique, 16))
    if partition_count(broker_b.bootstrap, "heartbeats") == 0:
        create_topic(broker_b.bootstrap, "heartbeats", 1)
    produce(broker_b.bootstrap, "heartbeats", [(beat.key(), beat.value())])
    (w_a,) = cluster_factory(on=broker).start(1)  # a Connect cluster writes to its own Kafka: B->A runs on A's
    add_flow(w_a, "back", broker_b, broker, schema_settings(
        dst.url, src.url, topics=topic, **{"replication.policy.class": IDENTITY}), source="B", target="A")
    produce_records(broker_b.bootstrap, topic, orders(100, 3, 1), serializer("avro", dst_client, "Order", 1),
                    partitions=1)
    on_a = read_n(broker.bootstrap, topic, 7)
    # (IdentityReplicationPolicy still prefixes heartbeats topics, as Java's does)
    copied = wait_for(lambda: [m for m in read_messages(broker.bootstrap, "B.heartbeats", idle=1.0)
                               if m.value() == beat.value()], 60, "the heartbeat copied to A")
    assert [m.key() for m in copied] == [beat.key()]
    a_id, b_id = (c.get_version(subject, 1).schema_id for c in (src_client, dst_client))
    assert a_id != b_id
    assert [int.from_bytes(m.value()[1:5], "big") for m in on_a] == [a_id] * 7, "B's records carry A's id on A"
    assert [m.key() for m in on_a[4:]] == [b"100", b"101", b"102"]
    assert [int.from_bytes(m.value()[1:5], "big") for m in read_n(broker_b.bootstrap, topic, 7)] == [b_id] * 7
    assert src_client.get_versions(subject) == [1] and dst_client.get_versions(subject) == [1]
    # the cycle: nothing A got from B goes back to B (provenance), nothing more reaches either side
    assert len(read_messages(broker_b.bootstrap, topic, idle=3.0)) == 7
    assert len(read_messages(broker.bootstrap, topic, idle=1.0)) == 7
