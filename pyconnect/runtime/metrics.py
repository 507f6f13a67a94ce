"""Worker metrics for Prometheus under the names Strimzi's dashboards query (jmx-exporter style):
`kafka_connect_worker_{connector_count,task_count}`, `kafka_connect_connector_status`,
`kafka_connect_connector_task_status`. Served by `start_endpoint` on its own port (`/metrics`)."""

from __future__ import annotations

import contextlib
import logging

from prometheus_client import Gauge, start_http_server

log = logging.getLogger(__name__)

CONNECTOR_COUNT = Gauge("kafka_connect_worker_connector_count", "Connectors run by this worker.")
TASK_COUNT = Gauge("kafka_connect_worker_task_count", "Tasks run by this worker.")
CONNECTOR_STATUS = Gauge("kafka_connect_connector_status", "1 for the connector's current state.",
                         ["connector", "status"])
TASK_STATUS = Gauge("kafka_connect_connector_task_status", "1 for the task's current state.",
                    ["connector", "task", "status"])
STATES = ("running", "paused", "failed", "unassigned", "stopped", "restarting")
_started: set[int] = set()


def start_endpoint(port: int, host: str = "0.0.0.0") -> bool:
    """Serve /metrics on `port` once per process; False (with a warning) if the port is taken."""
    if port in _started:
        return True
    try:
        start_http_server(port, addr=host)
    except OSError as exc:
        log.warning("metrics endpoint not started on port %d: %s", port, exc)
        return False
    _started.add(port)
    log.info("Prometheus metrics on http://%s:%d/metrics", host, port)
    return True


_published: tuple[set[str], set[str]] = (set(), set())


def publish(connectors: dict[str, str], tasks: dict[str, str]) -> None:
    """Current states of this worker's connectors and tasks (name -> state); series of connectors and
    tasks that moved away are removed."""
    CONNECTOR_COUNT.set(len(connectors))
    TASK_COUNT.set(len(tasks))
    old_connectors, old_tasks = _published
    for name in old_connectors - set(connectors):
        for s in STATES:
            with contextlib.suppress(KeyError):
                CONNECTOR_STATUS.remove(name, s)
    for task_id in old_tasks - set(tasks):
        name, _, index = task_id.rpartition("-")
        for s in STATES:
            with contextlib.suppress(KeyError):
                TASK_STATUS.remove(name, index, s)
    for name, state in connectors.items():
        for s in STATES:
            CONNECTOR_STATUS.labels(name, s).set(1 if state.lower() == s else 0)
    for task_id, state in tasks.items():
        name, _, index = task_id.rpartition("-")
        for s in STATES:
            TASK_STATUS.labels(name, index, s).set(1 if state.lower() == s else 0)
    old_connectors.clear()
    old_connectors.update(connectors)
    old_tasks.clear()
    old_tasks.update(tasks)
