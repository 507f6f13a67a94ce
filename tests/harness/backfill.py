"""Helpers of the backfill tests: stored plan keys, a group's committed offsets, the hand-over scenario."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition

from tests.harness.brokers import Broker, start_broker
from tests.harness.checkpoints import checkpoint_config
from tests.harness.kafka_io import (
    FullRecord,
    create_topic,
    keep_producing,
    produce_many,
    read_partitions,
    stored_offsets,
)
from tests.harness.mirror import mirror_source
from tests.harness.workers import wait_for


def own_brokers() -> tuple[Any, Any]:
    """Module-scoped `broker` and `broker_b` fixtures for a test module (`broker, broker_b = own_brokers()`).

    Backfill tests move up to ~1M records: they get brokers of their own, so the session brokers that the
    other tests share stay small (an in-memory Tansu holding it all slows down everyone after)."""

    def make(name: str, index: int) -> Any:
        def fixture() -> Iterator[Broker]:
            b = start_broker(name, index)
            yield b
            b.stop()

        return pytest.fixture(scope="module", name="broker" if index == 0 else "broker_b")(fixture)

    return make("A", 0), make("B", 1)


def plan_key(topic: str, p: int) -> str:
    """The canonical offsets-topic key of a partition's backfill plan (flow A -> B)."""
    return orjson.dumps({"backfill": "range", "cluster": "A", "partition": p, "topic": topic},
                        option=orjson.OPT_SORT_KEYS).decode()


def source_key(topic: str, p: int) -> str:
    """The canonical offsets-topic key of a partition's streaming (MirrorSource) offset."""
    return orjson.dumps({"cluster": "A", "partition": p, "topic": topic}, option=orjson.OPT_SORT_KEYS).decode()


def end_offsets(consumer: Consumer, topic: str, partitions: int) -> dict[int, int]:
    """Each partition's end offset, asked of the broker (ListOffsets, exact here: the harness's producers, the
    copy's included, write one record per batch). A KafkaException (a topic created after the consumer last
    read its metadata: librdkafka answers from that cache) refreshes the topic's metadata, then goes to the
    caller, who asks again."""
    try:
        return {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)[1]
                for p in range(partitions)}
    except KafkaException:
        consumer.list_topics(topic, timeout=5)
        raise


def landed(bootstrap: str, topic: str, partitions: int) -> int:
    """Records on `topic`: the sum of its partitions' end offsets."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "probe"})
    try:
        return sum(end_offsets(consumer, topic, partitions).values())
    finally:
        consumer.close()


def records_on(bootstrap: str, topic: str, partitions: int, expect: int, quiet: float = 0.0
               ) -> dict[int, list[FullRecord]]:
    """Every record of `topic` once it holds at least `expect` (polled up to 120 s) and, for `quiet` seconds more,
    no record beyond: read to the partitions' end offsets, not for a fixed time (a loaded machine reads slowly)."""
    count = wait_for(lambda: (lambda c: c if c >= expect else 0)(landed(bootstrap, topic, partitions)), 120,
                     f"{expect:,} records on {topic}")
    deadline = time.monotonic() + quiet
    while count == expect and time.monotonic() < deadline:
        time.sleep(0.5)  # the polling interval of the quiet period
        count = landed(bootstrap, topic, partitions)
    return read_partitions(bootstrap, topic, count, timeout=120)


def group_offsets(bootstrap: str, group: str, topic: str, partitions: int) -> dict[int, int]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        tps = consumer.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=10)
        return {tp.partition: tp.offset for tp in tps}
    finally:
        consumer.close()


@dataclass(frozen=True)
class Handover:
    """What a backfill-then-streaming run left: the copied range's end per partition, and how long it took."""

    ends: dict[int, int]
    seconds: float

    @property
    def backfilled(self) -> int:
        return sum(self.ends.values())


def backfill_then_streaming(cluster_factory: Any, a: Broker, b: Broker, topic: str, parts: int, n: int, more: int,
                            spark: Mapping[str, str], on_status: Callable[[dict[str, Any]], None] = lambda s: None,
                            quiet: float = 20.0) -> Handover:
    """The whole hand-over scenario, asserted end to end: `n` records on A, a group committed inside
    every partition's backlog, a MirrorSource connector with the backfill on (Spark settings `spark`)
    while `more` records keep arriving, and a checkpoint connector syncing the group. Asserts that B
    holds exactly A's records per partition (byte-identical, in order, once), that most of the backlog
    went through Spark, and that the group's offsets translate exactly. `on_status` sees each status
    polled (to fail fast with the executors' logs); `quiet`: seconds B must stay without extra records."""
    started = time.monotonic()
    create_topic(a.bootstrap, topic, parts)
    produce_many(a.bootstrap, topic, n, parts)
    group = f"{topic}-group"
    middle = {p: n // parts // 4 + 7 * p for p in range(parts)}  # inside every partition's backfilled range
    consumer = Consumer({"bootstrap.servers": a.bootstrap, "group.id": group, "enable.auto.commit": False})
    consumer.commit(offsets=[TopicPartition(topic, p, o) for p, o in middle.items()], asynchronous=False)
    consumer.close()

    cluster = cluster_factory(on=b)
    (w,) = cluster.start(1)

    def status() -> list[dict[str, Any]]:
        state: dict[str, Any] = w.request("GET", "/connectors/mm/status").json()
        on_status(state)
        return list(state["tasks"])

    stop = threading.Event()
    producer = keep_producing(a.bootstrap, topic, n, more, parts, stop)
    try:
        assert w.request("POST", "/connectors", {"name": "mm", "config": mirror_source(a, b, {
            # The copy keeps the harness's one-record batches (no backfill.producer.* bulk tuning): a batch
            # task restarted under load (its worker's session lapsed) resumes from B's end offset, which
            # Tansu's ListOffsets answers with the last batch's base offset + 1 (docs/brokers.md), so a
            # bulk batch of 950 records was copied again, 949 duplicates (tests/test_backfill_restart.py).
            "topics": topic, "backfill.enabled": "true", "backfill.threshold.records": "1000", **spark})}
        ).status_code == 201
        progress = wait_for(lambda: next((t["progress"] for t in status() if t.get("progress")), None), 120,
                            "the batch task's progress in the REST status")
        assert progress["records_total"] > n // 2 and set(progress["topics"]) == {topic}
        assert w.request("POST", "/connectors", {"name": "cp", "config": checkpoint_config(
            a, b, topic, group, sync_group_offsets_enabled="true",
            sync_group_offsets_interval_seconds="1")}).status_code == 201
        # the hand-over: the batch task goes away and streaming tasks own every partition
        wait_for(lambda: (lambda tasks: tasks and all("progress" not in t and t["state"] == "RUNNING"
                                                       for t in tasks))(status()), 240, "streaming after the backfill")
        producer.join(120)
    finally:
        stop.set()
    source = read_partitions(a.bootstrap, topic, n + more)
    target = records_on(b.bootstrap, f"A.{topic}", parts, n + more, quiet)
    for p in range(parts):
        assert target[p] == source[p], f"partition {p}: {len(target[p])} records on B vs {len(source[p])} on A"

    offsets = stored_offsets(b.bootstrap, f"{cluster.group}-offsets", "mm")
    plans = [offsets[plan_key(topic, p)] for p in range(parts)]
    assert all(plan["done"] and plan["start"] == 0 for plan in plans), plans
    done = Handover({p: plan["end"] for p, plan in enumerate(plans)}, 0.0)
    assert done.backfilled > n // 2, "most of the backlog must have gone through Spark"
    # A group committed inside the backfilled range translates exactly (B's copy starts at offset 0).
    assert all(middle[p] < done.ends[p] for p in range(parts))
    wait_for(lambda: group_offsets(b.bootstrap, group, f"A.{topic}", parts) == middle, 90,
             "the group's offsets translated on B")
    print(f"\nBACKFILL ({spark.get('spark.master')}): {done.backfilled:,} records via Spark, "
          f"{n + more - done.backfilled:,} by streaming; B == A on all {parts} partitions")
    return Handover(done.ends, time.monotonic() - started)
