"""Dedicated mode against clusters reachable only over TLS, with TLS set once at the top level of
mm2.properties (Kafka's MirrorMakerConfig applies top-level security settings to every cluster and
client). Each Tansu broker listens on a plain loopback port and advertises the port of the stunnel in
front of it (pyconnect.testing.tls), so every client that follows broker metadata talks TLS."""

from __future__ import annotations

import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

from connectors.mirror.config import SOURCE, MirrorConfig
from connectors.mirror.formats import Checkpoint
from connectors.mirror.maker_config import Flow, MirrorMakerConfig
from pyconnect.config.properties import parse_properties
from pyconnect.config.worker import WorkerConfig
from pyconnect.kafka.admin import Admin
from pyconnect.kafka.clients import KafkaClientError
from pyconnect.testing.brokers import TANSU_CLIENT_OVERRIDES, free_port
from pyconnect.testing.tls import CertificateAuthority, TlsBroker, start_tls_tansu, stunnel_binary, tls_client_settings
from tests.harness.workers import REPO, wait_for

RECORDS = 200
# The group is committed at the end of partition 0: a checkpoint task that starts after the offset syncs
# were written keeps only the latest sync per partition during its first read (as Kafka's OffsetSyncStore
# does), so it can translate the end, not offsets behind it.
COMMITTED = RECORDS // 2
Record = tuple[int, int, bytes | None, bytes | None, Any, int]  # partition, offset, key, value, headers, timestamp


@dataclass
class TlsClusters:
    ca: CertificateAuthority
    a: TlsBroker
    b: TlsBroker
    client: dict[str, Any]  # what the test's own clients add to reach them


@pytest.fixture
def tls_clusters(tmp_path: Path) -> Iterator[TlsClusters]:
    if stunnel_binary() is None:
        pytest.skip("stunnel is not installed (Debian package stunnel4; scripts/setup.sh installs it)")
    ca = CertificateAuthority(tmp_path / "ca")
    a = start_tls_tansu("A", ca, tmp_path)
    try:
        b = start_tls_tansu("B", ca, tmp_path)
    except Exception:
        a.stop()
        raise
    yield TlsClusters(ca, a, b, {**tls_client_settings(ca), "log_level": "0"})
    b.stop()
    a.stop()


# The CA at the top level, under Java's names or under librdkafka's (which behave as the Java names do).
TRUST = {"java": ["ssl.truststore.location = {ca}", "ssl.truststore.type = PEM"],
         "librdkafka": ["ssl.ca.location = {ca}"]}


def mm2_text(c: TlsClusters, topic: str, group: str, truststore: Path, port: int, names: str = "java") -> str:
    lines = [
        "clusters = A, B", f"A.bootstrap.servers = {c.a.bootstrap}", f"B.bootstrap.servers = {c.b.bootstrap}",
        # TLS once, at the top level: Kafka applies it to every cluster and client.
        "security.protocol = SSL", *(line.format(ca=truststore) for line in TRUST[names]),
        "A->B.enabled = true", f"A->B.topics = {topic}", f"A->B.groups = {group}", "B->A.enabled = false",
        f"listeners = http://127.0.0.1:{port}", "emit.checkpoints.interval.seconds = 1",
        "sync.topic.acls.enabled = false",
    ]
    lines += [f"{key} = 1" for key in (
        "replication.factor", "checkpoints.topic.replication.factor", "heartbeats.topic.replication.factor",
        "offset-syncs.topic.replication.factor", "offset.storage.replication.factor",
        "status.storage.replication.factor", "config.storage.replication.factor")]
    for alias in ("A", "B"):  # Tansu's quirks: the workers' own clients, then the connectors' clients
        lines.append(f"{alias}.offset.flush.interval.ms = 1000")
        lines += [f"{alias}.{key} = {value}" for key, value in TANSU_CLIENT_OVERRIDES.items()]
        lines += [f"{alias}.{role}.{key} = {value}" for key, value in TANSU_CLIENT_OVERRIDES.items()
                  for role in ("producer", "consumer")]
    return "\n".join(lines) + "\n"


def produce_and_commit(c: TlsClusters, topic: str, group: str) -> list[Record]:
    conf: dict[str, Any] = {"bootstrap.servers": c.a.bootstrap, **c.client}
    admin = AdminClient(conf)  # kept referenced until the futures resolve
    for fut in admin.create_topics([NewTopic(topic, 2, 1)]).values():
        fut.result(30)
    producer = Producer({**conf, "linger.ms": 0, "batch.num.messages": 1})
    for i in range(RECORDS):
        producer.produce(topic, f"value-{i}".encode(), key=f"k{i}".encode() if i % 7 else None,
                         partition=i % 2, timestamp=1_700_000_000_000 + i, headers=[("h", f"{i}".encode())])
    assert producer.flush(30) == 0
    consumer = Consumer({**conf, "group.id": group, "enable.auto.commit": False})
    consumer.commit(offsets=[TopicPartition(topic, 0, COMMITTED)], asynchronous=False)
    consumer.close()
    return read_all(c, c.a.bootstrap, topic, RECORDS)


def read_all(c: TlsClusters, bootstrap: str, topic: str, expect: int) -> list[Record]:
    """(partition, offset, key, value, headers, timestamp) of the first `expect` records, over TLS."""
    conf: dict[str, Any] = {"bootstrap.servers": bootstrap, **c.client}
    found = AdminClient(conf).list_topics(timeout=10).topics.get(topic)
    if found is None or found.error is not None:
        return []
    consumer = Consumer({**conf, "group.id": f"reader-{uuid.uuid4().hex}", "enable.auto.commit": False,
                         "fetch.wait.max.ms": 50})
    consumer.assign([TopicPartition(topic, p, 0) for p in found.partitions])
    out: list[Record] = []
    try:
        for _ in range(50):  # each poll waits at most 0.2 s: a bounded read
            for m in consumer.consume(1000, 0.2):
                if m.error() is None:
                    out.append((m.partition() or 0, m.offset() or 0, m.key(), m.value(), m.headers(),
                                m.timestamp()[1]))
            if len(out) >= expect:
                break
    finally:
        consumer.close()
    return sorted(out)


def complete(records: list[Record]) -> list[Record] | None:
    return records if len(records) == RECORDS else None


def checkpoint_of(c: TlsClusters, group: str, topic: str) -> Checkpoint | None:
    """The first checkpoint of `group` for the remote `topic` on B, if there is one yet."""
    for record in read_all(c, c.b.bootstrap, "A.checkpoints.internal", 1):
        cp = Checkpoint.decode(record[2] or b"", record[3] or b"")
        if (cp.group, cp.topic) == (group, topic):
            return cp
    return None


@pytest.mark.parametrize("names", sorted(TRUST))
def test_top_level_tls_replicates_and_checkpoints(tls_clusters: TlsClusters, tmp_path: Path, names: str) -> None:
    """Kafka's MirrorMakerConfig.clusterProps carries top-level client security settings to every cluster;
    librdkafka's `ssl.ca.location` at the top level does what Java's `ssl.truststore.location` does."""
    c = tls_clusters
    topic, group = f"tls{uuid.uuid4().hex[:6]}", f"g-{uuid.uuid4().hex[:6]}"
    upstream = produce_and_commit(c, topic, group)
    assert len(upstream) == RECORDS
    path = tmp_path / "mm2.properties"
    path.write_text(mm2_text(c, topic, group, c.ca.ca_path, free_port(), names))
    log = open(tmp_path / "mm.log", "wb")  # noqa: SIM115 - owned by the child
    proc = subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO, stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        copied = wait_for(lambda: complete(read_all(c, c.b.bootstrap, f"A.{topic}", RECORDS)), 45,
                          f"A.{topic} on B over TLS")
        assert copied is not None
        assert [r[:1] + r[2:] for r in copied] == [r[:1] + r[2:] for r in upstream], "byte-identical, same partitions"
        cp = wait_for(lambda: checkpoint_of(c, group, f"A.{topic}"), 30, "a checkpoint of the group on B")
        assert cp is not None
        assert (cp.partition, cp.upstream_offset) == (0, COMMITTED)
        assert 0 < cp.downstream_offset <= COMMITTED, "translated, never ahead of the upstream offset"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        log.close()
    text = (tmp_path / "mm.log").read_text(errors="replace")
    assert "certificate verify failed" not in text.lower()
    assert "is not used" not in text, "a top-level security key was dropped"


@pytest.mark.parametrize("names", sorted(TRUST))
def test_a_client_trusting_another_ca_is_refused(tls_clusters: TlsClusters, tmp_path: Path, names: str) -> None:
    """Every client a flow builds (its worker's, and each connector's on both sides) gets the top-level CA."""
    c = tls_clusters
    other = CertificateAuthority(tmp_path / "other", "another test CA")
    for truststore, reachable in ((other.ca_path, False), (c.ca.ca_path, True)):
        text = mm2_text(c, "t", "g", truststore, free_port(), names)
        cfg = MirrorMakerConfig(parse_properties(text, "mm2.properties"))
        worker = WorkerConfig(cfg.worker_config(Flow("A", "B")))
        source = MirrorConfig(SOURCE, cfg.connector_config(Flow("A", "B"), "MirrorSourceConnector"))
        confs = [worker.client_config(role) for role in ("admin", "producer", "consumer")]
        confs += [source.client(side, role) for side in ("source", "target")
                  for role in ("admin", "producer", "consumer")]
        assert all(conf.get("ssl.ca.location") == str(truststore) for conf in confs), confs
        for conf in (worker.client_config("admin"), source.client("source", "admin"),
                     source.client("target", "admin")):
            admin = Admin({**conf, "log_level": "0"})
            if reachable:
                admin.cluster_id(timeout=10)
            else:
                with pytest.raises(KafkaClientError):
                    admin.cluster_id(timeout=3)
