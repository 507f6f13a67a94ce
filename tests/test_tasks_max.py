"""`tasks.max.enforce` (KIP-1004) against a real worker: a connector returning more task configs than
`tasks.max` FAILS with Kafka's TooManyTasksException message; with enforcement off all its tasks run.

Follows Kafka's ConnectWorkerIntegrationTest.testTasksMaxEnforcement (and Worker.connectorTaskConfigs,
TooManyTasksException, ConnectorConfig.TASKS_MAX_ENFORCE_CONFIG).
"""

from __future__ import annotations

from typing import Any

from tests.harness import greedy_plugins
from tests.harness.workers import Cluster, WorkerProcess, wait_for

EXPECTED = ("The connector {name} has generated 3 tasks, which is greater than 1, the maximum number of tasks it is "
            "configured to create. This behaviour should be considered a bug and is disallowed. If necessary, it can "
            "be permitted by reconfiguring the connector with 'tasks.max.enforce' set to false; however, this option "
            "will be removed in a future release of Kafka Connect.")


def status(w: WorkerProcess, name: str) -> dict[str, Any]:
    r = w.request("GET", f"/connectors/{name}/status")
    return r.json() if r.status_code == 200 else {}


def test_too_many_task_configs_fail_unless_enforcement_is_off(cluster_factory: Any, unique: str) -> None:
    cluster: Cluster = cluster_factory()
    (w,) = cluster.start(1)
    name = f"greedy-{unique}"
    config = {"connector.class": greedy_plugins.PATH, "tasks.max": "1", "task.count": "3"}
    assert w.request("POST", "/connectors", {"name": name, "config": config}).status_code == 201
    wait_for(lambda: status(w, name).get("connector", {}).get("state") == "FAILED", 30, "connector FAILED")
    st = status(w, name)
    assert EXPECTED.format(name=name) in st["connector"].get("trace", ""), (st, w.log_path.read_text()[-3000:])
    assert st["tasks"] == [] and w.request("GET", f"/connectors/{name}/tasks").json() == [], "no task published"
    # Kafka's deprecated behaviour: a warning, and every task config runs.
    assert w.request("PUT", f"/connectors/{name}/config",
                     {**config, "tasks.max.enforce": "false"}).status_code == 200
    wait_for(lambda: [t["state"] for t in status(w, name).get("tasks", [])] == ["RUNNING"] * 3
             and status(w, name)["connector"]["state"] == "RUNNING", 30, "three tasks RUNNING")
    assert "which is greater than 1, the maximum number of tasks it is configured to create. This behavior is " \
           "deprecated" in w.log_path.read_text()
    # A value that is not a boolean is refused with Connect's 400, before anything is written.
    r = w.request("PUT", f"/connectors/{name}/config", {**config, "tasks.max.enforce": "maybe"})
    assert r.status_code == 400 and "tasks.max.enforce" in r.json()["message"], r.text


def task_states(w: WorkerProcess, name: str) -> list[str]:
    return [t["state"] for t in status(w, name).get("tasks", [])]


def test_existing_task_configs_above_tasks_max_fail_their_tasks_at_start(cluster_factory: Any, unique: str) -> None:
    """The second half of ConnectWorkerIntegrationTest.testTasksMaxEnforcement (Worker.startTask's
    checkTasksMax): task configs already published beyond `tasks.max` (here by a connector that ran with
    enforcement off) fail each task that starts once enforcement is back on, with the same message."""
    cluster: Cluster = cluster_factory()
    (w,) = cluster.start(1)
    name = f"greedy-{unique}"
    config = {"connector.class": greedy_plugins.PATH, "tasks.max": "1", "task.count": "3",
              "tasks.max.enforce": "false"}
    assert w.request("POST", "/connectors", {"name": name, "config": config}).status_code == 201
    wait_for(lambda: task_states(w, name) == ["RUNNING"] * 3, 30, "three tasks RUNNING")
    assert w.request("PUT", f"/connectors/{name}/config", {**config, "tasks.max.enforce": "true"}).status_code == 200
    wait_for(lambda: status(w, name).get("connector", {}).get("state") == "FAILED", 30, "connector FAILED")
    # The three published task configs stay; a task (re)started under enforcement fails with Kafka's message.
    assert w.request("POST", f"/connectors/{name}/tasks/0/restart").status_code in (200, 202, 204)
    wait_for(lambda: (task_states(w, name) or [""])[0] == "FAILED", 30, "task 0 FAILED")
    trace = status(w, name)["tasks"][0].get("trace", "")
    assert EXPECTED.format(name=name) in trace, trace[-2000:]
