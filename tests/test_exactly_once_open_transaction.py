"""An exactly-once task whose predecessor was killed inside a transaction on the task's own offsets topic.

A task whose producer writes to another cluster keeps its offsets in a topic there, written inside its
transactions (ExactlyOnceSourceIntegrationTest.testSeparateOffsetsTopic's layout). A predecessor killed -9
between writing its offsets and committing leaves that transaction open. Only `init_transactions` on the
same transactional id aborts it, so the task must register its id before it reads the topic, as Connect's
ExactlyOnceWorkerSourceTask initialises its producer (prepareToInitializeTask) before its offset store
starts. Read first, a read_committed reader waits on the open transaction and the task failed after 30 s:
"could not read <topic> to its end" (2 of 6 runs of test_exactly_once's separate-offsets test, killed twice).

Seen on Tansu (behind the harness's read_committed proxy) and run on Apache Kafka as well: Kafka holds a partition's
last stable offset behind an open transaction the same way (until the transaction times out, 60 s by default for
the predecessor's client), so a reader that came first would wait there too. The test checks that precondition on
either broker (the record is in the log, read_committed does not reach it) and that the task's registration
aborted it (never visible afterwards).
"""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

from tests.harness.brokers import Broker
from tests.harness.committed import read_committed
from tests.harness.connectors import committed, sequence_connector, status
from tests.harness.kafka_io import create_topic, read_all
from tests.harness.workers import Cluster, wait_for

# The killed predecessor: registers the task's transactional id, writes an offsets record inside a
# transaction and exits without committing or aborting it.
_PREDECESSOR = """
import os, sys
from confluent_kafka import Producer
producer = Producer({"bootstrap.servers": sys.argv[1], "transactional.id": sys.argv[2], "linger.ms": 0})
producer.init_transactions(30)
producer.begin_transaction()
producer.produce(sys.argv[3], b'{"seq":0}', key=b'["seq",{"task":0}]', partition=0)
assert producer.flush(30) == 0
os._exit(0)
"""


def test_a_transaction_left_open_in_its_own_offsets_topic_does_not_stop_the_task(
        cluster_factory: Any, txn_broker: Broker, txn_broker_b: Broker, unique: str) -> None:
    cluster: Cluster = cluster_factory(extra={"exactly.once.source.support": "enabled"}, on=txn_broker)
    w = cluster.start(1)[0]
    topic, own, count = f"open-{unique}", f"open-offsets-{unique}", 300
    create_topic(txn_broker_b.bootstrap, own, 25, {"cleanup.policy": "compact"})
    subprocess.run([sys.executable, "-c", _PREDECESSOR, txn_broker_b.bootstrap, f"{cluster.group}-seq-0", own],
                   check=True, timeout=60)
    written = read_all(txn_broker_b.bootstrap, own, 1.0, 20, isolation="read_uncommitted")
    readable = read_all(txn_broker_b.bootstrap, own, 1.0, 20, isolation="read_committed")
    assert ([r[:2] for r in written], readable) == ([(0, 0)], []), "the predecessor's transaction is open"
    body = sequence_connector("seq", topic, 1, count, rate=300)
    body["config"].update({"producer.override.bootstrap.servers": txn_broker_b.bootstrap,
                           "offsets.storage.topic": own})
    started = time.monotonic()
    assert w.request("POST", "/connectors", body).status_code == 201

    def done() -> bool:
        tasks = status(w, "seq").get("tasks", [])
        assert not any(t["state"] == "FAILED" for t in tasks), tasks
        return committed(w, "seq") >= count
    wait_for(done, 90, f"{count} records committed")
    took = time.monotonic() - started
    after = read_committed(txn_broker_b.bootstrap, own)
    print(f"\nOPEN TRANSACTION LEFT BY A KILLED PREDECESSOR ({txn_broker_b.kind}): the task committed {count} "
          f"records {took:.1f} s after it was created; {len(after)} committed offset records on its offsets topic")
    assert (0, 0) not in {r[:2] for r in after}, "the predecessor's open transaction was aborted, never committed"
    assert after, "the task's own offsets, committed in its transactions"
