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
