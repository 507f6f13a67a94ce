"""The clusters, credentials and clients of tests/test_tls_real.py: Tansu brokers behind stunnel with
one-way TLS, with mutual TLS, with an expired and with a wrong-host certificate; client key stores as
PEM and PKCS12; the PKCS12 password kept in a file read through the `file` config provider."""

from __future__ import annotations

import secrets
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

from pyconnect.testing.brokers import TANSU_CLIENT_OVERRIDES
from pyconnect.testing.tls import CertificateAuthority, TlsBroker
from tests.harness.tls_pki import Issued, issue, pem_keystore, pkcs12_bundle, start_broker
from tests.harness.workers import REPO

FILE_PROVIDER = "org.apache.kafka.common.config.provider.FileConfigProvider"


@dataclass
class Pki:
    """The test CA, a CA nobody trusts, one client certificate as a PEM and a PKCS12 key store."""

    ca: CertificateAuthority
    other: CertificateAuthority
    client: Issued
    pem_store: Path
    p12_store: Path
    password: str  # the PKCS12 password: a secret that must never be shown
    secrets_file: Path

    @property
    def password_ref(self) -> str:
        return f"${{file:{self.secrets_file}:keystore.password}}"


def make_pki(directory: Path) -> Pki:
    ca = CertificateAuthority(directory / "ca")
    other = CertificateAuthority(directory / "other", "a CA nobody trusts")
    client = issue(ca, "replikafka-client", client=True)
    password = "ks-" + secrets.token_hex(12)
    secrets_file = directory / "secrets.properties"
    secrets_file.write_text(f"keystore.password={password}\n")
    return Pki(ca, other, client, pem_keystore(client, directory / "client-store.pem"),
               pkcs12_bundle(client, password, directory / "client-store.p12"), password, secrets_file)


@dataclass
class Brokers:
    """A1/B1: one-way TLS; A2/B2: mutual TLS; EXP: an expired certificate; HOST: a certificate for another name."""

    a1: TlsBroker
    b1: TlsBroker
    a2: TlsBroker
    b2: TlsBroker
    exp: TlsBroker
    host: TlsBroker
    all: list[TlsBroker] = field(default_factory=list)

    def stop(self) -> None:
        for broker in self.all:
            broker.stop()


def start_brokers(pki: Pki, directory: Path) -> Brokers:
    started: list[TlsBroker] = []
    specs: list[tuple[str, Issued, Path | None]] = [
        ("A1", issue(pki.ca, "localhost"), None), ("B1", issue(pki.ca, "localhost"), None),
        ("A2", issue(pki.ca, "localhost"), pki.ca.ca_path), ("B2", issue(pki.ca, "localhost"), pki.ca.ca_path),
        ("EXP", issue(pki.ca, "localhost", expired=True), None), ("HOST", issue(pki.ca, "elsewhere.example"), None)]
    try:
        for name, cert, client_ca in specs:
            started.append(start_broker(name, cert, directory / name, client_ca))
    except Exception:
        for broker in started:
            broker.stop()
        raise
    return Brokers(*started, all=started)


def trust(pki: Pki, ca: CertificateAuthority | None = None) -> dict[str, str]:
    """Java-style one-way TLS settings with hostname verification (Kafka's default, spelled out)."""
    return {"security.protocol": "SSL", "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str((ca or pki.ca).ca_path), "ssl.endpoint.identification.algorithm": "https"}


def pem_identity(pki: Pki) -> dict[str, str]:
    return {"ssl.keystore.type": "PEM", "ssl.keystore.location": str(pki.pem_store)}


def p12_identity(pki: Pki) -> dict[str, str]:
    """A PKCS12 key store whose password comes through the file config provider."""
    return {"ssl.keystore.type": "PKCS12", "ssl.keystore.location": str(pki.p12_store),
            "ssl.keystore.password": pki.password_ref}


def own_client(pki: Pki, mutual: bool) -> dict[str, Any]:
    """librdkafka settings of the test's own clients."""
    conf: dict[str, Any] = {"security.protocol": "SSL", "ssl.ca.location": str(pki.ca.ca_path), "log_level": "0"}
    if mutual:
        conf.update({"ssl.certificate.location": str(pki.client.cert), "ssl.key.location": str(pki.client.key)})
    return conf


def produce(bootstrap: str, client: Mapping[str, Any], topic: str, count: int) -> None:
    conf = {"bootstrap.servers": bootstrap, **client}
    admin = AdminClient(conf)
    for fut in admin.create_topics([NewTopic(topic, 1, 1)]).values():
        fut.result(30)
    producer = Producer({**conf, "linger.ms": 0, "batch.num.messages": 1})
    for i in range(count):
        producer.produce(topic, f"v{i}".encode(), key=f"k{i}".encode())
    assert producer.flush(30) == 0


def commit(bootstrap: str, client: Mapping[str, Any], group: str, topic: str, offset: int) -> None:
    consumer = Consumer({"bootstrap.servers": bootstrap, **client, "group.id": group, "enable.auto.commit": False})
    consumer.commit(offsets=[TopicPartition(topic, 0, offset)], asynchronous=False)
    consumer.close()


def values(bootstrap: str, client: Mapping[str, Any], topic: str, expect: int = 1) -> list[bytes]:
    """Values of `topic` (every partition), a bounded read; [] while the topic does not exist."""
    conf: dict[str, Any] = {"bootstrap.servers": bootstrap, **client}
    found = AdminClient(conf).list_topics(timeout=10).topics.get(topic)
    if found is None or found.error is not None:
        return []
    consumer = Consumer({**conf, "group.id": f"r-{uuid.uuid4().hex}", "enable.auto.commit": False,
                         "fetch.wait.max.ms": 50})
    consumer.assign([TopicPartition(topic, p, 0) for p in found.partitions])
    out: list[bytes] = []
    try:
        deadline = time.monotonic() + 8
        while len(out) < expect and time.monotonic() < deadline:
            out += [m.value() or b"" for m in consumer.consume(500, 0.2) if m.error() is None]
    finally:
        consumer.close()
    return out


def tansu_quirks(prefixes: tuple[str, ...]) -> dict[str, str]:
    """The harness's Tansu client overrides under each prefix (e.g. `producer.`, `B.consumer.`). Right on every
    run: this module's brokers are always Tansu behind stunnel (tls_pki.start_broker), whatever broker the run
    selected; a TLS test against Apache Kafka uses its own SSL listener (kafka_jvm, secure=True) and none of these."""
    return {f"{p}{k}": v for p in prefixes for k, v in TANSU_CLIENT_OVERRIDES.items()}


def start_mirror_maker(path: Path, log: Path) -> subprocess.Popen[bytes]:
    out = open(log, "wb")  # noqa: SIM115 - owned by the child
    try:
        return subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO,
                                stdout=out, stderr=subprocess.STDOUT)
    finally:
        out.close()
