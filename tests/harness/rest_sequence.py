"""The REST call sequence of tests/test_rest_vs_java_connect.py: every endpoint and error case of Connect's
REST API a client relies on, run on one MirrorHeartbeatConnector (a plugin both Java Connect and replikafka
ship), against a worker at `url`. `run_sequence(url, bootstrap)` returns the list of answers.

Invariants:
- Each state change is followed by a poll of the connector's status until it shows the new state (under a
  deadline, Connect's herder applies requests asynchronously); the next call never races the previous one.
- The offsets calls run on the STOPPED connector (KIP-875), after its first offset was committed.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from tests.harness.rest_diff import Answer, parsed, poll

HEARTBEAT = "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector"
NAME = "hb"
STATE_TIMEOUT = 90.0  # a task (re)start on a loaded 2-core machine, Java's herder included
# Labels whose body (or a part of it) is a map with data as keys: compared by value shape only.
MAPS: dict[str, frozenset[str]] = {
    "GET /connectors?expand=status": frozenset({"$"}),
    "GET /connectors?expand=info": frozenset({"$", "$.<key>.info.config"}),
    "GET /connectors/hb/tasks": frozenset({"$[].config"}),
    "GET /admin/loggers": frozenset({"$"}),
}


class Caller:
    """Records each call's answer under a label (the method and path unless given)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.answers: list[Answer] = []

    def raw(self, method: str, path: str, body: Any = None, content: bytes | None = None) -> httpx.Response:
        if content is not None:
            return httpx.request(method, self.url + path, content=content, timeout=60,
                                 headers={"Content-Type": "application/json"})
        return httpx.request(method, self.url + path, json=body, timeout=60)

    def __call__(self, method: str, path: str, body: Any = None, *, label: str = "",
                 content: bytes | None = None) -> httpx.Response:
        began = time.monotonic()
        response = self.raw(method, path, body, content)
        self.answers.append(Answer(label or f"{method} {path}", response.status_code, parsed(response),
                                   time.monotonic() - began))
        return response

    def settle(self, state: str, tasks: int | None) -> None:
        """Poll the status until the connector (and `tasks` tasks, None: any) is in `state`."""
        def done(response: httpx.Response) -> bool:
            body = parsed(response)
            if response.status_code != 200 or body.get("connector", {}).get("state") != state:
                return False
            return tasks is None or (len(body["tasks"]) == tasks and all(t["state"] == state for t in body["tasks"]))
        began = time.monotonic()
        answer = poll(lambda: self.raw("GET", f"/connectors/{NAME}/status"), done, STATE_TIMEOUT)
        self.answers.append(Answer(f"status once {state}", answer.status_code, parsed(answer),
                                   time.monotonic() - began))


def heartbeat_config(bootstrap: str, **overrides: str) -> dict[str, str]:
    return {"connector.class": HEARTBEAT, "tasks.max": "1", "source.cluster.alias": "A",
            "target.cluster.alias": "B", "source.cluster.bootstrap.servers": bootstrap,
            "target.cluster.bootstrap.servers": bootstrap, "heartbeats.topic.replication.factor": "1",
            "emit.heartbeats.interval.seconds": "1",
            "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
            "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter", **overrides}


def plugins(call: Caller, config: dict[str, str]) -> None:
    call("GET", "/")
    call("GET", "/connector-plugins")
    call("GET", "/connector-plugins?connectorsOnly=false")
    call("GET", "/connector-plugins/MirrorHeartbeatConnector/config")
    call("GET", "/connector-plugins/NoSuchConnector/config")
    validate = "/connector-plugins/MirrorHeartbeatConnector/config/validate"
    call("PUT", validate, config, label="validate: valid")
    call("PUT", validate, {**config, "tasks.max": "x"}, label="validate: tasks.max=x")
    call("PUT", validate, {"tasks.max": "1"}, label="validate: no connector.class")
    call("PUT", "/connector-plugins/MirrorSourceConnector/config/validate", config,
         label="validate: class differs from path")
    call("PUT", validate, content=b'{"connector.class": ', label="validate: malformed JSON")


def create_and_read(call: Caller, config: dict[str, str]) -> None:
    call("POST", "/connectors", {"name": NAME, "config": config}, label="create")
    call("POST", "/connectors", {"name": NAME, "config": config}, label="create: exists")
    call.settle("RUNNING", 1)
    call("GET", "/connectors")
    call("GET", "/connectors?expand=status")
    call("GET", "/connectors?expand=info")
    call("GET", f"/connectors/{NAME}")
    call("GET", f"/connectors/{NAME}/config")
    call("GET", f"/connectors/{NAME}/tasks")
    call("GET", f"/connectors/{NAME}/tasks/0/status")
    call("GET", f"/connectors/{NAME}/tasks/7/status")
    call("GET", f"/connectors/{NAME}/topics")
    call("GET", f"/connectors/{NAME}/offsets", label="offsets while RUNNING")
    call("DELETE", f"/connectors/{NAME}/offsets", label="reset offsets while RUNNING")


def lifecycle(call: Caller, config: dict[str, str]) -> None:
    call("PUT", f"/connectors/{NAME}/pause")
    call.settle("PAUSED", 1)
    call("PUT", f"/connectors/{NAME}/resume")
    call.settle("RUNNING", 1)
    call("POST", f"/connectors/{NAME}/restart")
    call("POST", f"/connectors/{NAME}/restart?includeTasks=true")
    call.settle("RUNNING", 1)
    call("POST", f"/connectors/{NAME}/restart?includeTasks=true&onlyFailed=true")
    call("POST", f"/connectors/{NAME}/restart?onlyFailed=true")
    call("POST", f"/connectors/{NAME}/tasks/0/restart")
    call("POST", f"/connectors/{NAME}/tasks/7/restart")
    call.settle("RUNNING", 1)
    call("PUT", f"/connectors/{NAME}/config", config, label="update config")
    call("PUT", f"/connectors/{NAME}/config", {**config, "name": "other"}, label="update config: other name")
    call("PUT", f"/connectors/{NAME}/config", content=b"{oops", label="update config: malformed JSON")
    call.settle("RUNNING", 1)
    call("PUT", f"/connectors/{NAME}/stop")
    call.settle("STOPPED", 0)


def offsets(call: Caller) -> None:
    path, began = f"/connectors/{NAME}/offsets", time.monotonic()
    answer = poll(lambda: call.raw("GET", path), lambda r: bool(r.status_code == 200 and r.json().get("offsets")),
                  STATE_TIMEOUT)
    call.answers.append(Answer("offsets once committed", answer.status_code, parsed(answer),
                               time.monotonic() - began))
    partition = {"sourceClusterAlias": "A", "targetClusterAlias": "B"}
    call("PATCH", path, {"offsets": [{"partition": partition, "offset": {"offset": 0}}]}, label="alter offsets")
    call("PATCH", path, {"offsets": [{"partition": partition, "offset": {"offset": "x"}}]},
         label="alter offsets: offset not a number")
    call("PATCH", path, {"offsets": [{"partition": {"nope": 1}, "offset": {"offset": 0}}]},
         label="alter offsets: unknown partition keys")
    call("PATCH", path, {"offsets": []}, label="alter offsets: empty list")
    call("PATCH", path, content=b"[", label="alter offsets: malformed JSON")
    call("DELETE", path, label="reset offsets")
    call("GET", path, label="offsets after reset")


def errors(call: Caller, bootstrap: str) -> None:
    call("GET", "/connectors/nope")
    call("GET", "/connectors/nope/status")
    call("GET", "/connectors/nope/config")
    call("DELETE", "/connectors/nope")
    call("PUT", "/connectors/nope/pause")
    call("POST", "/connectors/nope/restart")
    call("GET", "/connectors/nope/offsets")
    call("POST", "/connectors", content=b'{"name": "x", ', label="create: malformed JSON")
    call("POST", "/connectors", {"name": "bad", "config": {}}, label="create: no connector.class")
    call("POST", "/connectors", {"config": heartbeat_config(bootstrap)}, label="create: no name")
    call("POST", "/connectors", {"name": "bad", "config": heartbeat_config(bootstrap, **{"tasks.max": "x"})},
         label="create: tasks.max=x")
    call("POST", "/connectors", {"name": "bad", "config": {"connector.class": "com.example.Nope"}},
         label="create: unknown class")
    call("PUT", "/connectors/bad2/config", {"connector.class": HEARTBEAT, "tasks.max": "-1"},
         label="put config: tasks.max=-1")
    call("GET", "/no/such/path")
    call("DELETE", "/connector-plugins", label="DELETE /connector-plugins (wrong method)")


def loggers(call: Caller) -> None:
    call("GET", "/admin/loggers")
    call("GET", "/admin/loggers/root")
    call("PUT", "/admin/loggers/org.apache.kafka.connect.mirror", {"level": "DEBUG"}, label="set a logger's level")
    call("GET", "/admin/loggers/org.apache.kafka.connect.mirror")
    call("PUT", "/admin/loggers/org.apache.kafka.connect.mirror?scope=cluster", {"level": "INFO"},
         label="set a logger's level, cluster scope")
    call("PUT", "/admin/loggers/org.apache.kafka.connect.mirror", {"level": "LOUD"}, label="set level: unknown")
    call("PUT", "/admin/loggers/org.apache.kafka.connect.mirror", {}, label="set level: no level")
    call("GET", "/admin/loggers/no.such.logger.anywhere")


def run_sequence(url: str, bootstrap: str) -> list[Answer]:
    """Every call of the sequence against the worker at `url`, whose cluster is at `bootstrap`."""
    call, config = Caller(url), heartbeat_config(bootstrap)
    plugins(call, config)
    create_and_read(call, config)
    lifecycle(call, config)
    offsets(call)
    errors(call, bootstrap)
    loggers(call)
    call("DELETE", f"/connectors/{NAME}", label="delete")
    call("GET", f"/connectors/{NAME}", label="GET after delete")
    call("GET", "/connectors", label="list after delete")
    return call.answers
