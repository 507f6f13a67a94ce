"""SASL_SSL with SCRAM-SHA-512 end to end, against two Apache Kafka 4.x clusters with real SCRAM listeners
(pyconnect.testing.kafka_jvm, secure=True): a `replikafka distributed` worker and a dedicated `replikafka
mirror-maker`, both configured with Kafka's own client keys (security.protocol, sasl.mechanism, sasl.jaas.config,
ssl.truststore.location as a PEM file), copy a topic A -> B; a wrong password ends in a readable error naming
the cluster and the cause, never a Python traceback. Tansu cannot serve SASL logins, so this is Kafka only.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

from pyconnect.testing.brokers import free_port
from pyconnect.testing.kafka_jvm import KafkaBroker
from tests.harness.connectors import status
from tests.harness.kafka_pair import kafka_pair
from tests.harness.tls_real import start_mirror_maker
from tests.harness.workers import Cluster, WorkerProcess, wait_for

RECORDS = 200
SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
REPLICATION = ("replication.factor", "checkpoints.topic.replication.factor", "heartbeats.topic.replication.factor",
               "offset-syncs.topic.replication.factor", "offset.storage.replication.factor",
               "status.storage.replication.factor", "config.storage.replication.factor")


@pytest.fixture(scope="module")
def secure() -> Iterator[tuple[KafkaBroker, KafkaBroker]]:
    with kafka_pair("scram", secure=True) as pair:
        yield pair


def java_security(node: KafkaBroker, password: str | None = None) -> dict[str, str]:
    """A Java client's settings for `node`'s SASL_SSL listener, as a user writes them in a properties file."""
    assert node.sasl_ssl_bootstrap is not None
    secret = node.scram_password if password is None else password
    return {"bootstrap.servers": node.sasl_ssl_bootstrap, "security.protocol": "SASL_SSL",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.jaas.config": f'{SCRAM_MODULE} required username="{node.scram_user}" password="{secret}";',
            "ssl.truststore.location": str(node.ca_path), "ssl.truststore.type": "PEM"}


def write_topic(node: KafkaBroker, topic: str) -> None:
    """Create `topic` on `node` and write RECORDS values over SASL_SSL (the test's own librdkafka client)."""
    settings = node.client_settings("SASL_SSL")
    admin = AdminClient(dict(settings))  # held until the futures resolve
    for future in admin.create_topics([NewTopic(topic, 2, 1)], operation_timeout=30).values():
        future.result(30)
    producer = Producer({**settings, "acks": "all"})
    for i in range(RECORDS):
        producer.produce(topic, f"v{i}".encode())
    assert producer.flush(30) == 0


def read_values(settings: dict[str, str], topic: str, partitions: int = 2) -> list[bytes]:
    """The values of `topic` read from the start until nothing new comes for 1 s."""
    consumer = Consumer({**settings, "group.id": f"scram-reader-{time.monotonic_ns()}", "enable.auto.commit": False,
                         "log_level": "0"})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    values: list[bytes] = []
    deadline = time.monotonic() + 10  # a missing topic answers with errors, not silence
    try:
        while (batch := consumer.consume(1000, 1.0)) and time.monotonic() < deadline:
            values += [m.value() or b"" for m in batch if m.error() is None]
    finally:
        consumer.close()
    return values


def copied(node: KafkaBroker, topic: str) -> set[bytes] | None:
    """The values of `topic` on `node` (read over SASL_SSL) once all RECORDS are there; else None."""
    values = set(read_values(node.client_settings("SASL_SSL"), topic))
    return values if len(values) >= RECORDS else None


def no_traceback(text: str) -> None:
    assert "Traceback (most recent call last)" not in text, text[-3000:]


def test_a_worker_copies_over_sasl_ssl_and_a_wrong_password_fails_readably(
        secure: tuple[KafkaBroker, KafkaBroker], tmp_path: Path, unique: str) -> None:
    """A worker whose own cluster (B) is reached over SASL_SSL/SCRAM-SHA-512 runs a MirrorSourceConnector from A
    (SASL_SSL too, `source.cluster.*` / `target.cluster.*`): every record is copied. A second connector with a
    wrong source password is FAILED, its trace ending in a sentence naming the cluster and the refused login, and
    the worker's log holds no traceback."""
    a, b = secure
    topic = f"scram-{unique}"
    write_topic(a, topic)
    cluster = Cluster(b, tmp_path, f"scram-{unique}", java_security(b))
    try:
        (w,) = cluster.start(1)
        began = time.monotonic()
        body = mirror_body(a, b, topic, java_security(a))
        assert w.request("PUT", "/connectors/ms/config", body).status_code == 201
        values = wait_for(lambda: copied(b, f"A.{topic}"), 90, "the copies on B", 0.5)
        copy_s = time.monotonic() - began
        assert values == {f"v{i}".encode() for i in range(RECORDS)}
        began = time.monotonic()
        bad = mirror_body(a, b, topic, java_security(a, "not-the-password"))
        assert w.request("PUT", "/connectors/bad/config", bad).status_code == 201
        failed = wait_for(lambda: failure(w, "bad"), 60, "the connector with a wrong password FAILED")
        fail_s = time.monotonic() - began
        print(f"\nWORKER over SASL_SSL/SCRAM-SHA-512 (Kafka {a.version}): {RECORDS} records copied in {copy_s:.1f} s; "
              f"wrong password FAILED in {fail_s:.1f} s: {failed.splitlines()[-1][:200]}")
        # The status `trace` is a stack trace by Connect's contract; its last line is the sentence for a person.
        reason = failed.strip().splitlines()[-1]
        assert "cluster A" in reason and "refused authentication" in reason, failed
        assert "not-the-password" not in failed
        no_traceback(w.log_path.read_text(errors="replace"))
    finally:
        cluster.close()


def mirror_body(a: KafkaBroker, b: KafkaBroker, topic: str, source: dict[str, str]) -> dict[str, str]:
    config = {"connector.class": "MirrorSourceConnector", "source.cluster.alias": "A", "target.cluster.alias": "B",
              "topics": topic, "tasks.max": "1", "replication.factor": "1", "sync.topic.acls.enabled": "false",
              "offset-syncs.topic.replication.factor": "1"}
    config |= {f"source.cluster.{k}": v for k, v in source.items()}
    config |= {f"target.cluster.{k}": v for k, v in java_security(b).items()}
    return config


def failure(w: WorkerProcess, name: str) -> str:
    """The trace of `name`'s connector or first task once either is FAILED; '' before."""
    st: dict[str, Any] = status(w, name)
    for part in [st.get("connector", {}), *st.get("tasks", [])]:
        if part.get("state") == "FAILED":
            return str(part.get("trace", ""))
    return ""


def mm2_text(a: KafkaBroker, b: KafkaBroker, topic: str, port: int, a_password: str | None = None) -> str:
    lines = ["clusters = A, B", "A->B.enabled = true", f"A->B.topics = {topic}", "B->A.enabled = false",
             f"listeners = http://127.0.0.1:{port}", "refresh.topics.interval.seconds = 2",
             "sync.topic.acls.enabled = false", *(f"{key} = 1" for key in REPLICATION)]
    lines += [f"A.{k} = {v}" for k, v in java_security(a, a_password).items()]
    lines += [f"B.{k} = {v}" for k, v in java_security(b).items()]
    return "\n".join(lines) + "\n"


def test_a_dedicated_mirror_maker_copies_over_sasl_ssl_and_a_wrong_password_reads_clearly(
        secure: tuple[KafkaBroker, KafkaBroker], tmp_path: Path, unique: str) -> None:
    """`replikafka mirror-maker` with each cluster's SASL_SSL/SCRAM-SHA-512 settings under its alias copies A -> B;
    with a wrong password for A it exits non-zero, its last line naming cluster A and the refused login, without a
    traceback or a flood of repeated lines."""
    a, b = secure
    topic = f"mm-scram-{unique}"
    write_topic(a, topic)
    path = tmp_path / "mm2.properties"
    path.write_text(mm2_text(a, b, topic, free_port()))
    began = time.monotonic()
    proc = start_mirror_maker(path, tmp_path / "mm.log")
    try:
        values = wait_for(lambda: copied(b, f"A.{topic}"), 120, "the copies on B", 0.5)
        copy_s = time.monotonic() - began
        assert values == {f"v{i}".encode() for i in range(RECORDS)}
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    no_traceback((tmp_path / "mm.log").read_text(errors="replace"))
    bad = tmp_path / "bad-mm2.properties"
    bad.write_text(mm2_text(a, b, f"bad-{topic}", free_port(), "not-the-password"))
    began = time.monotonic()
    proc = start_mirror_maker(bad, tmp_path / "bad.log")
    try:
        code = wait_for(lambda: proc.poll() is not None, 90, "mirror-maker to give up on cluster A")
        fail_s = time.monotonic() - began
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
    log = (tmp_path / "bad.log").read_text(errors="replace")
    last = log.strip().splitlines()[-1] if log.strip() else ""
    print(f"\nDEDICATED over SASL_SSL/SCRAM-SHA-512 (Kafka {a.version}): {RECORDS} records copied in {copy_s:.1f} s; "
          f"wrong password: exit code {proc.returncode} after {fail_s:.1f} s, last line: {last[:220]}")
    assert code and proc.returncode != 0, log[-2000:]
    assert last.startswith("error: ") and "cluster A" in last and "refused authentication" in last, log[-2000:]
    assert len(log.splitlines()) < 10, f"a flood of lines: {log[-2000:]}"
    assert "not-the-password" not in log
    no_traceback(log)

