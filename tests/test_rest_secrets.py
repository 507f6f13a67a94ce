"""Secrets never leave through the REST API, and a GET-edit-PUT round trip keeps them.

Connect answers stored configs raw (ConnectorsResource.getConnectorConfig); this runtime deliberately shows
secrets as `[hidden]`, as Connect's own /config/validate shows PASSWORD values. Workers are real processes
on the harness's broker; the stored values are read back from the config topic itself.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tests.harness import password_plugins
from tests.harness.brokers import Broker
from tests.harness.connectors import all_running
from tests.harness.java_mm2_kafka import read_configs
from tests.harness.workers import Cluster, WorkerProcess, wait_for

SECRETS = {
    "pin": "pw-pin-1",  # PASSWORD in the plugin's ConfigDef: secret by its type, not its name
    "source.cluster.ssl.key.password": "pw-key-2",
    "sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" '
                        'password="pw-jaas-3";',
    "db.basic.auth.user.info": "user:pw-info-4",
}


def connector_config(secret_file: Path) -> dict[str, str]:
    return {"connector.class": password_plugins.PATH, "tasks.max": "1", **SECRETS,
            # A provider placeholder says where the secret is, not what it is: shown as written.
            "ssl.truststore.password": f"${{file:{secret_file}:pw}}",
            "note": "[hidden]"}  # not a secret key: a literal value, kept as such


def answers(worker: WorkerProcess, name: str) -> dict[str, str]:
    """Every answer that carries a config (or the console's view of one), by path."""
    paths = [f"/connectors/{name}/config", f"/connectors/{name}", "/connectors?expand=info",
             "/connectors?expand=info&expand=status", f"/connectors/{name}/tasks", f"/connectors/{name}/tasks-config",
             "/ui", "/ui/state"]
    out = {}
    for path in paths:
        r = worker.request("GET", path)
        assert r.status_code == 200, (path, r.status_code, r.text)
        out[path] = r.text
    return out


def assert_no_secret(texts: dict[str, str]) -> None:
    for path, text in texts.items():
        leaked = [v for v in ("pw-pin-1", "pw-key-2", "pw-jaas-3", "pw-info-4", "pw-file-5") if v in text]
        assert not leaked, f"{path} answers {leaked}: {text[:400]}"


def stored(cluster: Cluster, name: str) -> dict[str, Any]:
    """The connector's config as the config topic holds it (what its tasks are given)."""
    return dict(read_configs(cluster.broker.bootstrap, f"{cluster.group}-configs").connectors[name])


def test_no_secret_in_any_answer_and_round_trip_keeps_them(cluster_factory: Callable[..., Cluster],
                                                           broker: Broker, tmp_path: Path) -> None:
    """Every config-returning endpoint, on both workers, shows `[hidden]` for each secret (by name or by
    PASSWORD type) and the placeholder as written; a GET-edit-PUT on one worker and a PATCH on the other
    (one of them forwards to the leader) store the original secrets, not `[hidden]`."""
    secret_file = tmp_path / "secrets.properties"
    secret_file.write_text("pw=pw-file-5\n")
    cluster = cluster_factory()
    first, second = cluster.start(2)
    config = connector_config(secret_file)
    created = first.request("POST", "/connectors", {"name": "pins", "config": config})
    assert created.status_code == 201, created.text
    wait_for(lambda: all_running(first, "pins", 1), 60, "pins running")
    for worker in (first, second):
        texts = answers(worker, "pins")
        assert_no_secret({**texts, "POST": created.text})
    shown = first.request("GET", "/connectors/pins/config").json()
    assert {k: shown[k] for k in SECRETS} == dict.fromkeys(SECRETS, "[hidden]")
    assert shown["ssl.truststore.password"] == config["ssl.truststore.password"] and shown["note"] == "[hidden]"
    (task,) = first.request("GET", "/connectors/pins/tasks").json()
    assert task["config"]["pin"] == "[hidden]" and task["config"]["source.cluster.ssl.key.password"] == "[hidden]"

    edited = {**shown, "tasks.max": "2", "note": "edited"}
    put = second.request("PUT", "/connectors/pins/config", edited)
    assert put.status_code == 200, put.text
    assert_no_secret({"PUT": put.text})
    want = {**config, "name": "pins", "tasks.max": "2", "note": "edited"}
    wait_for(lambda: stored(cluster, "pins") == want, 30, f"the config topic holding {want}")

    patch = first.request("PATCH", "/connectors/pins/config", {"pin": "[hidden]", "tasks.max": "1"})
    assert patch.status_code == 200, patch.text
    assert_no_secret({"PATCH": patch.text})
    wait_for(lambda: stored(cluster, "pins") == {**want, "tasks.max": "1"}, 30, "the patch in the config topic")
    assert first.request("GET", "/connectors/pins/config").json() == {**shown, "note": "edited"}


def test_hidden_without_a_stored_value_is_refused(cluster_factory: Callable[..., Cluster], tmp_path: Path) -> None:
    """`[hidden]` for a secret the connector has no value for (a new connector, or a key it never had) is a
    400 naming the key, and nothing is written."""
    (worker,) = cluster_factory().start(1)
    base = {"connector.class": password_plugins.PATH, "tasks.max": "1"}
    for method, path, body in (
            ("PUT", "/connectors/fresh/config", {**base, "pin": "[hidden]"}),
            ("POST", "/connectors", {"name": "fresh", "config": {**base, "sasl.jaas.config": "[hidden]"}})):
        r = worker.request(method, path, body)
        assert r.status_code == 400, (method, r.text)
        body_json = r.json()
        assert body_json["error_code"] == 400 and "fresh" in body_json["message"], body_json
        assert ("pin" if method == "PUT" else "sasl.jaas.config") in body_json["message"], body_json
    assert worker.request("GET", "/connectors/fresh").status_code == 404

    assert worker.request("PUT", "/connectors/old/config", base).status_code == 201
    r = worker.request("PATCH", "/connectors/old/config", {"db.password": "[hidden]"})
    assert r.status_code == 400 and "db.password" in r.json()["message"], r.text
    assert "db.password" not in worker.request("GET", "/connectors/old/config").json()
    assert httpx.codes.is_success(worker.request("DELETE", "/connectors/old").status_code)
