"""HTTPS listeners + HTTP basic auth (Connect's BasicAuthSecurityRestExtension), forwarding included."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path
from typing import Any

import httpx

from tests.harness.connectors import sequence_connector
from tests.harness.membership import leader_of
from tests.harness.workers import Cluster, wait_for


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A PEM keystore (key + certificate) for 127.0.0.1 and the certificate alone (the truststore)."""
    key, cert = directory / "key.pem", directory / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    keystore = directory / "keystore.pem"
    keystore.write_bytes(key.read_bytes() + cert.read_bytes())
    return keystore, cert


def test_tls_and_basic_auth_with_forwarding(cluster_factory: Any, tmp_path: Path) -> None:
    keystore, cert = self_signed(tmp_path)
    creds = tmp_path / "credentials.properties"
    creds.write_text("# user: password,role\nops: s3cret,admin\nviewer: other\n")
    extra = {
        "listeners.https.ssl.keystore.location": str(keystore), "listeners.https.ssl.keystore.type": "PEM",
        "listeners.https.ssl.truststore.location": str(cert),
        "rest.extension.classes": "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension",
        "rest.basic.auth.credentials.file": str(creds),
    }
    cluster: Cluster = cluster_factory(extra=extra)
    cluster.scheme = "https"
    cluster.client = {"verify": str(cert), "auth": ("ops", "s3cret")}
    workers = cluster.start(2)
    leader_id = wait_for(lambda: leader_of(cluster.broker.bootstrap, cluster.group), 30, "a leader")
    follower = next(w for w in workers if w.worker_id != leader_id)
    url = follower.url + "/connectors"
    assert url.startswith("https://")

    none = httpx.get(url, verify=str(cert))
    assert none.status_code == 401 and none.json()["error_code"] == 401
    assert "Basic" in none.headers["www-authenticate"]
    wrong = httpx.get(url, verify=str(cert), auth=("ops", "nope"))
    assert wrong.status_code == 401
    assert httpx.get(url, verify=str(cert), auth=("ops", "s3cret")).status_code == 200
    assert httpx.get(url, verify=str(cert), auth=("viewer", "other")).status_code == 200
    assert httpx.get(follower.url + "/health", verify=str(cert)).status_code == 200, "probes need no credentials"

    # A leader-only write sent to the follower is forwarded over https with the caller's credentials.
    name = f"sec-{uuid.uuid4().hex[:6]}"
    created = follower.request("POST", "/connectors", sequence_connector(name, f"{name}-out", 1, 5, 10))
    assert created.status_code == 201, created.text
    refused = follower.request("POST", "/connectors?forward=false", sequence_connector(name + "x", "t", 1, 1, 1))
    assert refused.status_code == 409, "the follower did not serve the write itself"
    assert name in follower.request("GET", "/connectors").json()
    # Forwarding carries the Authorization header: with bad credentials the follower already says 401.
    assert follower.request("DELETE", f"/connectors/{name}", auth=("ops", "bad")).status_code == 401
    assert follower.request("DELETE", f"/connectors/{name}").status_code == 204
