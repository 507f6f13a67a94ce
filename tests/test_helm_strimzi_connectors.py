"""The chart's Strimzi-style mirror values, run: per-connector state, tasksMax and autoRestart, exclude patterns,
and rack awareness (client.rack from the node's zone label, read by the init step through the API).

Followed: Strimzi's KafkaMirrorMaker2 API (api/.../mirrormaker2/KafkaMirrorMaker2MirrorSpec: sourceConnector,
checkpointConnector, heartbeatConnector as KafkaMirrorMaker2ConnectorSpec with tasksMax, state, autoRestart;
topicsExcludePattern, groupsExcludePattern) and its rack (spec.rack.topologyKey, read from the node's labels
by an init container whose service account may get nodes)."""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from connectors.mirror.config import SOURCE, MirrorConfig
from pyconnect.testing.tls import CertificateAuthority
from tests.harness.brokers import Broker, free_port
from tests.harness.faults import own_brokers
from tests.harness.helm_chart import CHART, by_kind, render_values
from tests.harness.kafka_io import create_topic
from tests.harness.workers import REPO, wait_for
from tests.test_health_topologies import Process, chart_values

pytest.importorskip("helm_python", reason="helm-python-sdk is not installed (pip install -e '.[test]')")
VALUES = CHART / "ci" / "strimzi-connectors-values.yaml"
ZONE = "europe-west1-b"
NODES = {"node-1": {"metadata": {"name": "node-1", "labels": {"topology.kubernetes.io/zone": ZONE}}},
         "node-2": {"metadata": {"name": "node-2", "labels": {}}}}


@pytest.fixture
def node_api(tmp_path: Path) -> Iterator[dict[str, str]]:
    """An HTTPS server answering GET /api/v1/nodes/<name> as the Kubernetes API does (only for the right bearer
    token), and the environment a pod would give the init step to reach it."""
    ca = CertificateAuthority(tmp_path / "ca")
    cert, key = ca.issue("localhost")
    account = tmp_path / "serviceaccount"
    account.mkdir()
    (account / "token").write_text("t0ken\n")
    (account / "ca.crt").write_bytes(ca.ca_path.read_bytes())

    class Nodes(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            name = self.path.removeprefix("/api/v1/nodes/")
            ok = self.headers.get("Authorization") == "Bearer t0ken"
            body = json.dumps(NODES[name] if ok and name in NODES else {"kind": "Status"}).encode()
            self.send_response(200 if ok and name in NODES else 403 if not ok else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Nodes)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield {"KUBERNETES_SERVICE_HOST": "localhost", "KUBERNETES_SERVICE_PORT": str(server.server_port),
           "SERVICE_ACCOUNT_DIR": str(account)}
    server.shutdown()


def rack_init(env: dict[str, str], out: Path) -> subprocess.CompletedProcess[str]:
    """The Deployment's init container command (its env as the chart renders it), run here."""
    init = by_kind(render_values(yaml.safe_load(VALUES.read_text())), "Deployment")
    (container,) = init["spec"]["template"]["spec"]["initContainers"]
    assert container["command"][:3] == ["python", "-m", "replikafka.rack_init"]
    assert {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}} in container["env"]
    key = next(e["value"] for e in container["env"] if e["name"] == "TOPOLOGY_KEY")
    return subprocess.run([sys.executable, *container["command"][1:3], str(out)], cwd=REPO, capture_output=True,
                          text=True, timeout=30, env={**os.environ, "TOPOLOGY_KEY": key, **env})


def test_rack_init_writes_the_nodes_zone(node_api: dict[str, str], tmp_path: Path) -> None:
    out = tmp_path / "rack.properties"
    done = rack_init({**node_api, "NODE_NAME": "node-1"}, out)
    assert done.returncode == 0, done.stderr
    assert out.read_text() == f"client.rack={ZONE}\n"
    unlabelled = rack_init({**node_api, "NODE_NAME": "node-2"}, tmp_path / "none.properties")
    assert unlabelled.returncode == 1
    assert unlabelled.stderr.strip() == "error: rack: node node-2 has no label topology.kubernetes.io/zone"
    refused = rack_init({**node_api, "NODE_NAME": "node-1", "SERVICE_ACCOUNT_DIR": str(tmp_path / "nothing")},
                        tmp_path / "x.properties")
    assert refused.returncode == 1 and "token" in refused.stderr and "Traceback" not in refused.stderr


@pytest.fixture
def own_ab() -> Iterator[list[Broker]]:
    """Brokers of this test's own: the PAUSED and STOPPED states it writes to flow A->B's config topic outlive
    the process, and on the session's shared brokers they held a later test's A->B connectors paused."""
    with own_brokers("helmA", "helmB") as brokers:
        yield brokers


def test_rendered_connector_states_tasks_and_rack_take_effect(own_ab: list[Broker], tmp_path: Path,
                                                              node_api: dict[str, str]) -> None:
    """The ci value set's mm2.properties run with the Deployment's arguments: the source connector runs 3 tasks
    (tasksMax 3 on a 4-partition topic), the checkpoint connector is PAUSED and the heartbeat connector
    STOPPED (their states), and the source consumers carry the node's zone as client.rack."""
    broker, broker_b = own_ab
    create_topic(broker.bootstrap, f"orders{uuid.uuid4().hex[:6]}", 4)
    port = free_port()
    docs = render_values(chart_values(VALUES, broker_b, broker, port))
    container = by_kind(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    (name, text), = by_kind(docs, "ConfigMap")["data"].items()
    assert rack_init({**node_api, "NODE_NAME": "node-1"}, tmp_path / "rack.properties").returncode == 0
    path = tmp_path / name
    path.write_text(text.replace("/etc/replikafka/rack/", f"{tmp_path}/"))
    args = [str(path) if arg == f"/etc/replikafka/config/{name}" else arg for arg in container["args"]]
    process = Process([sys.executable, "-m", "replikafka", *args], tmp_path / "mm.log", port, {"POD_IP": "127.0.0.1"})
    base = f"http://127.0.0.1:{port}/connectors"
    try:
        def status(connector: str) -> dict[str, Any] | None:
            answer = httpx.get(f"{base}/{connector}/status", timeout=10)
            return answer.json() if answer.status_code == 200 else None

        source = wait_for(lambda: (lambda s: s if s and len(s["tasks"]) == 3 and all(
            t["state"] == "RUNNING" for t in s["tasks"]) else None)(status("MirrorSourceConnector")), 90,
            "MirrorSourceConnector's 3 tasks running")
        assert source["connector"]["state"] == "RUNNING"
        wait_for(lambda: (status("MirrorCheckpointConnector") or {}).get("connector", {}).get("state") == "PAUSED",
                 60, "MirrorCheckpointConnector PAUSED")
        wait_for(lambda: (status("MirrorHeartbeatConnector") or {}).get("connector", {}).get("state") == "STOPPED",
                 60, "MirrorHeartbeatConnector STOPPED")
        config = httpx.get(f"{base}/MirrorSourceConnector/config", timeout=10).json()
        assert config["tasks.max"] == "3" and config["topics.exclude"] == "orders-test.*"
        assert config["auto.restart.max.restarts"] == "5"
        checkpoint = httpx.get(f"{base}/MirrorCheckpointConnector/config", timeout=10).json()
        assert checkpoint["tasks.max"] == "1" and checkpoint["auto.restart.enabled"] == "false"
        assert checkpoint["groups.exclude"] == "console-consumer-.*"
        resolved = {k: v.replace("${file:" + f"{tmp_path}/rack.properties:client.rack" + "}", ZONE)
                    for k, v in config.items()}
        assert MirrorConfig(SOURCE, resolved).client("source", "consumer")["client.rack"] == ZONE
    finally:
        process.stop()
