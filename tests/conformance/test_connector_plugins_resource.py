"""Ports of Kafka's ConnectorPluginsResourceTest, over real HTTP against a real worker.

Kafka's cases call the resource with a mocked herder; here the worker's own herder answers, so where
the two differ the answer is what a real Kafka worker gives (noted on the case).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from pyconnect.api import ConfigDef, ConfigKey, ConfigType, ConfigValue, Importance
from tests.harness.brokers import Broker
from tests.harness.plugins import ValidateOnlyConnector
from tests.harness.workers import Cluster, WorkerProcess

TEST_CONNECTOR = "ConnectorPluginsResourceTestConnector"


class ConnectorPluginsResourceTestConnector(ValidateOnlyConnector):
    """Kafka's test connector: four keys, two of them with recommended values. Workers load it by
    its Python path, so `connector.class` is that path, which ends with the simple name as Kafka's does."""

    CONFIG = ConfigDef([
        ConfigKey("test.string.config", ConfigType.STRING, importance=Importance.HIGH,
                  documentation="Test configuration for string type."),
        ConfigKey("test.int.config", ConfigType.INT, importance=Importance.MEDIUM,
                  documentation="Test configuration for integer type.", group="Test", order=1, width="MEDIUM",
                  display_name="test.int.config"),
        ConfigKey("test.string.config.default", ConfigType.STRING, "", Importance.LOW,
                  "Test configuration with default value."),
        ConfigKey("test.list.config", ConfigType.LIST, importance=Importance.HIGH,
                  documentation="Test configuration for list type.", group="Test", order=2, width="LONG",
                  display_name="test.list.config"),
    ])
    RECOMMENDED = {"test.int.config": ["1", "2", "3"], "test.list.config": ["a", "b", "c"]}

    def validate(self, config: Mapping[str, str]) -> dict[str, ConfigValue]:
        values = self.CONFIG.validate_all(config)
        for name, recommended in self.RECOMMENDED.items():
            values[name].recommended_values = list(recommended)
        return values



CLASS_PATH = f"{__name__}:{TEST_CONNECTOR}"
PARTIAL_PROPS = {"name": "test", "test.string.config": "testString", "test.int.config": "1",
                 "test.list.config": "a,b"}
PROPS = {**PARTIAL_PROPS, "connector.class": CLASS_PATH}

# Kafka's expected ConfigInfo entries for the test connector's keys with PROPS.
EXPECTED = {
    "test.string.config": (
        {"name": "test.string.config", "type": "STRING", "required": True, "default_value": None,
         "importance": "HIGH", "documentation": "Test configuration for string type.", "group": None, "order": -1,
         "width": "NONE", "display_name": "test.string.config", "dependents": []},
        {"name": "test.string.config", "value": "testString", "recommended_values": [], "errors": [],
         "visible": True}),
    "test.int.config": (
        {"name": "test.int.config", "type": "INT", "required": True, "default_value": None, "importance": "MEDIUM",
         "documentation": "Test configuration for integer type.", "group": "Test", "order": 1, "width": "MEDIUM",
         "display_name": "test.int.config", "dependents": []},
        {"name": "test.int.config", "value": "1", "recommended_values": ["1", "2", "3"], "errors": [],
         "visible": True}),
    "test.string.config.default": (
        {"name": "test.string.config.default", "type": "STRING", "required": False, "default_value": "",
         "importance": "LOW", "documentation": "Test configuration with default value.", "group": None,
         "order": -1, "width": "NONE", "display_name": "test.string.config.default", "dependents": []},
        {"name": "test.string.config.default", "value": "", "recommended_values": [], "errors": [],
         "visible": True}),
    "test.list.config": (
        {"name": "test.list.config", "type": "LIST", "required": True, "default_value": None, "importance": "HIGH",
         "documentation": "Test configuration for list type.", "group": "Test", "order": 2, "width": "LONG",
         "display_name": "test.list.config", "dependents": []},
        {"name": "test.list.config", "value": "a,b", "recommended_values": ["a", "b", "c"], "errors": [],
         "visible": True}),
}


@pytest.fixture(scope="module")
def worker(broker: Broker, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    cluster = Cluster(broker, tmp_path_factory.mktemp("plugins-resource"), f"cpr-{uuid.uuid4().hex[:6]}")
    (w,) = cluster.start(1)
    yield w
    cluster.close()


def validate(w: WorkerProcess, plugin: str, props: Mapping[str, str]) -> Any:
    return w.request("PUT", f"/connector-plugins/{plugin}/config/validate", dict(props))


def assert_valid(body: dict[str, Any]) -> None:
    """The answer Kafka's case expects for PROPS: the class as given, no errors, the keys' entries."""
    assert body["name"] == CLASS_PATH and body["error_count"] == 0
    assert "Test" in body["groups"]
    entries = {c["value"]["name"]: (c["definition"], c["value"]) for c in body["configs"]}
    for name, expected in EXPECTED.items():
        assert entries[name] == expected, name


@pytest.mark.kafka("ConnectorPluginsResourceTest.testValidateConfigWithSingleErrorDueToMissingConnectorClassname")
def test_validate_config_with_single_error_due_to_missing_connector_classname(worker: WorkerProcess) -> None:
    # Kafka's resource lets a config without connector.class through to the herder (its mock reports one
    # error); a real herder answers 400 naming the config.
    r = validate(worker, TEST_CONNECTOR, PARTIAL_PROPS)
    assert r.status_code == 400, r.text
    assert r.json() == {"error_code": 400, "message": "Connector config {name=test, test.string.config=testString, "
                                                      "test.int.config=1, test.list.config=a,b} contains no "
                                                      "connector type"}


@pytest.mark.kafka("ConnectorPluginsResourceTest.testValidateConfigWithSimpleName")
def test_validate_config_with_simple_name(worker: WorkerProcess) -> None:
    r = validate(worker, TEST_CONNECTOR, PROPS)
    assert r.status_code == 200, r.text
    assert_valid(r.json())


@pytest.mark.kafka("ConnectorPluginsResourceTest.testValidateConfigWithAlias")
def test_validate_config_with_alias(worker: WorkerProcess) -> None:
    r = validate(worker, "ConnectorPluginsResourceTest", PROPS)
    assert r.status_code == 200, r.text
    assert_valid(r.json())


@pytest.mark.kafka("ConnectorPluginsResourceTest.testValidateConfigWithNonExistentName")
def test_validate_config_with_non_existent_name(worker: WorkerProcess) -> None:
    plugin = f"com.custom.package.{TEST_CONNECTOR}"
    r = validate(worker, plugin, PROPS)
    assert r.status_code == 400
    assert r.json()["message"] == f"Included connector type {CLASS_PATH} does not match request type {plugin}"


@pytest.mark.kafka("ConnectorPluginsResourceTest.testValidateConfigWithNonExistentAlias")
def test_validate_config_with_non_existent_alias(worker: WorkerProcess) -> None:
    r = validate(worker, "ConnectorPluginsTest", PROPS)
    assert r.status_code == 400
    assert r.json()["message"] == f"Included connector type {CLASS_PATH} does not match request type " \
                                  "ConnectorPluginsTest"


@pytest.mark.kafka("ConnectorPluginsResourceTest.testListConnectorPlugins")
def test_list_connector_plugins(worker: WorkerProcess) -> None:
    plugins = worker.request("GET", "/connector-plugins").json()
    assert plugins == worker.request("GET", "/connector-plugins?connectorsOnly=true").json()
    assert {p["type"] for p in plugins} <= {"source", "sink"}
    assert {"org.apache.kafka.connect.mirror.MirrorSourceConnector", "org.apache.kafka.connect.mirror."
            "MirrorCheckpointConnector", "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector"} <= {
        p["class"] for p in plugins}


@pytest.mark.kafka("ConnectorPluginsResourceTest.testConnectorPluginsIncludesClassTypeAndVersionInformation")
def test_connector_plugins_includes_class_type_and_version_information(worker: WorkerProcess) -> None:
    plugins = worker.request("GET", "/connector-plugins").json()
    source = next(p for p in plugins if p["class"] == "org.apache.kafka.connect.mirror.MirrorSourceConnector")
    assert source == {"class": "org.apache.kafka.connect.mirror.MirrorSourceConnector", "type": "source",
                      "version": source["version"]} and source["version"]


@pytest.mark.kafka("ConnectorPluginsResourceTest.testListAllPlugins")
def test_list_all_plugins(worker: WorkerProcess) -> None:
    everything = worker.request("GET", "/connector-plugins?connectorsOnly=false").json()
    connectors = worker.request("GET", "/connector-plugins").json()
    assert all(p in everything for p in connectors)
    assert {"class": "org.apache.kafka.connect.json.JsonConverter", "type": "converter"}.items() <= next(
        p for p in everything if p["class"].endswith("JsonConverter")).items()
    listed = {(p["class"], p["type"]) for p in everything}
    # As Connect lists them: the built-in converters are header converters too, SimpleHeaderConverter only one.
    assert {("org.apache.kafka.connect.storage.SimpleHeaderConverter", "header_converter"),
            ("org.apache.kafka.connect.storage.StringConverter", "header_converter"),
            ("org.apache.kafka.connect.storage.StringConverter", "converter"),
            ("org.apache.kafka.connect.file.FileStreamSinkConnector", "sink"),
            ("org.apache.kafka.connect.file.FileStreamSourceConnector", "source")} <= listed
    assert ("org.apache.kafka.connect.storage.SimpleHeaderConverter", "converter") not in listed
    assert len({(p["class"], p["type"]) for p in everything}) == len(everything), "no duplicates"


@pytest.mark.kafka("ConnectorPluginsResourceTest.testGetConnectorConfigDef")
def test_get_connector_config_def(worker: WorkerProcess) -> None:
    r = worker.request("GET", f"/connector-plugins/{CLASS_PATH}/config")
    assert r.status_code == 200, r.text
    keys = r.json()
    # The plugin's own keys come first, in its order, then the common ones it does not define.
    assert [k["name"] for k in keys[:4]] == list(ConnectorPluginsResourceTestConnector.CONFIG.keys)
    assert keys[:4] == [definition for definition, _ in EXPECTED.values()]
    assert {"name", "connector.class", "tasks.max"} <= {k["name"] for k in keys[4:]}
