"""KafkaLog (Connect's KafkaBasedLog) under concurrent read-to-end requests, as 50 REST clients reading
statuses at once make them."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from pyconnect.kafka import topic_log
from pyconnect.kafka.topic_log import KafkaLog
from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic


def producer_conf(broker: Broker) -> dict[str, str]:
    """The broker's producer quirks (one-record batches on Tansu); its Java-named fetch setting is the worker's."""
    return {"bootstrap.servers": broker.bootstrap, **{k: v for k, v in broker.client_overrides.items()
                                                    if k in ("batch.num.messages", "linger.ms")}}


def test_concurrent_read_to_end_share_one_end_offset_lookup(broker: Broker, unique: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """KafkaBasedLogTest.testReadToEnd's batching: the reader thread collects every pending readToEnd callback
    and answers them all after one end-offset read. Before, each request cost its own lookup (a ListOffsets
    round trip per partition) on the one reader thread, and 50 concurrent ones queued past their timeout."""
    topic = f"tl-{unique}"
    create_topic(broker.bootstrap, topic, 5)
    producer = producer_conf(broker)
    lookups = [0]
    real = topic_log.end_offsets

    def counting(*args: Any, **kwargs: Any) -> dict[int, int]:
        lookups[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(topic_log, "end_offsets", counting)
    seen: list[bytes | None] = []
    log = KafkaLog(topic, 5, producer, {"bootstrap.servers": broker.bootstrap})
    log.start(lambda _k, value, _p, _o: seen.append(value), 30)
    try:
        for i in range(20):
            log.send(b"k%d" % i, b"v%d" % i)
        log.flush(10)
        before = lookups[0]
        failures: list[BaseException] = []
        gate = threading.Barrier(50)

        def reader() -> None:
            gate.wait()
            try:
                log.read_to_end(10)
            except BaseException as exc:  # noqa: BLE001 - reported below
                failures.append(exc)

        threads = [threading.Thread(target=reader) for _ in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert not failures, failures[:3]
        assert len(seen) == 20, "every record written before the reads was applied"
        # 50 requests arriving together are answered by a few lookups, not one each.
        assert lookups[0] - before < 25, lookups[0] - before
    finally:
        log.stop(10)


def test_read_to_end_of_an_idle_topic_costs_one_fetch_wait_not_one_per_partition(broker: Broker, unique: str) -> None:
    """An idle 25-partition topic (a worker's offsets topic) read with the fetch wait a user gets (500 ms): the
    broker holds the reader's fetch for the whole wait, and a request behind it on the same connection waits with
    it. The end offsets used to be asked one partition at a time (25 waits, ~12 s); one ListOffsets asks for all,
    as Connect's consumer.endOffsets does."""
    topic = f"tl-idle-{unique}"
    create_topic(broker.bootstrap, topic, 25)
    producer = producer_conf(broker)
    seen: list[int] = []
    log = KafkaLog(topic, 25, producer, {"bootstrap.servers": broker.bootstrap, "fetch.wait.max.ms": "500"})
    log.start(lambda _k, _v, partition, _o: seen.append(partition), 30)
    try:
        for p in range(25):
            log.send(b"k", b"v", partition=p)
        log.flush(10)
        took = []
        for _ in range(3):
            started = time.monotonic()
            log.read_to_end(30)
            took.append(time.monotonic() - started)
        assert sorted(seen) == list(range(25)), "every record written before the reads was applied"
        # One fetch wait (500 ms) plus the reader's idle poll (200 ms) at most, with room for a busy machine.
        assert max(took) < 2.5, took
    finally:
        log.stop(10)
