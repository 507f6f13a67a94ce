"""Ports of Kafka's ConnectorsResourceTest, over real HTTP against a real two-worker cluster.

Kafka's cases call the resource with a mocked herder and check what it forwards; here a real leader
and follower answer, so "not leader" cases are requests sent to the follower, and where a real Kafka
herder would answer differently from the mock (a name it rejects) the test expects the real answer.
The cluster has basic auth on, so every forwarded write shows the Authorization header travelled.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any, NamedTuple
from urllib.parse import quote, unquote, urlsplit

import httpx
import pytest

from tests.harness.brokers import Broker, free_port
from tests.harness.membership import leader_of
from tests.harness.workers import Cluster, WorkerProcess, wait_for

SPECIAL = "ta/b&c=d//\\rx=1þ.1>< `'\" x%y+z!ሴ#$&'(æ)*+,:;=?ñ@[]ÿ"
CONTROL = "ta/b&c=drx=1\n.1>< `'\" x%y+z!#$&'()*+,:;=?@[]"
ALL_WHITESPACES = "   \t\n  \b"
AUTH = ("ops", "s3cret")


class Roles(NamedTuple):
    leader: WorkerProcess
    follower: WorkerProcess


def start_leader_first(cluster: Cluster, first: dict[str, str], second: dict[str, str],
                       leader_id: str | None = None) -> Roles:
    """Start a worker, wait for it to lead, then start a follower; each with its own extra properties."""
    base = dict(cluster.extra)
    cluster.extra = {**base, **first}
    wanted = leader_id or cluster.add_worker().wait_ready().worker_id
    if leader_id:
        cluster.add_worker().wait_ready()
    wait_for(lambda: leader_of(cluster.broker.bootstrap, cluster.group) == wanted, 30, "the first leads")
    cluster.extra = {**base, **second}
    cluster.add_worker().wait_ready()
    return Roles(*cluster.workers)


@pytest.fixture(scope="module")
def roles(broker: Broker, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Roles]:
    directory = tmp_path_factory.mktemp("connectors-resource")
    (directory / "credentials.properties").write_text(f"{AUTH[0]}: {AUTH[1]},admin\n")
    extra = {"rest.extension.classes": "org.apache.kafka.connect.rest.basic.auth.extension."
                                       "BasicAuthSecurityRestExtension",
             "rest.basic.auth.credentials.file": str(directory / "credentials.properties")}
    cluster = Cluster(broker, directory, f"cr-{uuid.uuid4().hex[:6]}", extra, client={"auth": AUTH})
    yield start_leader_first(cluster, {}, {})
    cluster.close()


@pytest.fixture(scope="module")
def odd(broker: Broker, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Roles]:
    """A leader advertising a REST port nobody listens on, without topic tracking; a follower with
    tracking but no reset."""
    dead = free_port()
    cluster = Cluster(broker, tmp_path_factory.mktemp("odd"), f"odd-{uuid.uuid4().hex[:6]}")
    yield start_leader_first(cluster, {"rest.advertised.port": str(dead), "topic.tracking.enable": "false"},
                             {"topic.tracking.allow.reset": "false"}, f"127.0.0.1:{dead}")
    cluster.close()


def unique(prefix: str = "c") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def config(name: str, tasks: int = 1, **extra: str) -> dict[str, str]:
    return {"connector.class": "SequenceSourceConnector", "topic": f"{name}-out", "tasks.max": str(tasks),
            "rate": "5", **extra}


def create(w: WorkerProcess, name: str, tasks: int = 1, initial_state: str | None = None,
           **extra: str) -> httpx.Response:
    body = {"name": name, "config": config(name, tasks, **extra), "initial_state": initial_state}
    r = w.request("POST", "/connectors", {k: v for k, v in body.items() if v is not None})
    assert r.status_code == 201, r.text
    return r


def error(r: httpx.Response, code: int, message: str) -> None:
    assert (r.status_code, r.json()) == (code, {"error_code": code, "message": message}), r.text


def reaches(w: WorkerProcess, name: str, state: str, tasks: int | None = None) -> dict[str, Any]:
    def check() -> Any:  # the status once it shows `state`, else None
        st = w.request("GET", f"/connectors/{name}/status").json()
        ok = st.get("connector", {}).get("state") == state and (tasks is None or len(st["tasks"]) == tasks) and all(
            t["state"] == state for t in st["tasks"])
        return st if ok else None
    result: dict[str, Any] = wait_for(check, 30, f"{name} {state}")
    return result


def location_path(r: httpx.Response) -> str:
    return unquote(urlsplit(r.headers["location"]).path)


def stopped_with_offsets(w: WorkerProcess) -> str:
    """A connector created STOPPED, with an offset for task 0 at seq 2."""
    name = unique("off")
    create(w, name, initial_state="STOPPED")
    offsets = {"offsets": [{"partition": {"task": 0}, "offset": {"seq": 2}}]}
    assert w.request("PATCH", f"/connectors/{name}/offsets", offsets).status_code == 200
    return name


def starts(roles: Roles, line: str) -> int:
    """How often the workers logged `line` (e.g. "[c-0] starting task")."""
    return sum(w.log_path.read_text().count(line) for w in roles)


NAME_EMPTY = ("Connector configuration is invalid and contains the following 1 error(s):\nInvalid value  for "
              "configuration name: String may not be empty\nYou can also find the above list of errors at the "
              "endpoint `/connector-plugins/{connectorType}/config/validate`")
MISMATCH = "Connector name configuration (mismatched-name) doesn't match connector name in the URL (test)"
NEW_OFFSETS = {"offsets": [{"partition": {"task": 0}, "offset": {"seq": 100}}]}
ALTERED = {"message": "The offsets for this connector have been altered successfully"}
RESET = {"message": "The offsets for this connector have been reset successfully"}


def case(method: str, *values: Any) -> Any:
    return pytest.param(*values, marks=pytest.mark.kafka(f"ConnectorsResourceTest.{method}"), id=method)


NOPE, UNKNOWN = "Connector nope not found", "Unknown connector: nope"


@pytest.mark.parametrize(("method", "path", "body", "code", "message"), [
    case("testDeleteConnectorNotFound", "DELETE", "/connectors/nope", None, 404, NOPE),
    case("testGetConnectorConfigConnectorNotFound", "GET", "/connectors/nope/config", None, 404, NOPE),
    case("testGetTasksConfigConnectorNotFound", "GET", "/connectors/nope/tasks-config", None, 404, NOPE),
    case("testGetConnectorTaskConfigsConnectorNotFound", "GET", "/connectors/nope/tasks", None, 404, NOPE),
    case("testRestartConnectorAndTasksConnectorNotFound", "POST", "/connectors/nope/restart?includeTasks=true",
         None, 404, UNKNOWN),
    case("testRestartConnectorNotFound", "POST", "/connectors/nope/restart", None, 404, UNKNOWN),
    case("testRestartTaskNotFound", "POST", "/connectors/nope/tasks/0/restart", None, 404, UNKNOWN),
    case("testGetOffsetsConnectorNotFound", "GET", "/connectors/nope/offsets", None, 404, NOPE),
    case("testAlterOffsetsConnectorNotFound", "PATCH", "/connectors/nope/offsets", NEW_OFFSETS, 404, NOPE),
    case("testResetOffsetsConnectorNotFound", "DELETE", "/connectors/nope/offsets", None, 404, NOPE),
    case("testAlterOffsetsEmptyOffsets", "PATCH", "/connectors/test/offsets", {"offsets": []}, 400,
         "Partitions / offsets need to be provided for an alter offsets request"),
    case("testPutConnectorConfigNameMismatch", "PUT", "/connectors/test/config",
         {**config("test"), "name": "mismatched-name"}, 400, MISMATCH),
    case("testCreateConnectorConfigNameMismatch", "POST", "/connectors",
         {"name": "test", "config": {"name": "mismatched-name"}}, 400, MISMATCH),
    # Kafka's mock takes the trimmed (or missing) name ""; Connect's name validator rejects it.
    case("testCreateConnectorNameAllWhitespaces", "POST", "/connectors", {"name": ALL_WHITESPACES,
                                                                          "config": config("w")}, 400, NAME_EMPTY),
    case("testCreateConnectorNoName", "POST", "/connectors", {"config": config("w")}, 400, NAME_EMPTY),
])
def test_errors(roles: Roles, method: str, path: str, body: Any, code: int, message: str) -> None:
    """Asked of the follower: leader-only requests are forwarded and the leader's error relayed."""
    error(roles.follower.request(method, path, body), code, message)


@pytest.mark.parametrize(("query", "keys"), [
    case("testListConnectors", "", set()),
    case("testExpandConnectorsStatus", "expand=status", {"status"}),
    case("testExpandConnectorsInfo", "expand=info", {"info"}),
    case("testFullExpandConnectors", "expand=info&expand=status", {"info", "status"}),
])
def test_expand_connectors(roles: Roles, query: str, keys: set[str]) -> None:
    names = {unique(), unique()}
    for name in names:
        create(roles.leader, name, initial_state="PAUSED")
    out: Any = wait_for(lambda: (lambda e: e if names <= set(e) else None)(
        roles.follower.request("GET", f"/connectors?{query}").json()), 30, "both listed")
    assert isinstance(out, list if not keys else dict)
    for name in names:
        assert not keys or set(out[name]) == keys
        if "status" in keys:
            assert out[name]["status"]["name"] == name and out[name]["status"]["type"] == "source"
        if "info" in keys:
            assert out[name]["info"]["name"] == name and out[name]["info"]["config"]["name"] == name


@pytest.mark.parametrize("via", [case("testCreateConnector", "leader"), case("testCreateConnectorNotLeader",
                                                                               "follower")])
def test_create_connector(roles: Roles, via: str) -> None:
    name, w = unique(), getattr(roles, via)
    r = create(w, name, initial_state="PAUSED")
    assert r.headers["location"] == f"{w.url}/connectors/{name}", "absolute, on the URL the caller used"
    assert r.json() == {"name": name, "config": {**config(name), "name": name}, "tasks": [], "type": "source"}


@pytest.mark.parametrize(("initial_state", "tasks"), [
    case("testCreateConnectorWithPausedInitialState", "PAUSED", None),
    case("testCreateConnectorWithStoppedInitialState", "STOPPED", 0),
    case("testCreateConnectorWithRunningInitialState", "RUNNING", 1),
])
def test_create_connector_with_initial_state(roles: Roles, initial_state: str, tasks: int | None) -> None:
    name = unique()
    create(roles.leader, name, initial_state=initial_state)
    reaches(roles.follower, name, initial_state, tasks)


@pytest.mark.kafka("ConnectorsResourceTest.testCreateConnectorWithHeaders")
def test_create_connector_with_headers(roles: Roles) -> None:
    # The leader checks credentials too: the create only succeeds if the follower passed them on.
    name = unique()
    body = {"name": name, "config": config(name), "initial_state": "PAUSED"}
    assert roles.follower.request("POST", "/connectors", body, auth=None).status_code == 401
    assert roles.follower.request("POST", "/connectors", body).status_code == 201


@pytest.mark.kafka("ConnectorsResourceTest.testCreateConnectorExists")
def test_create_connector_exists(roles: Roles) -> None:
    name = unique()
    create(roles.leader, name, initial_state="PAUSED")
    error(roles.follower.request("POST", "/connectors", {"name": name, "config": config(name)}), 409,
          f"Connector {name} already exists")


@pytest.mark.kafka("ConnectorsResourceTest.testCreateConnectorNameTrimWhitespaces")
def test_create_connector_name_trim_whitespaces(roles: Roles) -> None:
    name = unique()
    r = roles.leader.request("POST", "/connectors", {"name": f"   {name}  \n  ", "config": config(name),
                                                     "initial_state": "PAUSED"})
    assert r.status_code == 201 and r.json()["name"] == name and r.json()["config"]["name"] == name
    assert location_path(r) == f"/connectors/{name}"


@pytest.mark.parametrize("via", [case("testDeleteConnector", "leader"), case("testDeleteConnectorNotLeader",
                                                                               "follower")])
def test_delete_connector(roles: Roles, via: str) -> None:
    name = unique()
    create(roles.leader, name)
    assert getattr(roles, via).request("DELETE", f"/connectors/{name}").status_code == 204
    assert all(name not in w.request("GET", "/connectors").json() for w in roles)


@pytest.mark.kafka("ConnectorsResourceTest.testGetConnector")
def test_get_connector(roles: Roles) -> None:
    name = unique()
    created = create(roles.leader, name, 2).json()
    wait_for(lambda: len(roles.follower.request("GET", f"/connectors/{name}").json()["tasks"]) == 2, 30, "tasks")
    assert roles.follower.request("GET", f"/connectors/{name}").json() == {
        **created, "tasks": [{"connector": name, "task": 0}, {"connector": name, "task": 1}]}


@pytest.mark.kafka("ConnectorsResourceTest.testGetConnectorConfig")
def test_get_connector_config(roles: Roles) -> None:
    name = unique()
    create(roles.leader, name, initial_state="PAUSED")
    assert roles.follower.request("GET", f"/connectors/{name}/config").json() == {**config(name), "name": name}


@pytest.mark.parametrize(("path", "check"), [
    case("testGetTasksConfig", "tasks-config", lambda name, got: set(got) == {f"{name}-0", f"{name}-1"}
         and got[f"{name}-1"]["task.index"] == "1"),
    case("testGetConnectorTaskConfigs", "tasks", lambda name, got: [t["id"] for t in got] == [
        {"connector": name, "task": 0}, {"connector": name, "task": 1}] and got[1]["config"]["task.index"] == "1"),
])
def test_task_configs(roles: Roles, path: str, check: Any) -> None:
    name = unique()
    create(roles.leader, name, 2)
    got = wait_for(lambda: (lambda c: c if len(c) == 2 else None)(
        roles.follower.request("GET", f"/connectors/{name}/{path}").json()), 30, "two task configs")
    assert check(name, got), got


@pytest.mark.kafka("ConnectorsResourceTest.testPutConnectorConfig")
def test_put_connector_config(roles: Roles) -> None:
    name = unique()
    create(roles.leader, name, initial_state="PAUSED")
    r = roles.follower.request("PUT", f"/connectors/{name}/config", {**config(name), "rate": "7"})
    assert r.status_code == 200 and "location" not in r.headers and r.json()["config"]["rate"] == "7"


@pytest.mark.kafka("ConnectorsResourceTest.testCreateConnectorWithSpecialCharsInName")
def test_create_connector_with_special_chars_in_name(roles: Roles) -> None:
    # Kafka's mock takes a name with "/", but no REST path could then read or delete the connector (an
    # encoded slash is a path separator): refused here. Kafka's other special characters stay.
    r = roles.follower.request("POST", "/connectors", {"name": SPECIAL, "config": config("special")})
    assert r.status_code == 400 and "a connector name may not contain '/'" in r.json()["message"], r.text
    name = SPECIAL.replace("/", "") + unique()
    r = create(roles.follower, name, initial_state="STOPPED")
    assert location_path(r) == f"/connectors/{name}"


@pytest.mark.kafka("ConnectorsResourceTest.testPutConnectorConfigWithSpecialCharsInName")
def test_put_connector_config_with_special_chars_in_name(roles: Roles) -> None:
    # A URL path segment cannot hold "/", so the name is Kafka's without it; sent to the follower so the
    # forwarded request has to encode it again.
    name = SPECIAL.replace("/", "") + unique()
    r = roles.follower.request("PUT", f"/connectors/{quote(name, safe='')}/config", config("special"))
    assert r.status_code == 201, r.text
    assert location_path(r) == f"/connectors/{name}" and r.headers["location"].startswith(roles.follower.url)
    assert r.json()["name"] == name
    assert roles.leader.request("DELETE", f"/connectors/{quote(name, safe='')}").status_code == 204


@pytest.mark.parametrize(("method", "path", "body"), [
    # Kafka's mock takes the name; Connect's name validator (NonEmptyStringWithoutControlChars) does not.
    case("testCreateConnectorWithControlSequenceInName", "POST", "/connectors",
         {"name": CONTROL, "config": config("control")}),
    case("testPutConnectorConfigWithControlSequenceInName", "PUT",
         f"/connectors/{quote(CONTROL.replace('/', ''), safe='')}/config", config("control")),
])
def test_control_sequence_in_name(roles: Roles, method: str, path: str, body: Any) -> None:
    r = roles.follower.request(method, path, body)
    assert r.status_code == 400
    assert "String may not contain control sequences but had the following ASCII chars: 10" in r.json()["message"]


@pytest.mark.parametrize("via", [case("testRestartConnectorAndTasksLeaderRedirect", "follower"),
                                 case("testRestartConnectorAndTasksRequestAccepted", "leader")])
def test_restart_connector_and_tasks(roles: Roles, via: str) -> None:
    name = unique()
    create(roles.leader, name, 2)
    reaches(roles.follower, name, "RUNNING", 2)
    r = getattr(roles, via).request("POST", f"/connectors/{name}/restart?includeTasks=true&onlyFailed=false")
    assert r.status_code == 202 and r.json()["name"] == name and r.json()["type"] == "source"
    assert r.json()["connector"]["state"] == "RESTARTING"
    assert [t["state"] for t in r.json()["tasks"]] == ["RESTARTING", "RESTARTING"]
    reaches(roles.leader, name, "RUNNING", 2)


@pytest.mark.parametrize("via", [case("testRestartConnectorLeaderRedirect", "follower"),
                                 case("testRestartConnectorOwnerRedirect", "non-owner")])
def test_restart_connector(roles: Roles, via: str) -> None:
    name = unique()
    create(roles.leader, name)
    owner = reaches(roles.leader, name, "RUNNING")["connector"]["worker_id"]
    sender = roles.follower if via == "follower" else next(w for w in roles if w.worker_id != owner)
    before = starts(roles, f"[{name}] starting connector")
    r = sender.request("POST", f"/connectors/{name}/restart")
    assert (r.status_code, r.content) == (204, b"")
    wait_for(lambda: starts(roles, f"[{name}] starting connector") > before, 30, "the owner restarted it")


@pytest.mark.parametrize("via", [case("testRestartTaskLeaderRedirect", "follower"),
                                 case("testRestartTaskOwnerRedirect", "leader")])
def test_restart_task(roles: Roles, via: str) -> None:
    """Through the follower a task the leader runs; through the leader one the follower runs."""
    name = unique()
    create(roles.leader, name, 4)
    tasks = reaches(roles.leader, name, "RUNNING", 4)["tasks"]
    owner = roles.leader if via == "follower" else roles.follower
    task = next(t["id"] for t in tasks if t["worker_id"] == owner.worker_id)
    before = starts(roles, f"[{name}-{task}] starting task")
    assert getattr(roles, via).request("POST", f"/connectors/{name}/tasks/{task}/restart").status_code == 204
    wait_for(lambda: starts(roles, f"[{name}-{task}] starting task") > before, 30, "the owner restarted the task")


@pytest.mark.parametrize(("worker", "method", "path", "message"), [
    case("testConnectorActiveTopicsWithTopicTrackingDisabled", "leader", "GET", "topics",
         "Topic tracking is disabled."),
    case("testResetConnectorActiveTopicsWithTopicTrackingDisabled", "leader", "PUT", "topics/reset",
         "Topic tracking is disabled."),
    case("testResetConnectorActiveTopicsWithTopicTrackingEnabled", "follower", "PUT", "topics/reset",
         "Topic tracking reset is disabled."),
])
def test_topic_tracking_switched_off(odd: Roles, worker: str, method: str, path: str, message: str) -> None:
    error(getattr(odd, worker).request(method, f"/connectors/test/{path}"), 403, message)


@pytest.mark.parametrize("reset", [case("testConnectorActiveTopics", False),
                                   case("testResetConnectorActiveTopics", True)])
def test_active_topics(roles: Roles, reset: bool) -> None:
    name = unique()
    create(roles.leader, name, count="3", rate="50")  # three records, then the task idles

    def topics() -> Any:
        return roles.follower.request("GET", f"/connectors/{name}/topics").json()
    wait_for(lambda: topics() == {name: {"topics": [f"{name}-out"]}}, 30, "the topic tracked")
    if reset:
        r = roles.follower.request("PUT", f"/connectors/{name}/topics/reset")
        assert (r.status_code, r.content) == (202, b"")
        wait_for(lambda: topics() == {name: {"topics": []}}, 30, "reset")


@pytest.mark.kafka("RestClientTest.testIOExceptionCausesInternalServerError")
def test_io_exception_causes_internal_server_error(odd: Roles) -> None:
    # The leader advertises a port nobody listens on: forwarding to it fails with a refused connection.
    body = {"name": "fwd", "config": config("fwd")}
    r: Any = wait_for(lambda: (lambda resp: resp if resp.status_code != 409 else None)(
        odd.follower.request("POST", "/connectors", body)), 30, "the follower knows the leader's URL")
    assert (r.status_code, r.json()["error_code"]) == (500, 500), r.text
    assert r.json()["message"].startswith("IO Error trying to forward REST request: ConnectError: ")
    assert "Connection refused" in r.json()["message"]


@pytest.mark.parametrize(("via", "method", "body", "answer", "after"), [
    case("testGetOffsets", "follower", "GET", None, {"offsets": [{"partition": {"task": 0}, "offset": {"seq": 2}}]},
         None),
    case("testAlterOffsets", "leader", "PATCH", NEW_OFFSETS, ALTERED, NEW_OFFSETS),
    case("testAlterOffsetsNotLeader", "follower", "PATCH", NEW_OFFSETS, ALTERED, NEW_OFFSETS),
    case("testResetOffsets", "leader", "DELETE", None, RESET, {"offsets": []}),
    case("testResetOffsetsNotLeader", "follower", "DELETE", None, RESET, {"offsets": []}),
])
def test_offsets(roles: Roles, via: str, method: str, body: Any, answer: Any, after: Any) -> None:
    name = stopped_with_offsets(roles.leader)
    r = getattr(roles, via).request(method, f"/connectors/{name}/offsets", body)
    assert (r.status_code, r.json()) == (200, answer)
    assert after is None or roles.leader.request("GET", f"/connectors/{name}/offsets").json() == after
