"""Auto-restart end to end on real brokers: a distributed cluster, a standalone worker and a dedicated
MirrorMaker restart FAILED work without an operator; the count shows in the status and in /metrics.

Followed: Strimzi's AbstractConnectOperator.autoRestartFailedConnectorAndTasks (restart with
includeTasks=true&onlyFailed=true, the first restart at once, then n*n + n minutes, at most maxRestarts)
and its KafkaConnectorIT auto-restart test (a failing connector's status carries autoRestart.count);
the schedule itself is checked on a fake clock in tests/unit/test_auto_restart.py.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.harness import failing_plugins
from tests.harness.brokers import Broker, free_port
from tests.harness.connectors import sequence_connector, status
from tests.harness.kafka_io import read_to_end
from tests.harness.mirror import cluster_lines, mm2_settings
from tests.harness.standalone import StandaloneProcess, standalone_properties
from tests.harness.workers import REPO, Cluster, WorkerProcess, wait_for

COUNT, FAIL_AT = 200, 60


def sample(text: str, name: str, **labels: str) -> float | None:
    """One series' value from a Prometheus text page (None if absent)."""
    for line in text.splitlines():
        if line.split("{")[0].split(" ")[0] != name:
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split(" ")[0]))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return None


def restarted(worker: WorkerProcess, name: str, count: int, task_state: str = "RUNNING",
              prefix: str = "") -> dict[str, Any]:
    """The status once the connector's auto-restart count is `count` and its task is in `task_state`."""
    r = worker.request("GET", f"{prefix}/connectors/{name}/status")
    st: dict[str, Any] = r.json() if r.status_code == 200 else {}
    auto = st.get("connector", {}).get("auto_restart", {})
    tasks = st.get("tasks", [])
    return st if auto.get("count") == count and tasks and tasks[0]["state"] == task_state else {}


def sequence_values(bootstrap: str, topic: str) -> list[str]:
    return [(r[3] or b"").decode() for r in read_to_end(bootstrap, topic)]


def failing_sequence(name: str, **extra: str) -> dict[str, Any]:
    """A one-task SequenceSource that fails once at FAIL_AT (transiently: restarted, it carries on)."""
    body = sequence_connector(name, f"{name}-out", 1, COUNT, 200)
    body["config"].update({"fail.at": str(FAIL_AT), **extra})
    return body


def test_distributed_leader_restarts_a_failed_task_and_counts_it(cluster_factory: Any, broker: Broker,
                                                                 unique: str) -> None:
    """Two workers, each with its own /metrics port; the task may run on either, the leader restarts it."""
    cluster: Cluster = cluster_factory(extra={"auto.restart.enabled": "true"})
    ports = []
    for _ in range(2):
        ports.append(free_port())
        cluster.extra["metrics.prometheus.port"] = str(ports[-1])
        cluster.add_worker()
    w1, w2 = (w.wait_ready() for w in cluster.workers)
    name = f"ar-{unique}"
    created = time.monotonic()
    assert w1.request("POST", "/connectors", failing_sequence(name)).status_code == 201
    st = wait_for(lambda: restarted(w2, name, 1), 60, "the task auto-restarted once and RUNNING")
    took = time.monotonic() - created
    wait_for(lambda: len(sequence_values(broker.bootstrap, f"{name}-out")) >= COUNT, 30, "every record")
    values = sequence_values(broker.bootstrap, f"{name}-out")
    assert set(values) == {f"0:{n}" for n in range(COUNT)}, "records before and after the failure"
    stamp = st["connector"]["auto_restart"]["last_restart_timestamp"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", stamp), stamp
    assert set(st["connector"]) == {"state", "worker_id", "version", "auto_restart"}, "Connect's fields plus one"
    assert set(st["tasks"][0]) == {"id", "state", "worker_id", "version"}, "task entries keep Connect 4.1's shape"
    logs = "".join(w.log_path.read_text(errors="replace") for w in cluster.workers)
    assert f"configured to fail at {FAIL_AT}" in logs, "the task did fail"
    assert f"[{name}] auto-restarting the connector and its failed tasks (restart 1)" in logs

    def gauge() -> float | None:  # the connector's owner reports it: one series in the cluster
        found = [sample(httpx.get(f"http://127.0.0.1:{p}/metrics", timeout=5).text,
                        "kafka_connect_connector_auto_restart_count", connector=name) for p in ports]
        values = [v for v in found if v is not None]
        return values[0] if len(values) == 1 else None
    assert wait_for(gauge, 20, "the auto-restart gauge") == 1.0
    print(f"\ncreated -> FAILED at {FAIL_AT} -> auto-restarted -> RUNNING in {took:.1f}s; "
          f"{len(values)} records, {len(values) - COUNT} duplicate(s)")


def test_the_connector_setting_wins_and_bad_values_are_refused(cluster_factory: Any, unique: str) -> None:
    """Two connectors whose task fails at every start, on a worker with auto-restart on: the one with
    `auto.restart.enabled=false` stays FAILED while the leader's same pass restarts the other at once."""
    cluster: Cluster = cluster_factory(extra={"auto.restart.enabled": "true"})
    (w,) = cluster.start(1)
    off, on = f"off-{unique}", f"on-{unique}"
    config = {"connector.class": failing_plugins.PATH, "tasks.max": "1"}
    assert w.request("POST", "/connectors", {"name": off, "config": {
        **config, "auto.restart.enabled": "false"}}).status_code == 201
    wait_for(lambda: (status(w, off).get("tasks") or [{}])[0].get("state") == "FAILED", 30, "off FAILED")
    assert w.request("POST", "/connectors", {"name": on, "config": config}).status_code == 201
    wait_for(lambda: restarted(w, on, 1, "FAILED"), 30, "the sibling's restart counted")
    wait_for(lambda: w.log_path.read_text().count(f"[{on}-0] starting task") == 2, 30,
             "the sibling started again (and failed again)")
    st = status(w, off)
    assert "auto_restart" not in st["connector"] and st["tasks"][0]["state"] == "FAILED", st
    assert w.log_path.read_text().count(f"[{off}-0] starting task") == 1, "never restarted"
    # Bad values get Connect's 400 naming the key, and nothing is created.
    for key, value in (("auto.restart.max.restarts", "0"), ("auto.restart.enabled", "maybe"),
                       ("auto.restart.max.backoff.minutes", "0")):
        r = w.request("POST", "/connectors", {"name": f"bad-{unique}", "config": {**config, key: value}})
        assert r.status_code == 400 and f"{key}: " in r.json()["message"], r.text
    assert f"bad-{unique}" not in w.request("GET", "/connectors").json()


@pytest.mark.slow
def test_the_maximum_after_real_backoffs(cluster_factory: Any, unique: str) -> None:
    """With a 1-minute backoff cap and at most 2 restarts: restarts at minute 0 and 1, none at minute 2."""
    cluster: Cluster = cluster_factory(extra={"auto.restart.enabled": "true",
                                              "auto.restart.max.backoff.minutes": "1"})
    (w,) = cluster.start(1)
    name = f"max-{unique}"
    assert w.request("POST", "/connectors", {"name": name, "config": {
        "connector.class": failing_plugins.PATH, "auto.restart.max.restarts": "2"}}).status_code == 201
    first = wait_for(lambda: restarted(w, name, 1, "FAILED"), 30, "restart 1")
    second = wait_for(lambda: restarted(w, name, 2, "FAILED"), 90, "restart 2, a minute later")
    assert first["connector"]["auto_restart"]["last_restart_timestamp"] < \
        second["connector"]["auto_restart"]["last_restart_timestamp"]
    at = time.monotonic()
    # The behaviour under test is an absence: no third restart when the third backoff (1 min) is over.
    wait_for(lambda: time.monotonic() - at > 75, 80, "the third backoff over")
    assert restarted(w, name, 2, "FAILED"), "no restart past the maximum"
    assert w.log_path.read_text().count(f"[{name}-0] starting task") == 3


def test_standalone_worker_with_the_connector_setting(tmp_path: Path, broker: Broker, unique: str) -> None:
    """The worker's default is off; the connector's own `auto.restart.enabled=true` turns it on."""
    name = f"sa-{unique}"
    config = {"name": name, **failing_sequence(name, **{"auto.restart.enabled": "true"})["config"]}
    worker = StandaloneProcess(tmp_path, standalone_properties(broker, tmp_path / "offsets"), {name: config})
    worker.start()
    try:
        worker.wait_ready()
        wait_for(lambda: restarted(worker, name, 1), 60, "the standalone task auto-restarted")
        wait_for(lambda: len(sequence_values(broker.bootstrap, f"{name}-out")) >= COUNT, 30, "every record")
        assert set(sequence_values(broker.bootstrap, f"{name}-out")) == {f"0:{n}" for n in range(COUNT)}
    finally:
        worker.terminate()


def test_dedicated_mirror_maker_top_level_and_flow_keys(tmp_path: Path, broker: Broker, broker_b: Broker,
                                                       unique: str) -> None:
    """mm2.properties: the top-level key reaches every MM2 connector, the flow's key overrides it; a
    connector of the flow's herder is auto-restarted by that herder."""
    port, metrics_port = free_port(), free_port()
    path = tmp_path / "mm2.properties"
    path.write_text(cluster_lines({"A": broker, "B": broker_b}) + "A->B.enabled = true\nB->A.enabled = false\n"
                    + f"A->B.topics = none{unique}\nauto.restart.enabled = true\n"
                    + f"B.metrics.prometheus.port = {metrics_port}\n"
                    + "A->B.auto.restart.max.restarts = 5\n" + mm2_settings({"A": broker, "B": broker_b}))
    log = open(tmp_path / "mm.log", "wb")  # noqa: SIM115 - owned by the child
    proc = subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path), "--listeners",
                             f"http://127.0.0.1:{port}"], cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    herder = WorkerProcess(tmp_path, {"listeners": f"http://127.0.0.1:{port}"}, "mm-rest")  # its REST only
    try:
        base = f"http://127.0.0.1:{port}/A/B"
        config = wait_for(lambda: (lambda r: r.json() if r.status_code == 200 else None)(
            httpx.get(f"{base}/connectors/MirrorSourceConnector/config", timeout=5)), 60, "the MirrorSourceConnector")
        assert config["auto.restart.enabled"] == "true" and config["auto.restart.max.restarts"] == "5"
        name = f"dm-{unique}"
        body = failing_sequence(name, **{"auto.restart.enabled": "true"})
        assert httpx.post(f"{base}/connectors", json=body, timeout=30).status_code == 201
        wait_for(lambda: restarted(herder, name, 1, prefix="/A/B"), 60, "the herder auto-restarted the task")
        assert wait_for(lambda: sample(httpx.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).text,
                                       "kafka_connect_connector_auto_restart_count", connector=name, source="A",
                                       target="B"), 20, "the flow's gauge") == 1.0
        wait_for(lambda: len(sequence_values(broker_b.bootstrap, f"{name}-out")) >= COUNT, 30, "every record")
        # The flow's config topic on the session's broker B must hold MirrorMaker's connectors only again.
        assert httpx.delete(f"{base}/connectors/{name}", timeout=30).status_code == 204
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
        log.close()
