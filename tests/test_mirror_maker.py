"""Dedicated mode: an Apache-style mm2.properties runs unchanged; REST per flow; bad files."""

from __future__ import annotations

import signal
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx

from pyconnect.environment import env_value
from tests.harness.brokers import Broker, free_port
from tests.harness.kafka_io import create_topic, produce_many, read_to_end, topic_names
from tests.harness.mirror import mm2_file
from tests.harness.workers import REPO, wait_for


def test_apache_style_file_runs_unchanged(tmp_path: Path, broker: Broker, broker_b: Broker) -> None:
    prefix = f"topic{uuid.uuid4().hex[:6]}"
    create_topic(broker.bootstrap, f"{prefix}1", 2)
    produce_many(broker.bootstrap, f"{prefix}1", 500, 2)
    port = free_port()
    path = mm2_file(tmp_path / "mm2.properties", broker, broker_b, port, prefix)
    log = open(tmp_path / "mm.log", "wb")  # noqa: SIM115 - owned by the child
    proc = subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO, stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: len(read_to_end(broker_b.bootstrap, f"A.{prefix}1")) == 500, 90, f"A.{prefix}1 on B")
        wait_for(lambda: {"heartbeats", "A.checkpoints.internal", "mm2-offsets.A.internal",
                          "mm2-status.A.internal", "mm2-configs.A.internal"} <= topic_names(broker_b.bootstrap), 30,
                 "MM2's internal topics on B")
        assert "mm2-offset-syncs.B.internal" in topic_names(broker.bootstrap)
        base = f"http://127.0.0.1:{port}/A/B"
        names = httpx.get(f"{base}/connectors", timeout=10).json()
        assert sorted(names) == ["MirrorCheckpointConnector", "MirrorHeartbeatConnector", "MirrorSourceConnector"]

        def source_state() -> str:
            r = httpx.get(f"{base}/connectors/MirrorSourceConnector/status", timeout=10)
            st: dict[str, Any] = r.json() if r.status_code == 200 else {}
            tasks = ",".join(t["state"] for t in st.get("tasks", []))
            return f"{st.get('connector', {}).get('state', '')}/{tasks}"

        wait_for(lambda: source_state().startswith("RUNNING/RUNNING"), 30, "source running")
        assert httpx.put(f"{base}/connectors/MirrorSourceConnector/pause", timeout=10).status_code == 202
        wait_for(lambda: "RUNNING" not in source_state() and "PAUSED" in source_state(), 10, "paused")
        assert httpx.put(f"{base}/connectors/MirrorSourceConnector/resume", timeout=10).status_code == 202
        wait_for(lambda: source_state().startswith("RUNNING/RUNNING"), 10, "resumed")
        assert httpx.get(f"http://127.0.0.1:{port}/B/A/connectors", timeout=10).status_code == 200, "B->A herder"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0


def test_bad_files_exit_with_one_line(tmp_path: Path, broker: Broker, broker_b: Broker) -> None:
    good = mm2_file(tmp_path / "good.properties", broker, broker_b, free_port(), "x").read_text()
    for name, text, expected in (
            ("alias", good + "A->C.enabled = true\n", "A->C.enabled: unknown cluster alias 'C'"),
            ("regex", good + "A->B.groups = (\n", "A->B.groups: invalid regular expression"),
            ("bootstrap", good.replace("clusters = A, B", "clusters = A, B, C"), "C.bootstrap.servers"),
            ("malformed", good + "justaword\n", "justaword: malformed line")):
        path = tmp_path / f"{name}.properties"
        path.write_text(text)
        proc = subprocess.run([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO,
                              capture_output=True, text=True, timeout=60)
        errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
        assert proc.returncode != 0 and len(errors) == 1, (name, proc.stderr[-1000:])
        assert errors[0].startswith(f"error: {path}:") and expected in errors[0], errors[0]


def test_sasl_cluster_with_password_from_file(tmp_path: Path) -> None:
    """Needs a SASL/SCRAM cluster: REPLIKAFKA_TEST_SASL_BOOTSTRAP, _USER, _PASSWORD (e.g. Kafka in Docker)."""
    import pytest

    bootstrap = env_value("TEST_SASL_BOOTSTRAP")
    if not bootstrap:
        pytest.skip("no SASL cluster: Tansu rejects every SCRAM/PLAIN login; "
                    "set REPLIKAFKA_TEST_SASL_BOOTSTRAP/_USER/_PASSWORD to run against Kafka")
    user, password = env_value("TEST_SASL_USER"), env_value("TEST_SASL_PASSWORD")
    assert user and password, "REPLIKAFKA_TEST_SASL_BOOTSTRAP needs REPLIKAFKA_TEST_SASL_USER and _PASSWORD too"
    secrets = tmp_path / "secrets.properties"
    secrets.write_text(f"password={password}\n")
    sasl = ("security.protocol = SASL_PLAINTEXT\nsasl.mechanism = SCRAM-SHA-512\n"
            "sasl.jaas.config = org.apache.kafka.common.security.scram.ScramLoginModule required "
            f'username="{user}" password="${{file:{secrets}:password}}";\n')
    port = free_port()
    topic = f"sasl{uuid.uuid4().hex[:6]}"
    path = tmp_path / "mm2.properties"
    path.write_text(f"clusters = A, B\nA.bootstrap.servers = {bootstrap}\nB.bootstrap.servers = {bootstrap}\n"
                    + "".join(f"{alias}.{line}\n" for alias in "AB" for line in sasl.splitlines())
                    + f"A->B.enabled = true\nA->B.topics = {topic}\nlisteners=http://127.0.0.1:{port}\n")
    log = open(tmp_path / "mm.log", "wb")  # noqa: SIM115 - owned by the child
    proc = subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO, stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: httpx.get(f"http://127.0.0.1:{port}/A/B/connectors", timeout=5).status_code == 200, 60,
                 "authenticated herder up")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    assert password not in (tmp_path / "mm.log").read_text()
