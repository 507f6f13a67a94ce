"""Bad input gets one clear error and nothing else breaks."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
from confluent_kafka import Producer

from tests.harness.brokers import Broker, free_port
from tests.harness.connectors import all_running, sequence_connector, status
from tests.harness.workers import REPO, Cluster, wait_for, worker_properties, write_properties


def run_worker(path: Path) -> tuple[int, str, float]:
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "replikafka", "distributed", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stderr, time.monotonic() - started


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error:")]


def test_malformed_line_names_file_and_line(tmp_path: Path, broker: Broker) -> None:
    props = worker_properties(broker, "bad", free_port())
    text = "".join(f"{k}={v}\n" for k, v in props.items()) + "group.idx\n"
    path = tmp_path / "worker.properties"
    path.write_text(text)
    code, stderr, took = run_worker(path)
    assert code != 0 and took < 30
    (line,) = error_lines(stderr)
    assert line.startswith(f"error: {path}:{len(props) + 1}: group.idx: malformed line"), line


def test_missing_required_key_names_key(tmp_path: Path, broker: Broker) -> None:
    props = worker_properties(broker, "bad", free_port())
    del props["group.id"]
    path = write_properties(tmp_path / "worker.properties", props)
    code, stderr, took = run_worker(path)
    assert code != 0 and took < 30
    (line,) = error_lines(stderr)
    assert "group.id" in line and str(path) in line and "Missing required configuration" in line, line


def test_invalid_value_names_line_and_key(tmp_path: Path, broker: Broker) -> None:
    props = worker_properties(broker, "bad", free_port(), {"offset.flush.interval.ms": "soon"})
    path = write_properties(tmp_path / "worker.properties", props)
    code, stderr, _ = run_worker(path)
    line_no = list(props).index("offset.flush.interval.ms") + 1
    (line,) = error_lines(stderr)
    assert code != 0 and line.startswith(f"error: {path}:{line_no}: offset.flush.interval.ms: "), line


def test_unreachable_bootstrap_exits_within_30s(tmp_path: Path, broker: Broker) -> None:
    props = worker_properties(broker, "bad", free_port(), {"bootstrap.servers": f"127.0.0.1:{free_port()}"})
    path = write_properties(tmp_path / "worker.properties", props)
    code, stderr, took = run_worker(path)
    assert code != 0 and took < 30, (code, took)
    (line,) = error_lines(stderr)
    assert "bootstrap.servers" in line and "cannot reach Kafka" in line, line


def test_unknown_connector_class_fails_only_that_connector(cluster_factory: Any, unique: str) -> None:
    cluster: Cluster = cluster_factory()
    (w,) = cluster.start(1)
    assert w.request("POST", "/connectors", sequence_connector("good", f"good-{unique}", 1, 10, 100)).status_code == 201
    # Through REST the class is checked up front, as Connect does.
    r = w.request("POST", "/connectors", {"name": "nope", "config": {"connector.class": "com.example.Missing"}})
    assert r.status_code == 400 and r.json()["error_code"] == 400 and "com.example.Missing" in r.json()["message"]
    # A config record naming a class this worker lacks (written by another tool) fails that connector only.
    producer = Producer({"bootstrap.servers": cluster.broker.bootstrap})
    producer.produce(f"{cluster.group}-configs", orjson.dumps({"properties": {
        "name": "ghost", "connector.class": "com.example.MissingConnector", "tasks.max": "1"}}),
        key=b"connector-ghost", partition=0)
    assert producer.flush(10) == 0
    st = wait_for(lambda: (lambda s: s if s.get("connector", {}).get("state") == "FAILED" else None)(
        status(w, "ghost")), 30, "ghost FAILED")
    assert "Failed to find any class that implements Connector" in st["connector"]["trace"]
    assert "com.example.MissingConnector" in st["connector"]["trace"]
    wait_for(lambda: all_running(w, "good", 1), 30, "the good connector unaffected")
