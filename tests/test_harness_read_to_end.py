"""The harness's `read_to_end` on a topic written in transactions.

A transaction ends with a COMMIT marker, an offset no consumer is handed. The reader took its end from the
high watermark (one past the marker) and its position from the last record, so it never saw itself at the
end and waited out its whole timeout (30 s) on every call. The dedicated exactly-once test polled
checkpoints that way, written in transactions, and CI ran out of its 90 s after three such calls.
"""

from __future__ import annotations

import time

from confluent_kafka import Producer

from tests.harness.brokers import Broker
from tests.harness.committed import stuck_transactions
from tests.harness.kafka_io import create_topic, read_to_end


def test_a_topic_ending_in_a_commit_marker_is_read_to_its_end_at_once(txn_broker: Broker, unique: str) -> None:
    topic = f"txn-end-{unique}"
    create_topic(txn_broker.bootstrap, topic, 1)
    producer = Producer({"bootstrap.servers": txn_broker.bootstrap, "transactional.id": f"t-{unique}"})
    producer.init_transactions(30)
    producer.begin_transaction()
    for n in range(2):
        producer.produce(topic, b"v%d" % n, key=b"k%d" % n, partition=0)
    producer.commit_transaction(30)
    started = time.monotonic()
    records = read_to_end(txn_broker.bootstrap, topic, timeout=30)
    took = time.monotonic() - started
    assert [(r[1], r[3]) for r in records] == [(0, b"v0"), (1, b"v1")]
    assert took < 10, f"read_to_end took {took:.1f}s: it waited for an offset past the COMMIT marker"


def test_a_transaction_left_open_is_named_with_its_partition(txn_broker: Broker, unique: str) -> None:
    """`stuck_transactions`, the evidence a failing exactly-once test gives: the partition whose open
    transaction holds read_committed readers back, where they stop, and its last record."""
    topic = f"txn-open-{unique}"
    create_topic(txn_broker.bootstrap, topic, 2)
    closed = Producer({"bootstrap.servers": txn_broker.bootstrap, "transactional.id": f"c-{unique}"})
    closed.init_transactions(30)
    closed.begin_transaction()
    closed.produce(topic, b"committed", partition=0)
    closed.produce(topic, b"committed", partition=1)
    closed.commit_transaction(30)
    assert stuck_transactions(txn_broker.bootstrap, topic) == f"every partition of {topic} is readable to its end"
    held = Producer({"bootstrap.servers": txn_broker.bootstrap, "transactional.id": f"o-{unique}"})
    held.init_transactions(30)
    held.begin_transaction()
    held.produce(topic, b"open", key=b"k", partition=1)
    assert held.flush(30) == 0
    assert stuck_transactions(txn_broker.bootstrap, topic) == (
        f"{topic}-1: read_committed stops at 2 of 3, last record (1, 2, b'k', b'open')")
    held.abort_transaction(30)
