"""Java key/trust store settings as librdkafka takes them (SslConfigs -> librdkafka), and the readable
cause of a TLS failure (pyconnect.kafka.cluster_trouble)."""

from __future__ import annotations

from pathlib import Path

import confluent_kafka as ck
import pytest

from pyconnect.kafka.cluster_trouble import ClusterUnreachable, TroubleWatch, current
from pyconnect.kafka.config import UnsupportedStore, to_librdkafka


def test_pkcs12_keystore_goes_to_librdkafkas_keystore() -> None:
    out = to_librdkafka({"ssl.keystore.type": "PKCS12", "ssl.keystore.location": "/k.p12",
                         "ssl.keystore.password": " secret "}, "producer")
    assert out == {"ssl.keystore.location": "/k.p12", "ssl.keystore.password": " secret "}


def test_pem_keystore_file_gives_certificate_and_key() -> None:
    out = to_librdkafka({"ssl.keystore.type": "PEM", "ssl.keystore.location": "/k.pem", "ssl.key.password": "p"},
                        "consumer")
    assert out == {"ssl.certificate.location": "/k.pem", "ssl.key.location": "/k.pem", "ssl.key.password": "p"}


def test_inline_pem_key_chain_and_trust_are_kept() -> None:
    out = to_librdkafka({"ssl.keystore.type": "PEM", "ssl.keystore.key": "KEY", "ssl.keystore.certificate.chain":
                         "CHAIN", "ssl.truststore.type": "PEM", "ssl.truststore.certificates": "CA"}, "admin")
    assert out == {"ssl.key.pem": "KEY", "ssl.certificate.pem": "CHAIN", "ssl.ca.pem": "CA"}


def test_jks_file_and_non_pem_trust_store_are_refused(tmp_path: Path) -> None:
    jks = tmp_path / "k.jks"
    jks.write_bytes(b"\xfe\xed\xfe\xed" + b"\0" * 8)
    with pytest.raises(UnsupportedStore, match="ssl.keystore.type=JKS is not supported"):
        to_librdkafka({"ssl.keystore.location": str(jks)}, "admin")
    with pytest.raises(UnsupportedStore, match="ssl.truststore.type=PKCS12 is not supported"):
        to_librdkafka({"ssl.truststore.type": "PKCS12", "ssl.truststore.location": "/t.p12"}, "admin")


def test_default_keystore_type_reads_a_pkcs12_file(tmp_path: Path) -> None:
    """Java's default type JKS reads PKCS12 files too (keystore.type.compat)."""
    p12 = tmp_path / "k.p12"
    p12.write_bytes(b"\x30\x82")
    assert to_librdkafka({"ssl.keystore.location": str(p12)}, "admin") == {"ssl.keystore.location": str(p12)}


def test_a_missing_client_certificate_is_named_with_the_alias() -> None:
    watch = TroubleWatch({"bootstrap.servers": "localhost:1"}, "East")
    watch.on_error(ck.KafkaError(ck.KafkaError._TRANSPORT, "Receive failed: tlsv13 alert certificate required"))
    with pytest.raises(ClusterUnreachable, match="cluster East .*requires a client certificate"):
        watch.check()
    assert "East" in current()
    watch.succeeded()  # the process-wide record /health reads is cleared by a later success
    assert "East" not in current()


def test_transient_errors_are_not_problems() -> None:
    watch = TroubleWatch({"bootstrap.servers": "localhost:1"}, "East")
    watch.on_error(ck.KafkaError(ck.KafkaError._TRANSPORT, "Connection refused"))
    watch.check()
