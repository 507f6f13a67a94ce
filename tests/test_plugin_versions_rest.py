"""Plugin versions (KIP-891) and the plugin config endpoint for every plugin type, against a real
worker with a third-party distribution installed (tests/harness/installed_plugin.py). Followed:
Kafka's ConnectorPluginsResource (`GET /connector-plugins?connectorsOnly=false`,
`GET /connector-plugins/{pluginName}/config?version=`), PluginVersionUtils and AbstractHerder's
validation of `*.plugin.version` (a mismatch is an error on the class key and the version key)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from pyconnect.api.plugin_version import project_version
from tests.harness import installed_plugin
from tests.harness.brokers import Broker
from tests.harness.connectors import all_running, committed, sequence_connector, status
from tests.harness.kafka_io import read_messages
from tests.harness.workers import Cluster, WorkerProcess, wait_for

TRANSFORMS = "org.apache.kafka.connect.transforms."
MISMATCH = "Plugin {} has version {} which does not match the required version range {}"


@pytest.fixture(scope="module")
def worker(broker: Broker, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    """One worker (shared by this module's tests) whose Python environment also has the `acme-smt`
    2.3.1 distribution."""
    directory = tmp_path_factory.mktemp("plugin-versions")
    cluster = Cluster(broker, directory, f"pv-{uuid.uuid4().hex[:6]}")
    cluster.python_path.append(str(installed_plugin.install(directory / "site")))
    (w,) = cluster.start(1)
    yield w
    cluster.close()


def errors_of(w: WorkerProcess, config: dict[str, str]) -> dict[str, list[str]]:
    v = w.request("PUT", "/connector-plugins/SequenceSourceConnector/config/validate", config).json()
    return {c["value"]["name"]: c["value"]["errors"] for c in v["configs"] if c["value"]["errors"]}


def test_every_plugin_type_is_listed_with_its_distributions_version(worker: WorkerProcess) -> None:
    """`?connectorsOnly=false` lists connectors, converters, header converters, transformations and
    predicates; built-ins carry the project's version, the third-party transform its distribution's."""
    listed = {(p["class"], p["type"]): p["version"]
              for p in worker.request("GET", "/connector-plugins?connectorsOnly=false").json()}
    ours = project_version()
    assert listed[(installed_plugin.CLASS, "transformation")] == installed_plugin.VERSION
    for name in ("Flatten$Value", "TimestampConverter$Key", "SetSchemaMetadata$Value", "RegexRouter"):
        assert listed[(TRANSFORMS + name, "transformation")] == ours, name
    for name in ("BooleanConverter", "ShortConverter", "IntegerConverter", "LongConverter", "FloatConverter",
                 "DoubleConverter", "ByteArrayConverter"):
        for kind in ("converter", "header_converter"):
            assert listed[(f"org.apache.kafka.connect.converters.{name}", kind)] == ours, (name, kind)
    assert listed[("org.apache.kafka.connect.storage.SimpleHeaderConverter", "header_converter")] == ours
    assert listed[(TRANSFORMS + "predicates.HasHeaderKey", "predicate")] == ours
    assert {t for _, t in listed} == {"source", "sink", "converter", "header_converter", "transformation",
                                      "predicate"}
    connectors_only = worker.request("GET", "/connector-plugins").json()
    assert {p["type"] for p in connectors_only} == {"source", "sink"}


def test_config_endpoint_answers_for_every_plugin_type(worker: WorkerProcess) -> None:
    """`/connector-plugins/<plugin>/config` for a transformation, converter, header converter, predicate
    and the third-party transform, by full or simple name; an unknown plugin is 404, a version outside
    `?version=` is 400 with Kafka's message."""
    def names(plugin: str, query: str = "") -> list[str]:
        r = worker.request("GET", f"/connector-plugins/{plugin}/config{query}")
        assert r.status_code == 200, r.text
        return [k["name"] for k in r.json()]

    assert names(TRANSFORMS + "TimestampConverter$Value") == ["field", "target.type", "format", "unix.precision",
                                                              "replace.null.with.default"]
    assert names("Flatten$Key") == ["delimiter"]
    assert names("SetSchemaMetadata$Value") == ["schema.name", "schema.version"]
    assert {"schemas.enable", "decimal.format", "converter.type"} <= set(names("JsonConverter"))
    assert names("org.apache.kafka.connect.converters.LongConverter") == ["converter.type"]
    assert names("SimpleHeaderConverter") == []
    assert names("HasHeaderKey") == ["name"]
    assert names(installed_plugin.CLASS, f"?version={installed_plugin.VERSION}") == ["prefix"]
    keys = worker.request("GET", "/connector-plugins/Flatten$Value/config").json()
    assert set(keys[0]) == {"name", "type", "required", "default_value", "importance", "documentation", "group",
                            "order", "width", "display_name", "dependents"}
    r = worker.request("GET", "/connector-plugins/NoSuchPlugin/config")
    assert r.status_code == 404 and set(r.json()) == {"error_code", "message"}
    r = worker.request("GET", f"/connector-plugins/{installed_plugin.CLASS}/config?version=[3.0,)")
    assert r.status_code == 400, r.text
    assert r.json()["message"] == MISMATCH.format(installed_plugin.CLASS, installed_plugin.VERSION, "[3.0,)")


def test_a_plugin_version_outside_the_installed_one_is_refused(worker: WorkerProcess, unique: str) -> None:
    """`transforms.<alias>.plugin.version`, `value.converter.plugin.version` and `connector.plugin.version`
    outside the installed version: errors on the class and version keys in validate, 400 on create and
    nothing created; a matching range is accepted, the transform runs, and the status carries the version."""
    topic = f"pv-{unique}"
    base = {**sequence_connector("pv", topic, 1, 50)["config"], "name": "pv", "transforms": "p",
            "transforms.p.type": "Prefix"}
    refusals = {
        "transforms.p.plugin.version": ("[3.0,)", "transforms.p.type",
                                        MISMATCH.format(installed_plugin.CLASS, installed_plugin.VERSION, "[3.0,)")),
        "value.converter.plugin.version": ("99.0", "value.converter", MISMATCH.format(
            "org.apache.kafka.connect.converters.LongConverter", project_version(), "[99.0]")),
        "connector.plugin.version": ("(,0.0.1)", "connector.class", "does not match the required version range "
                                                                    "(,0.0.1)"),
    }
    for key, (spec, class_key, message) in refusals.items():
        config = {**base, key: spec, "value.converter": "LongConverter"}
        found = errors_of(worker, config)
        assert any(message in e for e in found.get(key, [])), (key, found)
        assert any(message in e for e in found.get(class_key, [])), (class_key, found)
        r = worker.request("POST", "/connectors", {"name": "pv", "config": config})
        assert r.status_code == 400 and message in r.json()["message"], r.text
        assert set(r.json()) == {"error_code", "message"}
    bad = errors_of(worker, {**base, "transforms.p.plugin.version": "[2.0"})
    assert bad["transforms.p.plugin.version"] == ["Invalid value [2.0 for configuration transforms.p.plugin.version: "
                                                  "Unbounded range: [2.0"]
    assert worker.request("GET", "/connectors").json() == [], "no refused config was half-applied"

    accepted = {**base, "transforms.p.plugin.version": "[2.3,2.4)", "connector.plugin.version": project_version()}
    r = worker.request("POST", "/connectors", {"name": "pv", "config": accepted})
    assert r.status_code == 201, r.text
    wait_for(lambda: all_running(worker, "pv", 1), 60, "running")
    wait_for(lambda: committed(worker, "pv") >= 50, 60, "every record committed")
    values = sorted(m.value() for m in read_messages(worker_bootstrap(worker), topic, expect=50))
    assert len(values) == 50 and all(v.startswith(b"acme-0:") for v in values), values[:3]
    st = status(worker, "pv")
    assert st["connector"]["version"] == project_version()
    assert [t["version"] for t in st["tasks"]] == [project_version()]


def worker_bootstrap(w: WorkerProcess) -> str:
    return w.props["bootstrap.servers"]
