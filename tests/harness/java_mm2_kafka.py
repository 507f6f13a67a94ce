"""Java MirrorMaker 2's state for one flow on real brokers: write what a Java MM2 leaves behind, read it
back. The byte layouts are java_mm2_state's (written from Kafka's source); this module only moves them.

Topics are created as Java creates them (TopicAdmin via KafkaOffsetBackingStore/KafkaStatusBackingStore/
KafkaConfigBackingStore: compacted; 25, 5 and 1 partitions by default; MirrorSourceConnector's offset-syncs
topic and MirrorCheckpointConnector's checkpoints topic: compacted, 1 partition). Keyed records go where
Java's default partitioner puts them (murmur2 of the key: librdkafka's `murmur2_random`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.harness import java_mm2_state as java
from tests.harness.kafka_io import read_to_end

Record = tuple[bytes, bytes | None]


def create_compacted(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    if topic in admin.list_topics(timeout=10).topics:
        return
    for fut in admin.create_topics([NewTopic(topic, partitions, 1, config={"cleanup.policy": "compact"})]).values():
        fut.result(30)


def write(bootstrap: str, topic: str, records: Iterable[Record], partition: int | None = None) -> None:
    """Keyed records, each acknowledged (acks=all), partitioned as Java's producer does."""
    producer = Producer({"bootstrap.servers": bootstrap, "partitioner": "murmur2_random", "acks": "all",
                         "linger.ms": 0})
    for key, value in records:
        if partition is None:
            producer.produce(topic, value, key=key)
        else:
            producer.produce(topic, value, key=key, partition=partition)
    assert producer.flush(30) == 0


class JavaFlow:
    """The internal topics of one Java MM2 flow `source`->`target` (MirrorMakerConfig's default names)."""

    def __init__(self, source: str, target: str, source_bootstrap: str, target_bootstrap: str) -> None:
        self.source, self.target = source, target
        self.source_bootstrap, self.target_bootstrap = source_bootstrap, target_bootstrap
        self.offsets_topic = f"mm2-offsets.{source}.internal"
        self.configs_topic = f"mm2-configs.{source}.internal"
        self.status_topic = f"mm2-status.{source}.internal"
        self.syncs_topic = f"mm2-offset-syncs.{target}.internal"
        self.checkpoints_topic = f"{source}.checkpoints.internal"

    def create_topics(self) -> None:
        for topic, partitions in ((self.offsets_topic, 25), (self.status_topic, 5), (self.configs_topic, 1),
                                  (self.checkpoints_topic, 1)):
            create_compacted(self.target_bootstrap, topic, partitions)
        create_compacted(self.source_bootstrap, self.syncs_topic, 1)

    # writing ---------------------------------------------------------------------------------

    def write_configs(self, configs: dict[str, dict[str, str]], tasks: dict[str, list[dict[str, str]]],
                      states: dict[str, str]) -> None:
        """Connector configs, their task configs with the commit record, and target states."""
        records: list[Record] = []
        for name, props in configs.items():
            if name in states:
                records.append(java.target_state_record(name, states[name]))
            records.append(java.connector_config_record(name, props))
            for i, task in enumerate(tasks.get(name, [])):
                records.append(java.task_config_record(name, i, task))
            if name in tasks:
                records.append(java.task_commit_record(name, len(tasks[name])))
        write(self.target_bootstrap, self.configs_topic, records, partition=0)

    def write_statuses(self, worker_id: str, generation: int, tasks: dict[str, int]) -> None:
        records = []
        for name, count in tasks.items():
            records.append(java.status_record(f"status-connector-{name}", "RUNNING", worker_id, generation))
            records += [java.status_record(f"status-task-{name}-{i}", "RUNNING", worker_id, generation)
                        for i in range(count)]
        write(self.target_bootstrap, self.status_topic, records)

    def write_source_offsets(self, committed: dict[tuple[str, int], int]) -> None:
        """MirrorSourceConnector's offsets: the last upstream offset copied per source partition."""
        write(self.target_bootstrap, self.offsets_topic, [
            (java.offset_key(java.SOURCE_CONNECTOR, java.source_partition(self.source, t, p)), java.offset_value(o))
            for (t, p), o in committed.items()])

    def write_checkpoint_offsets(self, checkpoints: Iterable[java.Checkpoint]) -> None:
        """The checkpoint and heartbeat connectors' offsets (always wrapOffset(0))."""
        records: list[Record] = [
            (java.offset_key(java.CHECKPOINT_CONNECTOR, java.checkpoint_partition(c.group, c.topic, c.partition)),
             java.offset_value(0)) for c in checkpoints]
        records.append((java.offset_key(java.HEARTBEAT_CONNECTOR, java.heartbeat_partition(self.source,
                                                                                           self.target)),
                        java.offset_value(0)))
        write(self.target_bootstrap, self.offsets_topic, records)

    def write_offset_syncs(self, syncs: Iterable[java.OffsetSync]) -> None:
        write(self.source_bootstrap, self.syncs_topic, [(s.key(), s.value()) for s in syncs], partition=0)

    def write_checkpoints(self, checkpoints: Iterable[java.Checkpoint]) -> None:
        write(self.target_bootstrap, self.checkpoints_topic, [(c.key(), c.value()) for c in checkpoints],
              partition=0)

    def copy(self, topic: str, remote: str, partition: int, upto: int) -> list[tuple[int, int]]:
        """Copy source records [0, upto) of one partition to the same partition of `remote` as
        MirrorSourceTask.convertRecord does (key, value, headers, timestamp); (upstream, downstream) pairs."""
        consumer = Consumer({"bootstrap.servers": self.source_bootstrap, "group.id": "java-mm2-copy",
                             "enable.auto.commit": False})
        consumer.assign([TopicPartition(topic, partition, 0)])
        messages: list[Any] = []
        while len(messages) < upto:
            messages += [m for m in consumer.consume(500, 1.0) if m.error() is None and m.offset() < upto]
        consumer.close()
        producer = Producer({"bootstrap.servers": self.target_bootstrap, "acks": "all", "linger.ms": 0,
                             "max.in.flight.requests.per.connection": 1})
        pairs: list[tuple[int, int]] = []
        for m in messages:
            def done(err: Any, msg: Any, upstream: int = m.offset()) -> None:
                assert err is None, err
                pairs.append((upstream, msg.offset()))
            producer.produce(remote, m.value(), key=m.key(), partition=partition, headers=m.headers(),
                             timestamp=m.timestamp()[1], on_delivery=done)
        assert producer.flush(30) == 0
        return sorted(pairs)


# reading -----------------------------------------------------------------------------------------

def read_offsets(bootstrap: str, topic: str) -> java.OffsetsTopic:
    state = java.OffsetsTopic()
    for _p, _o, key, value in read_to_end(bootstrap, topic):
        state.apply(key, value)
    return state


def read_configs(bootstrap: str, topic: str) -> java.ConfigTopic:
    state = java.ConfigTopic()
    for _p, _o, key, value in read_to_end(bootstrap, topic):
        state.apply(key, value)
    return state


def read_offset_syncs(bootstrap: str, topic: str) -> list[java.OffsetSync]:
    """Every offset sync in log order (decoding fails on any byte Java's schema would not read)."""
    return [java.OffsetSync.decode(k or b"", v or b"") for _p, _o, k, v in read_to_end(bootstrap, topic)]


def read_checkpoints(bootstrap: str, topic: str) -> list[java.Checkpoint]:
    """Every checkpoint in log order."""
    return [java.Checkpoint.decode(k or b"", v or b"") for _p, _o, k, v in read_to_end(bootstrap, topic)]


def translate_downstream(syncs: list[java.OffsetSync], topic: str, partition: int, upstream: int) -> int | None:
    """OffsetSyncStore.translateDownstream over the syncs of one partition: the sync at `upstream` maps
    exactly; past the latest earlier sync, one past its downstream offset (None: nothing to translate)."""
    before = [s for s in syncs if s.topic == topic and s.partition == partition and s.upstream_offset <= upstream]
    if not before:
        return None
    sync = before[-1]
    return sync.downstream_offset if sync.upstream_offset == upstream else sync.downstream_offset + 1
