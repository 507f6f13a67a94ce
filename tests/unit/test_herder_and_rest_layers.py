"""The herder's typed answers and domain errors, and how the REST layer maps and forwards them, on
in-memory workers (no brokers; the REST behaviour itself is covered by the real-cluster tests)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.responses import Response
from starlette.requests import Request

from pyconnect.config.worker import WorkerConfig
from pyconnect.runtime.herder.herder import Herder
from pyconnect.runtime.herder.request_errors import (
    BadConfig,
    Conflict,
    Forbidden,
    HerderError,
    NotAssigned,
    NotFound,
    NotLeader,
)
from pyconnect.runtime.results import ConnectorState, ConnectorStateInfo, PartitionOffset, TaskState
from pyconnect.runtime.worker import Worker
from pyconnect.storage.log import Log, MemoryLog, MemoryTopic
from rest import bodies
from rest.errors import status_of
from rest.forwarding import Forwarder, ServeOrForward

CONFIG = {"connector.class": "SequenceSourceConnector", "topic": "t", "tasks.max": "1"}


def until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)  # the poll interval under the deadline


def worker(topics: dict[str, MemoryTopic], port: int, extra: dict[str, str] | None = None) -> Worker:
    def factory(name: str, partitions: int) -> Log:
        return MemoryLog(topics.setdefault(name, MemoryTopic(partitions)))
    values = {"bootstrap.servers": "127.0.0.1:1", "group.id": "g", "config.storage.topic": "c",
              "offset.storage.topic": "o", "status.storage.topic": "s", "listeners": f"http://127.0.0.1:{port}",
              "session.timeout.ms": "3000", "heartbeat.interval.ms": "300", **(extra or {})}
    w = Worker(WorkerConfig(values), log_factory=factory)
    w.start()
    return w


@pytest.fixture(scope="module")
def herders() -> Iterator[tuple[Herder, Herder]]:
    """A leader and a follower sharing in-memory internal topics."""
    topics: dict[str, MemoryTopic] = {}
    leader = worker(topics, 18083, {"topic.tracking.enable": "false"})
    until(leader.membership.is_leader)
    follower = worker(topics, 18084)
    until(lambda: follower.membership.leader_url() is not None)
    yield Herder(leader), Herder(follower)
    for w in (follower, leader):
        w.stop()


def test_status_codes_of_the_herder_errors() -> None:
    assert [status_of(e) for e in (NotFound("x"), Conflict("x"), BadConfig("x"), Forbidden("x"))] == [
        404, 409, 400, 403]
    # A forwarding target nobody acted on, or an error of no known kind, is Connect's 500.
    assert {status_of(NotLeader("x", "http://l")), status_of(NotAssigned("x", None)), status_of(HerderError("x"))} == {
        500}


def test_writes_on_a_follower_name_the_leader(herders: tuple[Herder, Herder]) -> None:
    leader, follower = herders
    with pytest.raises(NotLeader) as raised:
        follower.create("c1", dict(CONFIG), None)
    assert raised.value.url == "http://127.0.0.1:18083"
    with pytest.raises(NotFound, match="^Unknown connector nope$"):
        follower.stop("nope")  # an unknown connector is answered here, not forwarded


def test_typed_answers_and_domain_errors(herders: tuple[Herder, Herder]) -> None:
    leader, follower = herders
    info = leader.create("c2", dict(CONFIG), "stopped")
    assert (info.name, info.config["name"], info.tasks, info.type) == ("c2", "c2", [], "source")
    with pytest.raises(Conflict, match="^Connector c2 already exists$"):
        leader.create("c2", dict(CONFIG), None)
    with pytest.raises(BadConfig, match="^Invalid initial state x: must be RUNNING, PAUSED or STOPPED$"):
        leader.create("c3", dict(CONFIG), "x")
    with pytest.raises(BadConfig, match="contains no connector type"):
        leader.validate({"name": "v"})
    assert follower.connector_info("c2").config == info.config
    with pytest.raises(NotFound, match="^Connector nope not found$"):
        follower.connector_info("nope")
    with pytest.raises(Forbidden, match="^Topic tracking is disabled.$"):
        leader.active_topics("c2")
    assert follower.active_topics("c2").topics == []
    empty: list[PartitionOffset] = []
    for missing in (None, empty):
        with pytest.raises(BadConfig, match="^Partitions / offsets need to be provided"):
            leader.alter_offsets("c2", missing)
    assert leader.reset_offsets("c2") == "The offsets for this connector have been reset successfully"
    leader.delete("c2")
    with pytest.raises(NotFound, match="^Logger no.such.logger not found.$"):
        leader.logger_level("no.such.logger")
    with pytest.raises(NotFound, match="^invalid log level 'LOUD'.$"):
        leader.set_worker_logger_level("x", "LOUD")


def test_bodies_follow_connects_inclusion_rules() -> None:
    info = ConnectorStateInfo("c", ConnectorState("RUNNING", "w:1", "", None),
                              [TaskState(id=0, state="FAILED", worker_id=None, trace="boom", progress={"copied": 1})],
                              "source")
    assert bodies.connector_state_info(info) == {
        "name": "c", "connector": {"state": "RUNNING", "worker_id": "w:1"},
        "tasks": [{"id": 0, "state": "FAILED", "worker_id": None, "trace": "boom", "progress": {"copied": 1}}],
        "type": "source"}


class _Recorder(Forwarder):
    """Records where a request would have been forwarded instead of sending it."""

    def __init__(self) -> None:
        self.sent: list[str | None] = []

    def forward(self, request: Request, body: bytes, target_url: str | None) -> Response:
        self.sent.append(target_url)
        return Response(status_code=299)


class _Herder(Herder):
    """Counts the waits for a leader (and has no worker: forwarding needs none)."""

    def __init__(self) -> None:
        self.waited = 0

    def await_leader(self) -> bool:
        self.waited += 1
        return True


def _request(query: str = "") -> Request:
    return Request({"type": "http", "method": "POST", "path": "/connectors", "query_string": query.encode(),
                    "headers": []})


@pytest.mark.parametrize(("query", "error", "waits", "sent"), [
    ("", NotLeader("x", "http://leader"), 0, ["http://leader"]),
    ("", NotLeader("x", None), 1, [None]),  # no leader known: wait, try again, then give up
    ("forward=false", NotLeader("x", None), 0, [None]),  # the last hop does not wait
    ("", NotAssigned("x", None), 0, [None]),  # a task's owner is not waited for
])
def test_serve_or_forward(query: str, error: HerderError, waits: int, sent: list[str | None]) -> None:
    herder, forwarder = _Herder(), _Recorder()

    def serve() -> Any:
        raise error
    answer = ServeOrForward(herder, forwarder, _request(query), b"")(serve)
    assert (answer.status_code, herder.waited, forwarder.sent) == (299, waits, sent)
