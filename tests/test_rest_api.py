"""Connect's REST API over real HTTP against a real 3-worker cluster (compat-spec §A)."""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness.brokers import Broker
from tests.harness.connectors import sequence_connector, status
from tests.harness.kafka_io import read_to_end
from tests.harness.membership import leader_of
from tests.harness.plugins import SecretSourceConnector
from tests.harness.workers import Cluster, WorkerProcess, wait_for

RUNBOOKS = Path(__file__).resolve().parents[1] / "docs" / "runbooks"


@pytest.fixture(scope="module")
def rest_cluster(broker: Broker, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    cluster = Cluster(broker, tmp_path_factory.mktemp("rest"), f"rest-{uuid.uuid4().hex[:6]}")
    cluster.start(3)
    wait_for(lambda: leader_of(broker.bootstrap, cluster.group), 30, "a leader")
    yield cluster
    cluster.close()


def roles(cluster: Cluster) -> tuple[WorkerProcess, list[WorkerProcess]]:
    leader_id = leader_of(cluster.broker.bootstrap, cluster.group)
    leader = next(w for w in cluster.workers if w.worker_id == leader_id)
    return leader, [w for w in cluster.workers if w is not leader]


def all_in(w: WorkerProcess, name: str, wanted: str, tasks: int | None = None) -> bool:
    st = status(w, name)
    return bool(st) and st["connector"]["state"] == wanted and (tasks is None or len(st["tasks"]) == tasks) and all(
        t["state"] == wanted for t in st["tasks"])


@pytest.fixture
def running(rest_cluster: Cluster) -> Iterator[tuple[str, str]]:
    """A 2-task sequence connector created through a follower and RUNNING: (name, topic); deleted afterwards."""
    _, (f1, f2) = roles(rest_cluster)
    name = f"ep-{uuid.uuid4().hex[:6]}"
    topic = f"{name}-out"
    assert f1.request("POST", "/connectors", sequence_connector(name, topic, 2, 0, 20)).status_code == 201
    wait_for(lambda: all_in(f2, name, "RUNNING", 2), 30, "running")
    yield name, topic
    f1.request("DELETE", f"/connectors/{name}")


def stopped(w: WorkerProcess, name: str) -> None:
    """Stop the connector through `w` and wait until it and its tasks are STOPPED (tasks gone)."""
    assert w.request("PUT", f"/connectors/{name}/stop").status_code == 204
    wait_for(lambda: all_in(w, name, "STOPPED", 0), 20, "stopped")


def test_root_and_health_via_a_follower(rest_cluster: Cluster) -> None:
    _, (f1, _f2) = roles(rest_cluster)
    root = f1.request("GET", "/").json()
    assert set(root) == {"version", "commit", "kafka_cluster_id"}
    assert f1.request("GET", "/health").json()["status"] == "healthy"


def test_create_via_a_follower_succeeds_through_the_leader(rest_cluster: Cluster) -> None:
    _, (f1, f2) = roles(rest_cluster)
    name = f"ep-{uuid.uuid4().hex[:6]}"
    r = f1.request("POST", "/connectors", sequence_connector(name, f"{name}-out", 2, 0, 20))
    assert r.status_code == 201 and r.headers["location"] == f"{f1.url}/connectors/{name}", "absolute, as asked"
    assert set(r.json()) == {"name", "config", "tasks", "type"} and r.json()["type"] == "source"
    # Another follower lists it at once, with or without a trailing slash.
    assert name in f2.request("GET", "/connectors").json()
    assert f2.request("GET", "/connectors/").json() == f2.request("GET", "/connectors").json(), "trailing slash"
    assert f2.request("DELETE", f"/connectors/{name}").status_code == 204


def test_follower_told_not_to_forward_refuses_writes(rest_cluster: Cluster) -> None:
    _, (_f1, f2) = roles(rest_cluster)
    name = f"ep-{uuid.uuid4().hex[:6]}"
    # It did not serve the write itself, and may not pass it on.
    r = f2.request("POST", "/connectors?forward=false", sequence_connector(name + "x", f"{name}-out", 1, 0, 1))
    assert r.status_code == 409 and r.json()["error_code"] == 409


def test_expanded_listing_has_status_and_info(rest_cluster: Cluster, running: tuple[str, str]) -> None:
    _, (_f1, f2) = roles(rest_cluster)
    name, _topic = running
    expanded = f2.request("GET", "/connectors?expand=status&expand=info").json()[name]
    assert set(expanded) == {"status", "info"} and expanded["info"]["tasks"] == [
        {"connector": name, "task": 0}, {"connector": name, "task": 1}]


def test_connector_and_task_status_shapes(rest_cluster: Cluster, running: tuple[str, str]) -> None:
    _, (f1, _f2) = roles(rest_cluster)
    name, _topic = running
    st = f1.request("GET", f"/connectors/{name}/status").json()
    assert set(st) == {"name", "connector", "tasks", "type"} and [t["id"] for t in st["tasks"]] == [0, 1]
    assert set(st["tasks"][0]) == {"id", "state", "worker_id", "version"}  # KIP-891 (Kafka 4.1) adds version
    assert f1.request("GET", f"/connectors/{name}/tasks/1/status").json()["id"] == 1


def test_connector_info_config_and_task_configs(rest_cluster: Cluster, running: tuple[str, str]) -> None:
    _, (f1, _f2) = roles(rest_cluster)
    name, topic = running
    assert f1.request("GET", f"/connectors/{name}").json()["name"] == name
    assert f1.request("GET", f"/connectors/{name}/config").json()["topic"] == topic
    tasks = f1.request("GET", f"/connectors/{name}/tasks").json()
    assert tasks[0]["id"] == {"connector": name, "task": 0} and tasks[0]["config"]["task.index"] == "0"
    assert set(f1.request("GET", f"/connectors/{name}/tasks-config").json()) == {f"{name}-0", f"{name}-1"}


def test_active_topics_are_tracked(rest_cluster: Cluster, running: tuple[str, str]) -> None:
    _, (_f1, f2) = roles(rest_cluster)
    name, topic = running
    wait_for(lambda: f2.request("GET", f"/connectors/{name}/topics").json() == {name: {"topics": [topic]}}, 20,
             "topic tracking")


def test_put_and_patch_config_via_followers(rest_cluster: Cluster, running: tuple[str, str]) -> None:
    _, (f1, f2) = roles(rest_cluster)
    name, _topic = running
    r = f1.request("PUT", f"/connectors/{name}/config", {**st_config(f1, name), "rate": "30"})
    assert r.status_code == 200 and r.json()["config"]["rate"] == "30"
    r = f2.request("PATCH", f"/connectors/{name}/config", {"rate": "40", "batch.size": None})
    assert r.status_code == 200 and r.json()["config"]["rate"] == "40" and "batch.size" not in r.json()["config"]


def test_put_config_of_a_new_name_creates_it(rest_cluster: Cluster) -> None:
    _, (_f1, f2) = roles(rest_cluster)
    name = f"ep-{uuid.uuid4().hex[:6]}"
    created = f2.request("PUT", f"/connectors/{name}-put/config", {
        "connector.class": "SequenceSource", "topic": f"{name}-out", "rate": "1"})
    assert created.status_code == 201 and created.headers["location"] == f"{f2.url}/connectors/{name}-put"
    assert f2.request("DELETE", f"/connectors/{name}-put").status_code == 204


def test_restarts_via_followers(rest_cluster: Cluster, running: tuple[str, str]) -> None:
    _, (f1, f2) = roles(rest_cluster)
    name, _topic = running
    assert f1.request("POST", f"/connectors/{name}/tasks/0/restart").status_code == 204
    assert f2.request("POST", f"/connectors/{name}/restart").status_code == 204
    r = f1.request("POST", f"/connectors/{name}/restart?includeTasks=true")
    assert r.status_code == 202 and r.json()["connector"]["state"] == "RESTARTING"
    assert {t["state"] for t in r.json()["tasks"]} == {"RESTARTING"}


def test_offsets_of_a_stopped_connector_altered_and_reset(rest_cluster: Cluster, running: tuple[str, str]) -> None:
    _, (f1, f2) = roles(rest_cluster)
    name, _topic = running
    # A fresh connector: let both tasks commit first, so that the stop has offsets of both to keep.
    wait_for(lambda: {o["partition"]["task"] for o in f2.request("GET", f"/connectors/{name}/offsets").json()[
        "offsets"]} == {0, 1}, 20, "offsets of both tasks")
    stopped(f1, name)
    offsets = f2.request("GET", f"/connectors/{name}/offsets").json()["offsets"]
    assert {o["partition"]["task"] for o in offsets} == {0, 1}
    r = f2.request("PATCH", f"/connectors/{name}/offsets", {"offsets": [
        {"partition": {"task": 0}, "offset": {"seq": 1000}}, {"partition": {"task": 1}, "offset": None}]})
    assert r.status_code == 200 and r.json() == {"message": "The offsets for this connector have been altered "
                                                            "successfully"}
    got = {o["partition"]["task"]: o["offset"] for o in f1.request("GET", f"/connectors/{name}/offsets").json()[
        "offsets"]}
    assert got == {0: {"seq": 1000}}
    r = f1.request("DELETE", f"/connectors/{name}/offsets")
    assert r.json() == {"message": "The offsets for this connector have been reset successfully"}
    assert f1.request("GET", f"/connectors/{name}/offsets").json() == {"offsets": []}


def test_active_topics_reset(rest_cluster: Cluster, running: tuple[str, str]) -> None:
    _, (f1, f2) = roles(rest_cluster)
    name, topic = running
    wait_for(lambda: f2.request("GET", f"/connectors/{name}/topics").json() == {name: {"topics": [topic]}}, 20,
             "topic tracking")
    stopped(f1, name)  # no new records: nothing tracks the topic again after the reset
    assert f1.request("PUT", f"/connectors/{name}/topics/reset").status_code == 202
    wait_for(lambda: f1.request("GET", f"/connectors/{name}/topics").json() == {name: {"topics": []}}, 10, "reset")


def test_resume_from_stopped(rest_cluster: Cluster, running: tuple[str, str]) -> None:
    _, (f1, f2) = roles(rest_cluster)
    name, _topic = running
    stopped(f1, name)
    assert f2.request("PUT", f"/connectors/{name}/resume").status_code == 202
    wait_for(lambda: all_in(f2, name, "RUNNING", 2), 30, "resumed from STOPPED")


def test_connector_plugins_listing_config_and_validation(rest_cluster: Cluster) -> None:
    _, (f1, _f2) = roles(rest_cluster)
    plugins = f1.request("GET", "/connector-plugins").json()
    assert {"class": "org.apache.kafka.connect.mirror.MirrorSourceConnector", "type": "source",
            "version": "0.1.0"} in plugins
    assert any(p["type"] == "converter" for p in f1.request("GET", "/connector-plugins?connectorsOnly=false").json())
    keys = f1.request("GET", "/connector-plugins/MirrorSource/config").json()
    assert {"name", "type", "required", "default_value", "importance", "documentation", "group", "order", "width",
            "display_name", "dependents"} == set(keys[0])
    v = f1.request("PUT", "/connector-plugins/SequenceSourceConnector/config/validate",
                   {"connector.class": "SequenceSourceConnector", "tasks.max": "0"}).json()
    assert v["error_count"] == 3 and {"name", "error_count", "groups", "configs"} == set(v)  # name, topic, tasks.max


def test_logger_level_on_one_worker(rest_cluster: Cluster) -> None:
    _, (f1, _f2) = roles(rest_cluster)
    assert "root" in f1.request("GET", "/admin/loggers").json()
    r = f1.request("PUT", "/admin/loggers/pyconnect.runtime", {"level": "DEBUG"})
    assert r.status_code == 200 and "pyconnect.runtime" in r.json()
    assert f1.request("GET", "/admin/loggers/pyconnect.runtime").json()["level"] == "DEBUG"


def test_cluster_scoped_logger_level_reaches_every_worker(rest_cluster: Cluster) -> None:
    leader, (f1, f2) = roles(rest_cluster)
    assert f2.request("PUT", "/admin/loggers/pyconnect.storage?scope=cluster", {"level": "WARN"}).status_code == 204
    for w in (leader, f1, f2):
        wait_for(lambda w=w: w.request("GET", "/admin/loggers/pyconnect.storage").json().get("level") == "WARN",
                 20, "cluster-wide level")


def test_delete_via_a_follower(rest_cluster: Cluster, running: tuple[str, str]) -> None:
    leader, (_f1, f2) = roles(rest_cluster)
    name, _topic = running
    assert f2.request("DELETE", f"/connectors/{name}").status_code == 204
    assert name not in leader.request("GET", "/connectors").json()


def st_config(w: WorkerProcess, name: str) -> dict[str, str]:
    config: dict[str, str] = w.request("GET", f"/connectors/{name}/config").json()
    return config


def test_errors_carry_connect_codes_and_bodies(rest_cluster: Cluster) -> None:
    _, (f1, f2) = roles(rest_cluster)
    name = f"err-{uuid.uuid4().hex[:6]}"

    def err(r: Any, code: int, fragment: str) -> None:
        assert r.status_code == code, r.text
        assert r.json()["error_code"] == code and fragment in r.json()["message"], r.json()

    err(f1.request("GET", "/connectors/nope"), 404, "Connector nope not found")
    err(f1.request("GET", "/connectors/nope/status"), 404, "No status found for connector nope")
    err(f1.request("GET", "/no/such/path"), 404, "Not Found")
    err(f1.request("DELETE", "/connector-plugins"), 405, "Method Not Allowed")
    assert f1.request("POST", "/connectors", sequence_connector(name, "t", 1, 1, 1)).status_code == 201
    err(f2.request("POST", "/connectors", sequence_connector(name, "t", 1, 1, 1)), 409, f"Connector {name} already")
    import httpx

    r = httpx.post(f1.url + "/connectors", content=b"{not json", headers={"Content-Type": "application/json"})
    err(r, 400, "Invalid request body")
    err(f1.request("POST", "/connectors", {"name": "bad", "config": {"connector.class": "SequenceSource",
                                                                     "tasks.max": "0"}}),
        400, "Connector configuration is invalid and contains the following 2 error(s)")
    err(f1.request("PUT", f"/connectors/{name}/config", {"name": "other", "connector.class": "SequenceSource",
                                                         "topic": "t"}),
        400, f"Connector name configuration (other) doesn't match connector name in the URL ({name})")
    err(f1.request("PATCH", f"/connectors/{name}/offsets", {"offsets": [{"partition": {"task": 0},
                                                                         "offset": {"seq": 1}}]}),
        400, "Connectors must be in the STOPPED state before their offsets can be modified")
    err(f1.request("PATCH", f"/connectors/{name}/offsets", {}), 400, "Partitions / offsets need to be provided")
    err(f1.request("PUT", "/admin/loggers/x", {"level": "LOUD"}), 404, "invalid log level 'LOUD'.")
    err(f1.request("PUT", "/admin/loggers/x", {}), 400, "Desired 'level' parameter was not specified")
    err(f1.request("POST", f"/connectors/{name}/tasks/7/restart"), 404, f"Unknown task: {name}-7")
    err(f1.request("PUT", "/connector-plugins/MirrorSource/config/validate", {"connector.class": "Sequence"}),
        400, "Included connector type Sequence does not match request type MirrorSource")
    assert f1.request("DELETE", f"/connectors/{name}").status_code == 204


def test_pause_resume_stop_and_restart_only_failed(rest_cluster: Cluster) -> None:
    leader, (f1, _f2) = roles(rest_cluster)
    bs = rest_cluster.broker.bootstrap
    name = f"life-{uuid.uuid4().hex[:6]}"
    topic = f"{name}-out"
    body = sequence_connector(name, topic, 3, 0, 50)
    body["config"].update({"fail.at": "100", "fail.task": "1"})
    assert f1.request("POST", "/connectors", body).status_code == 201
    st = wait_for(lambda: (lambda s: s if s and s["tasks"] and len(s["tasks"]) == 3 and s["tasks"][1]["state"]
                           == "FAILED" else None)(status(f1, name)), 60, "task 1 FAILED at its drill point")
    assert "configured to fail at 100" in st["tasks"][1]["trace"]
    assert [t["state"] for t in st["tasks"]] == ["RUNNING", "FAILED", "RUNNING"]

    def starts(task: int) -> int:
        return sum(w.log_path.read_text().count(f"[{name}-{task}] starting task") for w in rest_cluster.workers)

    before = {i: starts(i) for i in range(3)}
    r = f1.request("POST", f"/connectors/{name}/restart?includeTasks=true&onlyFailed=true")
    assert r.status_code == 202
    assert r.json()["connector"]["state"] == "RUNNING" and [t["state"] for t in r.json()["tasks"]] == [
        "RUNNING", "RESTARTING", "RUNNING"]
    wait_for(lambda: all_in(f1, name, "RUNNING", 3), 30, "failed task running again")
    assert {i: starts(i) for i in range(3)} == {0: before[0], 1: before[1] + 1, 2: before[2]}, "only task 1"

    assert f1.request("PUT", f"/connectors/{name}/pause").status_code == 202
    paused_at = time.monotonic()
    wait_for(lambda: all_in(f1, name, "PAUSED", 3), 5, "PAUSED within 5 s")
    print(f"\nPAUSED after {time.monotonic() - paused_at:.2f}s")
    count = len(read_to_end(bs, topic))
    # A fixed window is the behaviour under test: over 2 s of being paused, no record flows.
    wait_for(lambda: time.monotonic() - paused_at > 2.0, 5, "2 s paused")
    assert len(read_to_end(bs, topic)) == count, "no records flow while paused"
    assert f1.request("PUT", f"/connectors/{name}/resume").status_code == 202
    wait_for(lambda: all_in(f1, name, "RUNNING", 3), 10, "RUNNING again")
    wait_for(lambda: len(read_to_end(bs, topic)) > count + 20, 20, "records flow again")
    assert leader.request("PUT", f"/connectors/{name}/stop").status_code == 204
    wait_for(lambda: all_in(f1, name, "STOPPED", 0), 10, "STOPPED, tasks gone")
    assert f1.request("GET", f"/connectors/{name}/tasks").json() == []
    assert f1.request("DELETE", f"/connectors/{name}").status_code == 204


def test_runbooks_against_a_live_cluster(rest_cluster: Cluster, tmp_path: Path) -> None:
    _, (f1, _f2) = roles(rest_cluster)
    name = f"rb-{uuid.uuid4().hex[:6]}"
    spec = tmp_path / "connector.json"
    spec.write_text(json.dumps({"name": name, "config": {
        "connector.class": "SequenceSourceConnector", "topic": f"{name}-out", "tasks.max": "2", "rate": "20",
        "fail.at": "40", "fail.task": "0"}}))
    env = {"CONNECT_URL": f1.url, "PATH": "/usr/bin:/bin"}

    def run(*args: str) -> str:
        proc = subprocess.run(["bash", str(RUNBOOKS / args[0]), *args[1:]], capture_output=True, text=True,
                              env=env, timeout=120)
        assert proc.returncode == 0, f"{args}: {proc.stdout}\n{proc.stderr}"
        return proc.stdout

    assert f"deployed {name}" in run("deploy-connector.sh", str(spec))
    wait_for(lambda: status(f1, name)["tasks"][0]["state"] == "FAILED", 30, "drill failure")
    assert "restarting: [0]" in run("restart-failed.sh", name)
    wait_for(lambda: all_in(f1, name, "RUNNING", 2), 30, "recovered")
    assert f"{name} is PAUSED" in run("pause-resume.sh", "pause", name)
    assert f"{name} is RUNNING" in run("pause-resume.sh", "resume", name)
    assert "healthy" in run("check-health.sh")
    assert "is now DEBUG" in run("set-log-level.sh", "pyconnect.plugins", "DEBUG")
    out = run("stop-and-reset-offsets.sh", name)
    assert "reset successfully" in out and "offsets left: 0" in out
    assert f1.request("DELETE", f"/connectors/{name}").status_code == 204


def test_pause_resume_and_stop_of_an_unknown_connector(rest_cluster: Cluster) -> None:
    leader, (f1, _f2) = roles(rest_cluster)
    for w in (leader, f1):
        for verb in ("pause", "resume", "stop"):
            r = w.request("PUT", f"/connectors/nope/{verb}")
            assert (r.status_code, r.json()) == (404, {"error_code": 404, "message": "Unknown connector nope"}), verb


def test_validate_hides_passwords_shows_defaults_and_names_the_class_as_given(rest_cluster: Cluster) -> None:
    _, (f1, _f2) = roles(rest_cluster)
    r = f1.request("PUT", "/connector-plugins/SecretSourceConnector/config/validate", {
        "connector.class": SecretSourceConnector.PATH, "name": "v", "secret": "p4ss", "flag": "TRUE",
        "tasks.max": " 3 "})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["name"] == SecretSourceConnector.PATH and body["error_count"] == 0
    values = {c["value"]["name"]: c["value"]["value"] for c in body["configs"]}
    assert values == {"name": "v", "connector.class": SecretSourceConnector.PATH, "tasks.max": "3",
                      "tasks.max.enforce": "true", "key.converter": None, "value.converter": None,
                      "header.converter": None,
                      # KIP-891's version requirements, unset
                      "connector.plugin.version": None, "key.converter.plugin.version": None,
                      "value.converter.plugin.version": None, "header.converter.plugin.version": None,
                      "secret": "[hidden]", "fallback.secret": "[hidden]", "level": "info", "ratio": "1.0E-4",
                      "hosts": "a,b", "flag": "true", "transforms": "", "predicates": "", "errors.tolerance": "none",
                      "errors.retry.timeout": "0", "errors.retry.delay.max.ms": "60000", "errors.log.enable": "false",
                      "errors.log.include.messages": "false",
                      # SourceConnectorConfig's exactly-once keys, with their defaults (KIP-618)
                      "exactly.once.support": "requested", "transaction.boundary": "poll",
                      "transaction.boundary.interval.ms": None, "offsets.storage.topic": None,
                      # this runtime's auto-restart keys, unset: the worker's settings (docs/auto-restart.md)
                      "auto.restart.enabled": None, "auto.restart.max.restarts": None,
                      "auto.restart.max.backoff.minutes": None}
    defaults = {c["definition"]["name"]: c["definition"]["default_value"] for c in body["configs"]}
    assert defaults["secret"] is None and defaults["fallback.secret"] == "[hidden]" and defaults["tasks.max"] == "1"


def test_validate_without_connector_class_reaches_the_herder(rest_cluster: Cluster) -> None:
    _, (f1, _f2) = roles(rest_cluster)
    r = f1.request("PUT", "/connector-plugins/SequenceSourceConnector/config/validate", {"name": "x", "topic": "t"})
    assert (r.status_code, r.json()["message"]) == (
        400, "Connector config {name=x, topic=t} contains no connector type")
    r = f1.request("PUT", "/connector-plugins/Source/config/validate", {"connector.class": "SequenceSourceConnector"})
    assert r.status_code == 200 and r.json()["name"] == "SequenceSourceConnector", "the class name ends with the path's"
