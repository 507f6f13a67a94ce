"""Connector-level converters replace the worker's for that connector's tasks (Connect's ConnectorConfig);
common keys the runtime does not implement are refused at creation, never accepted and ignored."""

from __future__ import annotations

import base64
from typing import Any

import orjson

from pyconnect.testing.brokers import Broker
from tests.harness.connectors import sequence_connector
from tests.harness.kafka_io import read_partitions
from tests.harness.workers import Cluster, wait_for


def records(broker: Broker, topic: str) -> list[bytes]:
    found = read_partitions(broker.bootstrap, topic, 3, timeout=5)
    return sorted(r[2] for rs in found.values() for r in rs)


def test_connector_value_converter_replaces_the_workers(cluster_factory: Any, broker: Broker, unique: str) -> None:
    cluster: Cluster = cluster_factory()
    (w,) = cluster.start(1)
    plain, json_ = f"plain-{unique}", f"json-{unique}"
    assert w.request("POST", "/connectors", sequence_connector("plain", plain, 1, 3)).status_code == 201
    body = sequence_connector("json", json_, 1, 3)
    body["config"]["value.converter"] = "org.apache.kafka.connect.json.JsonConverter"
    assert w.request("POST", "/connectors", body).status_code == 201
    raw = wait_for(lambda: records(broker, plain), 60, "plain records")
    wrapped = wait_for(lambda: records(broker, json_), 60, "json records")
    assert raw[0] == b"0:0", "the worker's converter writes the bytes as they are"
    envelope = orjson.loads(wrapped[0])
    assert envelope == {"schema": {"type": "bytes", "optional": False},
                        "payload": base64.b64encode(b"0:0").decode()}


def test_common_keys_are_checked_on_create(cluster_factory: Any, unique: str) -> None:
    cluster: Cluster = cluster_factory()
    (w,) = cluster.start(1)
    body = sequence_connector("t", f"t-{unique}", 1, 3)
    body["config"].update({"transforms": "route", "transforms.route.type": "RegexRouter", "errors.tolerance": "all"})
    r = w.request("POST", "/connectors", body)
    assert r.status_code == 400, r.text
    message = r.json()["message"]
    # A RegexRouter without its regex and replacement is Connect's two missing-key errors; error
    # tolerance is applied now (runtime/errors_handling), so `all` is no error.
    assert "contains the following 2 error(s)" in message, message
    assert 'Missing required configuration "transforms.route.regex" which has no default value.' in message
    assert "errors.tolerance" not in message
