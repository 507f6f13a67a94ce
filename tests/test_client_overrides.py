"""Connector client override policies through the REST API of real workers on real brokers.

Followed: Kafka's AbstractHerder.validateClientOverrides (errors on the `producer.override.*` keys of the
validate answer; a connector write answers 400 "Connector configuration is invalid ..."), the policies of
connect/runtime/.../connector/policy/ (None, All, Allowlist of KIP-1188) and Worker.connectorClientConfigOverrides
(the check again when a task starts). Settings that load code or run commands (pyconnect.kafka.unsafe_settings)
are refused under every policy unless the worker's connector.client.config.override.unsafe.allowlist names them.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.harness.brokers import Broker, free_port
from tests.harness.connectors import all_running, sequence_connector, status
from tests.harness.kafka_io import create_topic, produce_many, read_to_end, topic_names
from tests.harness.membership import leader_of
from tests.harness.mirror import cluster_lines, mm2_settings
from tests.harness.workers import REPO, Cluster, WorkerProcess, wait_for

POLICY = "connector.client.config.override.policy"
ALLOWLIST = "connector.client.config.override.allowlist"
UNSAFE = "connector.client.config.override.unsafe.allowlist"
PROBE = "/nonexistent/libreplikafka-probe"  # no such library: loading it fails, naming the path
INVALID = "Connector configuration is invalid and contains the following {} error(s):"
# The Allowlist worker allows plugin.library.paths too: the policy does not make an unsafe setting safe.
WORKERS = {"None": {POLICY: "None"}, "All": {POLICY: "All"},
           "Allowlist": {POLICY: "Allowlist", ALLOWLIST: "bootstrap.servers,plugin.library.paths"},
           "unsafe": {UNSAFE: "plugin.library.paths"}}


def refused(policy: str, key: str) -> str:
    return f"The '{policy}' policy does not allow '{key}' to be overridden in the connector configuration."


@pytest.fixture(scope="module")
def workers(broker: Broker, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, WorkerProcess]]:
    """One single-worker cluster per policy (started together), each its own leader."""
    directory, tag = tmp_path_factory.mktemp("overrides"), uuid.uuid4().hex[:6]
    clusters = {name: Cluster(broker, directory, f"ov-{name.lower()}-{tag}", extra) for name, extra in WORKERS.items()}
    started = {name: c.add_worker() for name, c in clusters.items()}
    try:
        for name, worker in started.items():
            worker.wait_ready()
            wait_for(lambda c=clusters[name]: leader_of(broker.bootstrap, c.group), 30, f"the {name} worker leads")
        yield started
    finally:
        for c in clusters.values():
            c.close()


def connector(overrides: dict[str, str], count: int = 20) -> tuple[str, str, dict[str, Any]]:
    """(name, topic, POST body) of a 1-task sequence connector with `overrides` in its config."""
    name = f"ov-{uuid.uuid4().hex[:6]}"
    body = sequence_connector(name, f"{name}-out", 1, count, 1000)
    body["config"].update(overrides)
    return name, f"{name}-out", body


def assert_not_created(worker: WorkerProcess, broker: Broker, name: str, topic: str) -> None:
    assert name not in worker.request("GET", "/connectors").json()
    assert worker.request("GET", f"/connectors/{name}").status_code == 404
    assert topic not in topic_names(broker.bootstrap)


def test_plugin_library_paths_is_refused_under_every_policy(workers: dict[str, WorkerProcess],
                                                            broker: Broker) -> None:
    key = "producer.override.plugin.library.paths"
    for policy in ("None", "All", "Allowlist"):
        name, topic, body = connector({key: PROBE})
        started = time.monotonic()
        r = workers[policy].request("POST", "/connectors", body)
        took = time.monotonic() - started
        assert r.status_code == 400 and set(r.json()) == {"error_code", "message"}, (policy, r.text)
        message = r.json()["message"]
        assert r.json()["error_code"] == 400 and took < 5, (policy, took)
        unsafe = (f"'{key}' is refused: plugin.library.paths loads the native libraries it names into the worker "
                  f"process. Connector configs may set it only if the worker's {UNSAFE} names plugin.library.paths.")
        # None refuses the override as such too (Connect's message), All and Allowlist (which lists it) do not.
        expected = [refused("None", "plugin.library.paths"), unsafe] if policy == "None" else [unsafe]
        assert message.splitlines()[:len(expected) + 1] == [INVALID.format(len(expected)), *expected], message
        assert_not_created(workers[policy], broker, name, topic)


def test_allowlist_refuses_a_key_outside_its_list(workers: dict[str, WorkerProcess], broker: Broker) -> None:
    name, topic, body = connector({"producer.override.linger.ms": "5"})
    r = workers["Allowlist"].request("POST", "/connectors", body)
    assert r.status_code == 400, r.text
    assert r.json()["message"].splitlines()[:2] == [INVALID.format(1), refused("Allowlist", "linger.ms")]
    assert_not_created(workers["Allowlist"], broker, name, topic)


def test_allowlist_applies_a_key_in_its_list(workers: dict[str, WorkerProcess], broker: Broker,
                                            broker_b: Broker) -> None:
    """`producer.override.bootstrap.servers` (in the list) sends the task's records to broker B."""
    name, topic, body = connector({"producer.override.bootstrap.servers": broker_b.bootstrap})
    worker = workers["Allowlist"]
    assert worker.request("POST", "/connectors", body).status_code == 201
    try:
        wait_for(lambda: len(read_to_end(broker_b.bootstrap, topic)) == 20, 30, "20 records on broker B")
        assert topic not in topic_names(broker.bootstrap), "the worker's own cluster got none"
    finally:
        worker.request("DELETE", f"/connectors/{name}")


def test_none_refuses_any_override(workers: dict[str, WorkerProcess], broker: Broker) -> None:
    name, topic, body = connector({"producer.override.linger.ms": "5", "producer.override.client.id": "mine"})
    r = workers["None"].request("POST", "/connectors", body)
    assert r.status_code == 400, r.text
    assert r.json()["message"].splitlines()[:3] == [INVALID.format(2), refused("None", "linger.ms"),
                                                    refused("None", "client.id")]
    assert_not_created(workers["None"], broker, name, topic)
    # A source connector's consumer overrides are not its clients' (AbstractHerder.connectorUsesConsumer).
    name, _, body = connector({"consumer.override.fetch.min.bytes": "1"})
    assert workers["None"].request("POST", "/connectors", body).status_code == 201
    workers["None"].request("DELETE", f"/connectors/{name}")


def test_validate_shows_the_errors_on_the_keys(workers: dict[str, WorkerProcess]) -> None:
    name, _, body = connector({"producer.override.linger.ms": "5", "producer.override.bootstrap.servers": "b:9092",
                               "producer.override.plugin.library.paths": PROBE, "producer.override.sasl.jaas.config":
                               'x required username="u" password="secret";'})
    body["config"]["name"] = name
    r = workers["Allowlist"].request("PUT", "/connector-plugins/SequenceSourceConnector/config/validate",
                                     body["config"])
    assert r.status_code == 200, r.text
    answer = r.json()
    by_key = {c["value"]["name"]: c for c in answer["configs"]}
    assert answer["error_count"] == 3, [(k, c["value"]["errors"]) for k, c in by_key.items() if c["value"]["errors"]]
    assert answer["name"] == "SequenceSourceConnector" and workers["Allowlist"].request(
        "GET", f"/connectors/{name}").status_code == 404, "validation creates nothing"
    assert by_key["producer.override.linger.ms"]["value"]["errors"] == [refused("Allowlist", "linger.ms")]
    assert by_key["producer.override.bootstrap.servers"]["value"]["errors"] == []
    assert by_key["producer.override.bootstrap.servers"]["value"]["value"] == "b:9092"
    (error,) = by_key["producer.override.plugin.library.paths"]["value"]["errors"]
    assert "plugin.library.paths loads the native libraries" in error
    jaas = by_key["producer.override.sasl.jaas.config"]
    assert jaas["value"]["errors"] == [refused("Allowlist", "sasl.jaas.config")]
    assert jaas["value"]["value"] == "[hidden]" and jaas["definition"]["name"] == "producer.override.sasl.jaas.config"


def test_an_unsafe_setting_the_worker_names_reaches_the_client(workers: dict[str, WorkerProcess]) -> None:
    """With the setting in the worker's unsafe allowlist the connector is created and librdkafka itself
    tries to load the library: the task fails with librdkafka's dlopen error naming it."""
    name, _, body = connector({"producer.override.plugin.library.paths": PROBE})
    worker = workers["unsafe"]
    assert worker.request("POST", "/connectors", body).status_code == 201
    try:
        def failed_task() -> str:
            tasks = status(worker, name).get("tasks", [])
            return str(tasks[0].get("trace")) if tasks and tasks[0]["state"] == "FAILED" else ""
        trace = wait_for(failed_task, 30, "the task FAILED")
        assert "dlopen() failed" in trace and PROBE in trace, trace
    finally:
        worker.request("DELETE", f"/connectors/{name}")


def test_a_task_refuses_overrides_its_worker_does_not_allow(broker: Broker, tmp_path: Path) -> None:
    """Worker.connectorClientConfigOverrides: a config written under All (here by a worker of the same
    group) does not give its task the override on a worker whose policy is None: the task FAILS naming it."""
    group = f"ov-restart-{uuid.uuid4().hex[:6]}"
    name, topic, body = connector({"producer.override.linger.ms": "5"}, count=0)
    lenient = Cluster(broker, tmp_path, group, {POLICY: "All"})
    strict = Cluster(broker, tmp_path / "strict", group, {POLICY: "None"})
    (tmp_path / "strict").mkdir()
    try:
        (first,) = lenient.start(1)
        wait_for(lambda: leader_of(broker.bootstrap, group), 30, "a leader")
        assert first.request("POST", "/connectors", body).status_code == 201
        wait_for(lambda: all_running(first, name, 1), 30, "running under All")
        lenient.close()
        (second,) = strict.start(1)

        def failed_task() -> str:
            tasks = status(second, name).get("tasks", [])
            return str(tasks[0].get("trace")) if tasks and tasks[0]["state"] == "FAILED" else ""
        trace = wait_for(failed_task, 45, "the task FAILED on the None worker")
        assert "Client Config Overrides not allowed" in trace and refused("None", "linger.ms") in trace, trace
    finally:
        lenient.close()
        strict.close()


def test_mirror_maker_connector_configs_cannot_carry_an_unsafe_setting(tmp_path: Path, broker: Broker,
                                                                       broker_b: Broker) -> None:
    """A dedicated MirrorMaker writes its connector configs without REST validation: a flow's
    `producer.plugin.library.paths` (MirrorConnectorConfig's producer layer) fails the connector, which builds
    its clients from that config, with the refusal instead of reaching librdkafka (whose own error would be a
    dlopen failure), and nothing is copied."""
    topic, port = f"ovmm{uuid.uuid4().hex[:6]}", free_port()
    create_topic(broker.bootstrap, topic, 1)
    produce_many(broker.bootstrap, topic, 50, 1)
    path = tmp_path / "mm2.properties"
    path.write_text(cluster_lines({"A": broker, "B": broker_b}) + f"A->B.enabled=true\nA->B.topics={topic}\n"
                    f"B->A.enabled=false\nlisteners=http://127.0.0.1:{port}\n"
                    f"A->B.producer.plugin.library.paths={PROBE}\n" + mm2_settings({"A": broker, "B": broker_b}))
    log = open(tmp_path / "mm.log", "wb")  # noqa: SIM115 - owned by the child
    proc = subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO, stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        def failed_trace() -> str:
            r = httpx.get(f"http://127.0.0.1:{port}/A/B/connectors/MirrorSourceConnector/status", timeout=5)
            state = r.json().get("connector", {}) if r.status_code == 200 else {}
            return str(state.get("trace")) if state.get("state") == "FAILED" else ""
        trace = wait_for(failed_trace, 60, "the MirrorSourceConnector FAILED")
        assert "'producer.plugin.library.paths' is refused" in trace and "dlopen" not in trace, trace
        assert f"A.{topic}" not in topic_names(broker_b.bootstrap) or not read_to_end(broker_b.bootstrap, f"A.{topic}")
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
