"""Bad connector configs through REST get one clear 400 and nothing is applied.

Against a real worker on a real broker: each bad request answers 400 with Connect's
`{"error_code", "message"}` naming the key, the connector is not created (or its config not changed),
and its records never land. Kafka's behaviour followed: ConnectorsResource.createConnector (trimmed
name, `checkAndPutConnectorConfigName`), AbstractHerder.validateConnectorConfig (the null-value error
"Null value can not be supplied as the configuration value.", added to a ConfigInfo whose definition is
null when the key is not defined) and ConfigDef.NonEmptyStringWithoutControlChars (the name's rules).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.harness.brokers import Broker
from tests.harness.connectors import all_running, sequence_connector
from tests.harness.kafka_io import create_topic, produce_many, read_all, read_messages, topic_names
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, WorkerProcess, wait_for

NULL = "Null value can not be supplied as the configuration value."
VALIDATE = "/connector-plugins/{}/config/validate"


def _cluster(broker: Broker, tmp: Any, extra: dict[str, str] | None = None) -> Iterator[WorkerProcess]:
    cluster = Cluster(broker, tmp, f"bad-{uuid.uuid4().hex[:6]}", extra)
    (w,) = cluster.start(1)
    yield w
    cluster.close()


@pytest.fixture(scope="module")
def worker(broker_b: Broker, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    """A worker on B (the mirror's target) with the default connector.config.unknown.keys=warn."""
    yield from _cluster(broker_b, tmp_path_factory.mktemp("warn"))


@pytest.fixture(scope="module")
def refusing(broker_b: Broker, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    """A worker on B with connector.config.unknown.keys=refuse."""
    yield from _cluster(broker_b, tmp_path_factory.mktemp("refuse"), {"connector.config.unknown.keys": "refuse"})


def refused(r: Any, *parts: str) -> str:
    """Assert Connect's 400 body whose message holds every part; return the message."""
    assert r.status_code == 400, (r.status_code, r.text)
    body = r.json()
    assert set(body) == {"error_code", "message"} and body["error_code"] == 400, body
    for part in parts:
        assert part in body["message"], (part, body["message"])
    return str(body["message"])


def absent(w: WorkerProcess, name: str) -> None:
    assert name not in w.request("GET", "/connectors").json()
    assert w.request("GET", f"/connectors/{name}").status_code == 404


def landed(bootstrap: str, topic: str, count: int) -> None:
    """Wait until `count` records are in `topic`, then assert no more arrive."""
    wait_for(lambda: len(read_all(bootstrap, topic, expect=count, timeout=5)) >= count, 60, f"{count} in {topic}")
    assert len(read_all(bootstrap, topic, idle=2)) == count, f"exactly {count} in {topic}"


def sequence(name: str, **extra: Any) -> dict[str, Any]:
    body = sequence_connector(name, f"{name}-out", 1, 20, 1000)
    body["config"].update(extra)
    return body


def test_null_values_are_400_naming_the_key_and_nothing_is_created(worker: WorkerProcess, broker_b: Broker) -> None:
    """AbstractHerder.validateConnectorConfig: a null value is an error on its key (today here: 201, then a
    TypeError in the status)."""
    name = f"null-{uuid.uuid4().hex[:6]}"
    refused(worker.request("POST", "/connectors", sequence(name, count=None)),
            "Invalid value null for configuration count", NULL)
    refused(worker.request("PUT", f"/connectors/{name}/config", {**sequence(name)["config"], "rate": None}),
            "configuration rate", NULL)
    absent(worker, name)
    # The validation answer has Connect's shape: the error on the defined key, and an entry of its own
    # (definition null) for a key the definition lacks.
    r = worker.request("PUT", VALIDATE.format("SequenceSourceConnector"),
                       {**sequence(name)["config"], "name": name, "count": None, "no.such.key": None})
    assert r.status_code == 200 and r.json()["error_count"] == 2, r.text
    by_name = {c["value"]["name"]: c for c in r.json()["configs"]}
    assert by_name["count"]["value"]["errors"] == [NULL] and by_name["count"]["definition"]["name"] == "count"
    assert by_name["no.such.key"] == {"definition": None, "value": {
        "name": "no.such.key", "value": None, "recommended_values": [], "errors": [NULL], "visible": True}}
    # An existing connector keeps its config when a replacement carries a null.
    assert worker.request("POST", "/connectors", sequence(name)).status_code == 201
    before = worker.request("GET", f"/connectors/{name}/config").json()
    refused(worker.request("PUT", f"/connectors/{name}/config", {**before, "topic": None}), "configuration topic")
    assert worker.request("GET", f"/connectors/{name}/config").json() == before
    # A null `name` is the one exception: ConnectorsResource.checkAndPutConnectorConfigName puts the URL's.
    r = worker.request("PUT", f"/connectors/{name}/config", {**before, "name": None})
    assert r.status_code == 200 and r.json()["config"]["name"] == name, r.text
    wait_for(lambda: all_running(worker, name, 1), 30, "the valid connector runs")
    landed(broker_b.bootstrap, f"{name}-out", 20)
    assert worker.request("DELETE", f"/connectors/{name}").status_code == 204


@pytest.mark.parametrize(("name", "parts"), [
    ("a/b", ("may not contain '/'",)),
    ("..", ("may not be '.' or '..'",)),
    ("bad\u0001name", ("String may not contain control sequences but had the following ASCII chars: 1",)),
    ("bad\u0085name", ("following ASCII chars: 133",)),
    ("   ", ("String may not be empty",)),
])
def test_names_connect_refuses_or_rest_cannot_address_are_400(worker: WorkerProcess, name: str,
                                                              parts: tuple[str, ...]) -> None:
    """Connect's name rules (NonEmptyStringWithoutControlChars after ConnectorsResource trims the name) and
    the names no REST path can address: `a/b` would be created and then never read or deleted."""
    refused(worker.request("POST", "/connectors", sequence(name)), "configuration name", *parts)
    assert name.strip() not in worker.request("GET", "/connectors").json()


def test_unknown_config_provider_is_400_and_other_dollar_braces_pass(worker: WorkerProcess, broker_b: Broker) -> None:
    """Kafka's ConfigTransformer would leave `${vault:...}` in place and run the connector with it: here a
    placeholder naming no configured provider is refused, naming the key and the provider. `${topic}`
    (no provider syntax, as in TimestampRouter's format) is not a placeholder: it passes and is kept."""
    name = f"prov-{uuid.uuid4().hex[:6]}"
    refused(worker.request("POST", "/connectors", sequence(name, topic="${vault:secret/data/db:topic}")),
            "configuration topic", "config provider 'vault'", "not configured")
    absent(worker, name)
    assert f"{name}-out" not in topic_names(broker_b.bootstrap)
    literal = {"transforms": "h", "transforms.h.type": "org.apache.kafka.connect.transforms.InsertHeader",
               "transforms.h.header": "fmt", "transforms.h.value.literal": "${topic}-${timestamp}"}
    assert worker.request("POST", "/connectors", sequence(name, **literal)).status_code == 201
    landed(broker_b.bootstrap, f"{name}-out", 20)
    headers = {h for m in read_messages(broker_b.bootstrap, f"{name}-out") for h in m.headers() or ()}
    assert headers == {("fmt", b"${topic}-${timestamp}")}, "kept as written"
    assert worker.request("DELETE", f"/connectors/{name}").status_code == 204


@pytest.mark.parametrize("java_class", ["io.confluent.connect.jdbc.JdbcSourceConnector",
                                        "io.debezium.connector.mysql.MySqlConnector"])
def test_java_only_class_says_jars_do_not_load(worker: WorkerProcess, java_class: str) -> None:
    name = f"java-{uuid.uuid4().hex[:6]}"
    body = {"name": name, "config": {"connector.class": java_class, "tasks.max": "1"}}
    message = refused(worker.request("POST", "/connectors", body), java_class, "JARs", "do not load",
                      "'pyconnect.plugins' entry-point group", "pip install")
    assert message.startswith("Failed to find any class that implements Connector"), message  # Connect's words first
    refused(worker.request("PUT", VALIDATE.format(java_class), body["config"]), "JARs")
    absent(worker, name)


def test_typo_warns_with_the_suggestion_and_refuse_mode_makes_it_a_400(
        worker: WorkerProcess, refusing: WorkerProcess, broker: Broker, broker_b: Broker) -> None:
    """The issue's case: a second MirrorSourceConnector whose `topics` is typed `topcis` falls back to
    topics=.* and copies a topic a second time. Warned by default (log and /config/validate, error_count 0,
    the suggestion in the entry's definition); refused with connector.config.unknown.keys=refuse, and
    then the topic is copied once: exactly its 300 records on the target."""
    topic = f"typo{uuid.uuid4().hex[:6]}"
    create_topic(broker.bootstrap, topic, 1)
    produce_many(broker.bootstrap, topic, 300, 1)
    typo = mirror_source(broker, broker_b, {"topcis": topic, "name": "first"})
    r = worker.request("PUT", VALIDATE.format("MirrorSourceConnector"), typo)
    assert r.status_code == 200 and r.json()["error_count"] == 0, [c for c in r.json()["configs"]
                                                                    if c["value"]["errors"]]
    (entry,) = [c for c in r.json()["configs"] if c["value"]["name"] == "topcis"]
    assert entry["value"] == {"name": "topcis", "value": None, "recommended_values": [], "errors": [],
                              "visible": True}, "no value shown: a typo'd key may hold a secret"
    assert entry["definition"]["documentation"].startswith("topcis: unknown key; did you mean topics?")
    assert set(entry["definition"]) == {"name", "type", "required", "default_value", "importance",
                                        "documentation", "group", "order", "width", "display_name", "dependents"}
    # The warning in the log, with the create (Stopped at once: this worker must not copy .* here.)
    r = worker.request("POST", "/connectors", {"name": "first", "config": typo, "initial_state": "STOPPED"})
    assert r.status_code == 201, r.text
    wait_for(lambda: "topcis: unknown key; did you mean topics?" in worker.log_path.read_text(), 10, "warning")
    assert worker.request("DELETE", "/connectors/first").status_code == 204
    # Refused: 400 naming the key and the suggestion, nothing created.
    r = refusing.request("PUT", VALIDATE.format("MirrorSourceConnector"), typo)
    assert r.json()["error_count"] == 1
    (entry,) = [c for c in r.json()["configs"] if c["value"]["errors"]]
    assert entry["value"]["errors"] == ["topcis: unknown key; did you mean topics?"]
    refused(refusing.request("POST", "/connectors", {"name": "first", "config": typo}),
            "topcis: unknown key; did you mean topics?")
    absent(refusing, "first")
    fixed = mirror_source(broker, broker_b, {"topics": topic})  # the same connector, key spelt right
    assert refusing.request("POST", "/connectors", {"name": "second", "config": fixed}).status_code == 201
    landed(broker_b.bootstrap, f"A.{topic}", 300)
    assert refusing.request("GET", "/connectors").json() == ["second"]
    assert refusing.request("DELETE", "/connectors/second").status_code == 204
