"""A zombie of an older task generation, fenced by the new one, on Apache Kafka: its commit fails and nothing it
wrote becomes visible to read_committed consumers.

Follows ExactlyOnceSourceIntegrationTest.testConnectorReconfiguration (its assertProducersAreFencedOnReconfiguration
step): a producer holding one task's transactional id stands in for that task of an earlier generation, the connector
is reconfigured to more tasks, and the new generation's task with that id fences it. Here the zombie is caught in the
middle of a transaction, as a frozen worker's task would be: records written before the fence (in its open
transaction, which holds back the partitions' last stable offset until the fence aborts it) and records written
after it. Kafka only: the broker's own read_committed (Fetch's aborted-transaction list, which Tansu leaves empty) is
what is asserted, with no harness filter in between.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException, Producer

from pyconnect.testing.kafka_jvm import KafkaBroker, start_kafka_jvm
from tests.harness.connectors import all_running, committed, sequence_connector
from tests.harness.kafka_io import create_topic, read_all
from tests.harness.workers import Cluster, wait_for

COUNT, PARTITIONS = 600, 3
FENCED = {KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH}


@pytest.fixture(scope="module")
def kafka() -> Iterator[KafkaBroker]:
    node = start_kafka_jvm("eos-zombie")
    try:
        yield node
    finally:
        node.stop()


def zombie_writes(producer: Producer, topic: str, first: int, n: int) -> None:
    """`n` records `zombie:<i>` into the producer's open transaction, over every partition, sent to the broker."""
    for i in range(first, first + n):
        producer.produce(topic, f"zombie:{i}".encode(), partition=i % PARTITIONS)
    producer.flush(30)


def fenced_commit(producer: Producer, topic: str) -> KafkaError:
    """Writes after the fence and tries to commit: the error that refuses it (the producer is fenced for good)."""
    try:
        zombie_writes(producer, topic, 100, 20)
        producer.commit_transaction(30)
    except KafkaException as exc:
        error: KafkaError = exc.args[0]
        return error
    raise AssertionError("the zombie's transaction committed after the new generation fenced it")


def test_a_fenced_zombie_generation_commits_nothing(tmp_path: Path, kafka: KafkaBroker, unique: str) -> None:
    cluster = Cluster(kafka, tmp_path, f"zombie-{unique}", {"exactly.once.source.support": "enabled"})
    try:
        (w,) = cluster.start(1)
        _fence_and_check(w, cluster.group, kafka.bootstrap, f"zombie-{unique}")
    finally:
        cluster.close()


def _fence_and_check(w: Any, group: str, bootstrap: str, topic: str) -> None:
    create_topic(bootstrap, topic, PARTITIONS)
    body = sequence_connector("seq", topic, 1, COUNT, rate=200)
    assert w.request("POST", "/connectors", body).status_code == 201
    wait_for(lambda: all_running(w, "seq", 1) and committed(w, "seq") >= 50, 60, "generation 1 committing")
    # The zombie: task 1's transactional id (Connect's <group>-<connector>-<task>), in a transaction left open.
    zombie = Producer({"bootstrap.servers": bootstrap, "transactional.id": f"{group}-seq-1", "linger.ms": 5,
                       # longer than the test: only the new generation can end its transaction, not a timeout
                       "transaction.timeout.ms": 600000})
    zombie.init_transactions(30)
    zombie.begin_transaction()
    zombie_writes(zombie, topic, 0, 30)
    config = {**body["config"], "tasks.max": "2"}  # generation 2: tasks 0 and 1; task 1 fences the zombie
    assert w.request("PUT", "/connectors/seq/config", config).status_code == 200
    began = time.monotonic()
    wait_for(lambda: all_running(w, "seq", 2), 60, "generation 2's two tasks RUNNING")
    # Task 1's records become readable only once its own transactions commit, after its init fenced the zombie.
    wait_for(lambda: any(r[3] and r[3].startswith(b"1:") for r in read_all(bootstrap, topic, 0.5, 20,
                                                                            isolation="read_committed")),
             60, "generation 2's task 1 committing", 0.5)
    fenced_after = time.monotonic() - began
    error = fenced_commit(zombie, topic)
    wait_for(lambda: committed(w, "seq") >= 2 * COUNT, 120, "both sequences committed")
    records = read_all(bootstrap, topic, 1.5, 60, isolation="read_committed")
    values = collections.Counter(r[3] for r in records)
    zombies = sorted(v for v in values if v and v.startswith(b"zombie"))
    dups = sum(c - 1 for c in values.values())
    missing = [f"{t}:{n}" for t in (0, 1) for n in range(COUNT) if values[f"{t}:{n}".encode()] == 0]
    uncommitted = read_all(bootstrap, topic, 1.0, 60, isolation="read_uncommitted")
    written = sum(1 for r in uncommitted if r[3] and r[3].startswith(b"zombie"))
    print(f"\nZOMBIE GENERATION on Kafka: the new task 1 committed {fenced_after:.1f} s after the reconfiguration; "
          f"the zombie's commit refused with {error.name()} ({error.str()}); {written} zombie records in the log, "
          f"{len(zombies)} of them read_committed; {dups} duplicates, {len(missing)} missing of {2 * COUNT}")
    assert error.code() in FENCED or error.fatal(), error
    assert written >= 30, "the zombie's records before the fence reached the log (then were aborted)"
    assert zombies == [], zombies[:5]
    assert (dups, missing[:5]) == (0, [])
