"""Fail-over across aborted transactions: a read_committed group whose commit sits
right after an aborted range translates to the first record after it, with nothing skipped or re-read."""

from __future__ import annotations

from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition

from pyconnect.testing.brokers import Broker
from tests.harness.checkpoints import checkpoint_config, commit, latest_checkpoints
from tests.harness.kafka_io import create_topic, read_all, read_partitions
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, wait_for


def transaction(producer: Producer, topic: str, values: list[bytes], abort: bool = False) -> None:
    producer.begin_transaction()
    for v in values:
        producer.produce(topic, v, partition=0)
    if abort:
        producer.abort_transaction(30)
    else:
        producer.commit_transaction(30)


def committed_position(bootstrap: str, group: str, topic: str) -> int:
    """Read `topic` with a read_committed consumer to its end and commit the position it reached."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
                         "isolation.level": "read_committed", "enable.partition.eof": True})
    consumer.assign([TopicPartition(topic, 0, 0)])
    try:
        while True:
            m = consumer.poll(5)
            assert m is not None, "no end of partition"
            if m.error() is not None:
                break  # end of partition: the position is past the aborted range and its marker
        (tp,) = consumer.position([TopicPartition(topic, 0)])
        consumer.commit(offsets=[TopicPartition(topic, 0, tp.offset)], asynchronous=False)
        return int(tp.offset)
    finally:
        consumer.close()


def test_group_after_an_aborted_range_fails_over_exactly(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                        unique: str) -> None:
    t = f"tx{unique}"
    create_topic(broker.bootstrap, t, 1)
    producer = Producer({"bootstrap.servers": broker.bootstrap, "transactional.id": f"tx-{unique}",
                         "batch.num.messages": 1, "linger.ms": 0})  # exact end offsets on Tansu
    producer.init_transactions(30)
    transaction(producer, t, [b"a%d" % i for i in range(10)])             # offsets 0..9, marker 10
    transaction(producer, t, [b"x%d" % i for i in range(5)], abort=True)  # 11..15 aborted, marker 16
    # Apache Kafka keeps the aborted records and both markers (b0 lands at 17, the group ends at 17);
    # Tansu drops aborted batches, so b0 lands at 11 and the group ends at 11. The test reads the
    # layout the broker made and checks every position a consumer can hold around the gaps.
    reached = committed_position(broker.bootstrap, f"rc-{unique}", t)
    transaction(producer, t, [b"b%d" % i for i in range(10)])
    source = [(o, v) for _p, o, _k, v in sorted(read_all(broker.bootstrap, t), key=lambda r: r[1])]
    assert [v for _o, v in source] == [b"a%d" % i for i in range(10)] + [b"b%d" % i for i in range(10)]
    assert source[9][0] < reached <= source[10][0], (reached, source)
    positions = sorted({p for (o1, _), (o2, _) in zip(source, source[1:], strict=False) for p in range(o1 + 1, o2 + 1)})
    groups = {f"rc-{unique}": reached, **{f"at{p}-{unique}": p for p in positions}}
    for group, position in groups.items():
        if group != f"rc-{unique}":
            commit(broker.bootstrap, group, t, position)

    cluster: Cluster = cluster_factory(on=broker_b)
    (w,) = cluster.start(1)
    assert w.request("POST", "/connectors", {"name": "src", "config": mirror_source(
        broker, broker_b, {"topics": t, "source.consumer.isolation.level": "read_committed"})}).status_code == 201
    target = wait_for(lambda: read_partitions(broker_b.bootstrap, f"A.{t}", 20, timeout=5).get(0), 60, "the copy")
    assert [r[2] for r in target] == [v for _o, v in source], "committed records only, in order"
    assert w.request("POST", "/connectors", {"name": "cp", "config": checkpoint_config(
        broker, broker_b, t, f".*-{unique}")}).status_code == 201
    found = wait_for(lambda: (lambda cps: cps if all((g, f"A.{t}", 0) in cps for g in groups) else None)(
        latest_checkpoints(broker_b.bootstrap)), 60, "checkpoints of every group")
    for group, position in groups.items():
        cp = found[(group, f"A.{t}", 0)]
        # The next record the group reads upstream is the first at or after its position; a consumer
        # failing over must read exactly its copy next: lower re-reads, higher skips.
        expected = next(i for i, (o, _v) in enumerate(source) if o >= position)
        assert cp.downstream_offset == expected, (group, position, cp, source)
    print(f"\nABORTED RANGE: upstream layout {[o for o, _ in source]}; {len(groups)} group positions "
          f"{sorted(groups.values())} all translate exactly (0 skipped, 0 re-read)")
