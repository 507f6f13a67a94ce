"""Connector configs for tests and polling of a connector's status and offsets over REST."""

from __future__ import annotations

from typing import Any

from tests.harness.workers import WorkerProcess


def sequence_connector(name: str, topic: str, tasks: int, count: int, rate: float = 400) -> dict[str, Any]:
    """A POST /connectors body for the SequenceSourceConnector: `tasks` tasks writing `<task>:<n>` for n < count."""
    return {"name": name, "config": {"connector.class": "SequenceSourceConnector", "topic": topic,
                                     "tasks.max": str(tasks), "count": str(count), "rate": str(rate)}}


def status(worker: WorkerProcess, name: str) -> dict[str, Any]:
    """The connector's status as `worker` reports it, {} while it has none."""
    r = worker.request("GET", f"/connectors/{name}/status")
    return r.json() if r.status_code == 200 else {}


def all_running(worker: WorkerProcess, name: str, tasks: int, on: set[str] | None = None) -> dict[str, Any]:
    """The status once the connector and its `tasks` tasks are RUNNING (on the workers `on`, if given); else {}."""
    st = status(worker, name)
    ok = (st.get("connector", {}).get("state") == "RUNNING" and len(st.get("tasks", [])) == tasks
          and all(t["state"] == "RUNNING" for t in st["tasks"])
          and (on is None or all(t["worker_id"] in on for t in st["tasks"])))
    return st if ok else {}


def committed(worker: WorkerProcess, name: str) -> int:
    """Records committed so far (sum of next sequence numbers in the offsets)."""
    r = worker.request("GET", f"/connectors/{name}/offsets")
    return sum(o["offset"]["seq"] + 1 for o in r.json()["offsets"]) if r.status_code == 200 else 0
