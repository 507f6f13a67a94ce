"""Bad input gets one clear error and nothing else breaks."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
from confluent_kafka import Producer

from tests.harness.brokers import Broker, free_port
from tests.harness.connectors import all_running, sequence_connector, status
from tests.harness.kafka_io import topic_names
from tests.harness.mirror import cluster_lines, mm2_settings
from tests.harness.standalone import run_standalone, standalone_properties
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


@pytest.mark.parametrize(("key", "value", "reasons"), [
    ("plugin.path", "/usr/share/java", ("not supported: plugins are Python packages, not JARs",
                                        "'pyconnect.plugins' entry-point group", "pip install")),
    ("scheduled.rebalance.max.delay.ms", "300000", ("not implemented: the tasks of a worker that leaves move",)),
    ("connect.protocol", "eager", ("not implemented: workers coordinate through the membership topic",)),
    ("access.control.allow.origin", "*", ("the REST API sends no CORS headers",)),
])
def test_unimplemented_worker_settings_stop_the_worker(tmp_path: Path, broker: Broker, key: str, value: str,
                                                       reasons: tuple[str, ...]) -> None:
    """Worker keys of Connect that this worker does not implement (Connect loads JARs from plugin.path) are
    refused unless their value needs nothing (pyconnect/config/unimplemented.py), not accepted and ignored."""
    props = worker_properties(broker, "bad", free_port(), {key: value})
    path = write_properties(tmp_path / "worker.properties", props)
    code, stderr, took = run_worker(path)
    (line,) = error_lines(stderr)
    assert code == 2 and took < 30, (code, took)
    assert line.startswith(f"error: {path}:{list(props).index(key) + 1}: {key}: '{value}': "), line
    assert all(reason in line for reason in reasons), line


def mm2_text(a: Broker, b: Broker, src: str, dst: str) -> str:
    return (cluster_lines({src: a, dst: b}) + f"{src}->{dst}.enabled = true\n{src}->{dst}.topics = x.*\n"
            f"{dst}->{src}.enabled = false\nemit.heartbeats.enabled = false\n"
            f"listeners = http://127.0.0.1:{free_port()}\n" + mm2_settings({src: a, dst: b}))


@pytest.mark.parametrize(("line", "key", "message"), [
    ("tasks.max = many", "tasks.max", "Invalid value many for configuration tasks.max: Not a number of type INT"),
    ("{flow}.tasks.max = -1", "{flow}.tasks.max", "Invalid value -1 for configuration tasks.max: Value must be at "
                                                  "least 1"),
    ("replication.factor = lots", "replication.factor", "Invalid value lots for configuration replication.factor"),
    ("{flow}.sync.topic.configs.enabled = maybe", "{flow}.sync.topic.configs.enabled",
     "Invalid value maybe for configuration sync.topic.configs.enabled: Expected value to be either true or false"),
    ("{dst}.offset.flush.interval.ms = soon", "offset.flush.interval.ms",
     "Invalid value soon for configuration offset.flush.interval.ms"),
    ("{flow}.producer.override.sasl.jaas.config = ${{vault:kv/mm2:jaas}}", "{flow}.producer.override.sasl.jaas.config",
     "config provider 'vault', which is not configured"),
    ("{flow}.connector.class = io.debezium.connector.mysql.MySqlConnector", "{flow}.connector.class",
     "Java connectors (JARs, plugin.path) do not load in replikafka"),
    ("use.incremental.alter.configs = never", "use.incremental.alter.configs",
     "Invalid value never for configuration use.incremental.alter.configs: not implemented: topic configs are "
     "synced with IncrementalAlterConfigs only"),
])
def test_mm2_invalid_value_at_any_scope_stops_at_start(tmp_path: Path, broker: Broker, broker_b: Broker, line: str,
                                                       key: str, message: str) -> None:
    """Kafka's MirrorMakerConfig builds each flow's connector configs from top-level, `<alias>.` and
    `<source>-><target>.` keys, and MirrorMaker's connectors validate them when they start (a FAILED
    connector). Here every flow's configs are validated when the file is read: exit 2 with
    `file:line: key: message`, before any herder starts (its config topic never appears on the target)."""
    uid = uuid.uuid4().hex[:6]
    src, dst = f"S{uid}", f"T{uid}"
    values = {"flow": f"{src}->{dst}", "dst": dst}
    path = tmp_path / "mm2.properties"
    text = mm2_text(broker, broker_b, src, dst)
    path.write_text(text + line.format(**values) + "\n")
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    took = time.monotonic() - started
    (error,) = error_lines(proc.stderr)
    assert proc.returncode == 2 and took < 10, (proc.returncode, took, proc.stderr[-2000:])
    assert error.startswith(f"error: {path}:{len(text.splitlines()) + 1}: {key.format(**values)}: "), error
    assert message in error and "Traceback" not in proc.stderr, error
    assert f"mm2-configs.{src}.internal" not in topic_names(broker_b.bootstrap), "no herder started"


def test_mm2_typo_warns_with_file_line_and_suggestion(tmp_path: Path, broker: Broker, broker_b: Broker) -> None:
    """A typo'd flow key is warned about once, naming file, line and the suggestion (`--check` reads the
    file and the flows' state, starts nothing and exits 0)."""
    uid = uuid.uuid4().hex[:6]
    src, dst = f"S{uid}", f"T{uid}"
    path = tmp_path / "mm2.properties"
    text = mm2_text(broker, broker_b, src, dst)
    path.write_text(text + f"{src}->{dst}.topcis = x.*\n")
    proc = subprocess.run([sys.executable, "-m", "replikafka", "mirror-maker", "--check", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    warnings = [x for x in proc.stderr.splitlines() if "unknown key" in x]
    assert len(warnings) == 1, proc.stderr[-2000:]
    assert f"{path}:{len(text.splitlines()) + 1}: {src}->{dst}.topcis: unknown key; did you mean topics?" \
        in warnings[0], warnings


def test_standalone_java_connector_file_says_jars_do_not_load(tmp_path: Path, broker: Broker) -> None:
    """A standalone connector file naming a Java-only class: exit 2, Connect's message plus where Python
    plugins come from."""
    worker_file = write_properties(tmp_path / "worker.properties", standalone_properties(broker, tmp_path / "o.dat"))
    connector_file = write_properties(tmp_path / "jdbc.properties", {
        "name": "jdbc", "connector.class": "io.confluent.connect.jdbc.JdbcSourceConnector", "tasks.max": "1"})
    result = run_standalone([str(worker_file), str(connector_file)])
    (line,) = error_lines(result.stderr)
    assert result.returncode == 2 and line.startswith(f"error: {connector_file}: Failed to find any class"), line
    assert "io.confluent.connect.jdbc.JdbcSourceConnector is not a Python class here: Java connectors (JARs, " \
           "plugin.path) do not load in replikafka" in line and "'pyconnect.plugins' entry-point group" in line, line
