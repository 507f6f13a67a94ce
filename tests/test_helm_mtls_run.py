"""The chart's Strimzi `authentication: {type: tls, certificateAndKey: ...}` run for real: the rendered mm2.properties,
its Secrets laid out as the pod mounts them, copies records between two Tansu brokers behind stunnel that refuse
any client without a certificate signed by the test CA (mutual TLS), and the key never shows in the log.

The offline rendering and the schema of every shape are tests/test_helm_authentication.py.
"""

from __future__ import annotations

import shutil
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pyconnect.testing.tls import CertificateAuthority, TlsBroker, stunnel_binary
from tests.harness.brokers import free_port
from tests.harness.helm_chart import by_kind, render_values
from tests.harness.mirror import mm2_settings
from tests.harness.tls_pki import Issued, issue, start_broker
from tests.harness.tls_real import produce, values
from tests.harness.workers import wait_for
from tests.test_health_topologies import Process

pytest.importorskip("helm_python", reason="helm-python-sdk is not installed (pip install -e '.[test]')")
RECORDS = 20


@pytest.fixture
def mutual(tmp_path: Path) -> Iterator[tuple[CertificateAuthority, Issued, TlsBroker, TlsBroker]]:
    """The test CA, a client certificate it signed, and brokers A and B that demand one (stunnel verify = 2)."""
    if stunnel_binary() is None:
        pytest.skip("stunnel is not installed (Debian package stunnel4; scripts/setup.sh installs it)")
    ca = CertificateAuthority(tmp_path / "ca")
    a = start_broker("A", issue(ca, "localhost"), tmp_path / "A", ca.ca_path)
    try:
        b = start_broker("B", issue(ca, "localhost"), tmp_path / "B", ca.ca_path)
    except Exception:
        a.stop()
        raise
    yield ca, issue(ca, "replikafka-mm2", client=True), a, b
    a.stop()
    b.stop()


def chart_values(a: TlsBroker, b: TlsBroker, port: int) -> dict[str, Any]:
    """Strimzi-style values: B the target, A the source, both mTLS with the CA and the user certificate of
    Secrets, plus the settings single-broker test clusters need."""
    def cluster(alias: str, broker: TlsBroker) -> dict[str, Any]:
        return {"alias": alias, "bootstrapServers": broker.bootstrap,
                "tls": {"trustedCertificates": [{"secretName": f"{alias}-cluster-ca-cert", "certificate": "ca.crt"}]},
                "authentication": {"type": "tls", "certificateAndKey": {
                    "secretName": "mm2-user", "certificate": "user.crt", "key": "user.key"}}}
    target = cluster("B", b) | {"config": {f"{kind}.storage.replication.factor": "1"
                                           for kind in ("offset", "status", "config")}}
    settings = [line.split("=", 1) for line in mm2_settings({"A": a.broker, "B": b.broker}).splitlines()]
    return {"target": target, "mirrors": [{"source": cluster("A", a), "groupsPattern": "none"}],
            "config": {k.strip(): v.strip() for k, v in settings} | {"emit.heartbeats.enabled": "false"},
            "service": {"ports": {"rest": port}}, "metrics": {"port": free_port()}}


def mount_secrets(root: Path, ca: CertificateAuthority, user: Issued) -> None:
    """The files the pod's Secret volumes hold: /etc/replikafka/secrets/<alias>/user.{crt,key} (Strimzi's
    KafkaUser Secret) and /etc/replikafka/certs/<alias>/ca.crt (the cluster CA Secret), under `root`."""
    for alias in ("A", "B"):
        (root / "secrets" / alias).mkdir(parents=True)
        (root / "certs" / alias).mkdir(parents=True)
        shutil.copy(user.cert, root / "secrets" / alias / "user.crt")
        shutil.copy(user.key, root / "secrets" / alias / "user.key")
        shutil.copy(ca.ca_path, root / "certs" / alias / "ca.crt")


def test_rendered_mtls_settings_copy_records_between_brokers_that_demand_a_certificate(
        mutual: tuple[CertificateAuthority, Issued, TlsBroker, TlsBroker], tmp_path: Path) -> None:
    ca, user, a, b = mutual
    port = free_port()
    docs = render_values(chart_values(a, b, port))
    container = by_kind(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    text = by_kind(docs, "ConfigMap")["data"]["mm2.properties"]
    assert "B.ssl.keystore.key = ${directory:/etc/replikafka/secrets/B:user.key}" in text
    mount_secrets(tmp_path / "etc", ca, user)
    path = tmp_path / "mm2.properties"
    path.write_text(text.replace("/etc/replikafka/", f"{tmp_path}/etc/"))
    args = [str(path) if arg == "/etc/replikafka/config/mm2.properties" else arg for arg in container["args"]]
    topic = f"mtls{uuid.uuid4().hex[:6]}"
    client = {"security.protocol": "SSL", "ssl.ca.location": str(ca.ca_path), "log_level": "0",
              "ssl.certificate.location": str(user.cert), "ssl.key.location": str(user.key)}  # the test's own
    produce(a.bootstrap, client, topic, RECORDS)
    process = Process([sys.executable, "-m", "replikafka", *args], tmp_path / "mm.log", port, {"POD_IP": "127.0.0.1"})
    try:
        wait_for(lambda: len(values(b.bootstrap, client, f"A.{topic}", RECORDS)) >= RECORDS, 90,
                 f"A.{topic} copied to B over mutual TLS")
    finally:
        process.stop()
    log = (tmp_path / "mm.log").read_text()
    assert "PRIVATE KEY" not in log and "Traceback" not in log, log[-3000:]
