"""Pluggable classes are honoured or refused, never accepted and ignored.

Unit checks of the loader, the MM2 and worker config definitions and config providers, then end to
end: a Python TopicFilter (with a value from a Python config provider) decides what a connector
replicates between two real brokers, and a bogus class is a 400 on create and an error in validate.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from connectors.mirror.config import CHECKPOINT, HEARTBEAT, SOURCE, MirrorConfig
from connectors.mirror.filters import DefaultTopicFilter, GroupFilter, TopicFilter
from connectors.mirror.policy import DefaultReplicationPolicy, IdentityReplicationPolicy, load_policy
from connectors.mirror.source_connector import READ_COMMITTED_NEEDED, MirrorSourceConnector
from pyconnect.api import ExactlyOnceSupport
from pyconnect.api.config_provider import ConfigProvider
from pyconnect.api.loading import ClassLoadError, load_class
from pyconnect.config import providers
from pyconnect.config.properties import ConfigFileError
from pyconnect.config.worker import WorkerConfig
from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic, produce_many, read_all
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, wait_for

HERE = "tests.test_pluggable_classes"
WORKER = {"group.id": "g", "config.storage.topic": "c", "offset.storage.topic": "o", "status.storage.topic": "s"}


class SuffixTopicFilter(TopicFilter):
    """Replicates the topics ending with the connector's `suffix.filter.suffix`."""

    suffix = "\0"

    def configure(self, config: Mapping[str, Any]) -> None:
        self.suffix = str(config["suffix.filter.suffix"])

    def should_replicate_topic(self, topic: str) -> bool:
        return topic.endswith(self.suffix)


class EchoConfigProvider(ConfigProvider):
    """`${echo:[path:]key}` -> `<prefix>key`, prefix from `config.providers.<name>.param.prefix`."""

    prefix = ""

    def configure(self, config: Mapping[str, str]) -> None:
        self.prefix = config.get("prefix", "")

    def get(self, path: str, keys: set[str]) -> dict[str, str]:
        return {k: f"{self.prefix}{path}|{k}" if path else f"{self.prefix}{k}" for k in keys}


@pytest.fixture(autouse=True)
def _no_installed_providers() -> Any:
    yield
    providers.install(None)  # a WorkerConfig built here installs its providers process-wide


# loader -------------------------------------------------------------------------------------

def test_class_names_resolve_as_java_or_python_names() -> None:
    for name in ("org.apache.kafka.connect.mirror.DefaultReplicationPolicy", "DefaultReplicationPolicy",
                 "connectors.mirror.policy.DefaultReplicationPolicy",
                 "connectors.mirror.policy:DefaultReplicationPolicy"):
        assert type(load_policy(name, {})) is DefaultReplicationPolicy, name
    assert type(load_policy("IdentityReplicationPolicy", {})) is IdentityReplicationPolicy
    with pytest.raises(ClassLoadError, match=r"^Class com\.example\.Nope could not be found\.$"):
        load_class("com.example.Nope", TopicFilter)
    with pytest.raises(ClassLoadError, match=f"{HERE}.EchoConfigProvider is not an instance of "
                                             "connectors.mirror.filters.TopicFilter"):
        load_class(f"{HERE}.EchoConfigProvider", TopicFilter)


def test_entry_points_of_the_kinds_group(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib.metadata import EntryPoint

    def entry_points(group: str) -> list[EntryPoint]:
        return [EntryPoint("suffix", f"{HERE}:SuffixTopicFilter", group)] if group == "pyconnect.topic_filters" else []

    monkeypatch.setattr("pyconnect.api.loading.entry_points", entry_points)
    config = MirrorConfig(SOURCE, {"source.cluster.alias": "A", "topic.filter.class": "suffix",
                                   "suffix.filter.suffix": "-x"})
    f = config.topic_filter()
    assert isinstance(f, SuffixTopicFilter) and f.should_replicate_topic("a-x") and not f.should_replicate_topic("a")


# MM2 connector configs ---------------------------------------------------------------------

def errors(definition: Any, **props: str) -> dict[str, list[str]]:
    values = definition.validate_all({"source.cluster.alias": "A", **props})
    return {k: v.errors for k, v in values.items() if v.errors}


@pytest.mark.parametrize(("definition", "key"), [
    (SOURCE, "topic.filter.class"), (CHECKPOINT, "topic.filter.class"), (CHECKPOINT, "group.filter.class"),
    (SOURCE, "config.property.filter.class"), (SOURCE, "replication.policy.class"),
    (HEARTBEAT, "replication.policy.class")])
def test_unknown_classes_are_validation_errors(definition: Any, key: str) -> None:
    assert errors(definition, **{key: "com.example.Nope"}) == {
        key: [f"Invalid value com.example.Nope for configuration {key}: Class com.example.Nope could not be found."]}
    assert "is not an instance of" in errors(definition, **{key: f"{HERE}.EchoConfigProvider"})[key][0]


def test_custom_filters_are_configured_with_the_connector_config() -> None:
    config = MirrorConfig(SOURCE, {"source.cluster.alias": "A", "topic.filter.class": f"{HERE}:SuffixTopicFilter",
                                   "suffix.filter.suffix": "-yes"})
    f = config.topic_filter()
    assert f.should_replicate_topic("t-yes") and not f.should_replicate_topic("t-no")
    assert isinstance(MirrorConfig(CHECKPOINT, {"source.cluster.alias": "A"}).group_filter(), GroupFilter)
    assert type(MirrorConfig(SOURCE, {"source.cluster.alias": "A"}).topic_filter()) is DefaultTopicFilter


def test_unimplemented_keys_are_refused() -> None:
    assert "Custom forwarding admin classes are not supported yet" in errors(
        SOURCE, **{"forwarding.admin.class": "my.Admin"})["forwarding.admin.class"][0]
    assert errors(SOURCE, **{"forwarding.admin.class": "org.apache.kafka.clients.admin.ForwardingAdmin"}) == {}



def test_mirror_source_exactly_once_needs_a_read_committed_source_consumer() -> None:
    """MirrorSourceConnectorTest.testExactlyOnceSupport and testExactlyOnceSupportValidation."""
    connector = MirrorSourceConnector()
    base = {"source.cluster.alias": "A", "target.cluster.alias": "B"}
    committed = {**base, "source.consumer.isolation.level": "read_committed"}
    assert connector.exactly_once_support(base) == ExactlyOnceSupport.UNSUPPORTED
    assert connector.exactly_once_support(committed) == ExactlyOnceSupport.SUPPORTED
    assert connector.exactly_once_support({**base, "consumer.isolation.level": "read_committed"}) == \
        ExactlyOnceSupport.SUPPORTED
    required = connector.validate({**base, "exactly.once.support": "required"})["exactly.once.support"].errors
    assert required == [READ_COMMITTED_NEEDED]
    assert "exactly.once.support" not in {k for k, v in connector.validate(
        {**committed, "exactly.once.support": "required"}).items() if v.errors}


# worker config ------------------------------------------------------------------------------

def worker_error(**extra: str) -> str:
    with pytest.raises(ConfigFileError) as err:
        WorkerConfig({**WORKER, **extra})
    return str(err.value)


def test_worker_converters_are_the_implemented_ones() -> None:
    for name in ("org.apache.kafka.connect.storage.SimpleHeaderConverter", "StringConverter",
                 "org.apache.kafka.connect.converters.ByteArrayConverter",
                 "org.apache.kafka.connect.json.JsonConverter"):
        assert WorkerConfig({**WORKER, "header.converter": name}).values["header.converter"] == name
    message = worker_error(**{"header.converter": "io.confluent.connect.avro.AvroConverter"})
    assert "header.converter" in message and "could not be found" in message
    # A Converter that is no HeaderConverter is refused, and SimpleHeaderConverter is no Converter.
    assert "is not an instance of" in worker_error(**{"header.converter": "tests.unit.test_converters:_Upper"})
    assert "is not an instance of" in worker_error(**{"key.converter": "SimpleHeaderConverter"})
    assert "key.converter" in worker_error(**{"key.converter": "io.confluent.connect.avro.AvroConverter"})


def test_worker_extension_and_override_policy_classes() -> None:
    basic = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
    assert WorkerConfig({**WORKER, "rest.extension.classes": basic}).values["rest.extension.classes"] == [basic]
    assert "REST extension" in worker_error(**{"rest.extension.classes": f"{basic}, com.example.Audit"})
    assert WorkerConfig({**WORKER, "connector.client.config.override.policy": "All"})
    assert WorkerConfig({**WORKER, "connector.client.config.override.policy": "None"})
    assert "not supported" in worker_error(**{"connector.client.config.override.policy": "Principal"})
    assert "could not be found" in worker_error(**{"connector.client.config.override.policy": "com.example.Policy"})


def test_worker_exactly_once_source_support() -> None:
    assert WorkerConfig({**WORKER, "exactly.once.source.support": "DISABLED"})
    for level in ("enabled", "Preparing"):
        assert WorkerConfig({**WORKER, "exactly.once.source.support": level}).settings.exactly_once is \
            (level == "enabled")
    assert "must be one of" in worker_error(**{"exactly.once.source.support": "sometimes"})


def test_worker_config_providers(tmp_path: Path) -> None:
    secrets = tmp_path / "s.properties"
    secrets.write_text("password=p@ss\n")
    cfg = WorkerConfig({**WORKER, "config.providers": "echo,secrets", "config.providers.echo.class":
                        f"{HERE}.EchoConfigProvider", "config.providers.echo.param.prefix": "v-",
                        "config.providers.secrets.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
                        "client.id": "${echo:worker}", "producer.sasl.password": f"${{secrets:{secrets}:password}}"})
    assert cfg.values["client.id"] == "v-worker" and cfg.raw["producer.sasl.password"] == "p@ss"
    # Connector configs are resolved with the worker's providers; undeclared names stay as they are.
    assert providers.resolve_config({"a": "${echo:p:k}", "b": "${env:HOME}"}) == {"a": "v-p|k", "b": "${env:HOME}"}
    message = worker_error(**{"config.providers": "vault", "config.providers.vault.class": "com.example.Vault"})
    assert "config.providers.vault.class" in message and "Class com.example.Vault could not be found." in message
    assert "names no class" in worker_error(**{"config.providers": "vault"})


def test_providers_declared_by_a_config_itself() -> None:
    # MM2 connector configs carry the file's config.providers* (as Kafka's MirrorConnectorConfig reads them).
    config = {"config.providers": "e", "config.providers.e.class": f"{HERE}:EchoConfigProvider", "x": "${e:a:b:c}"}
    assert providers.resolve_config(config)["x"] == "a|b:c", "Kafka's grammar: the path ends at the first colon"
    config["x"] = "${env:NOPE_NOT_DECLARED}"
    assert providers.resolve_config(config)["x"] == "${env:NOPE_NOT_DECLARED}", "env is not declared here"


def test_implicit_providers_without_declarations(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLUGGABLE_TEST_VAR", "value")
    assert providers.resolve("${env:PLUGGABLE_TEST_VAR}") == "value"
    assert WorkerConfig({**WORKER, "client.id": "${env:PLUGGABLE_TEST_VAR}"}).values["client.id"] == "value"
    assert os.environ["PLUGGABLE_TEST_VAR"] == "value"


# end to end ---------------------------------------------------------------------------------

def test_custom_topic_filter_decides_what_is_replicated(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                                        unique: str) -> None:
    keep, drop = f"p{unique}-yes", f"p{unique}-no"
    for topic in (keep, drop):
        create_topic(broker.bootstrap, topic, 1)
        produce_many(broker.bootstrap, topic, 20, 1)
    cluster: Cluster = cluster_factory(on=broker_b, extra={
        "config.providers": "echo", "config.providers.echo.class": f"{HERE}:EchoConfigProvider"})
    (w,) = cluster.start(1)
    # `topics` alone would take both: only the custom filter, with its suffix from the provider, drops one.
    config = mirror_source(broker, broker_b, {"topics": f"p{unique}-.*",
                                              "topic.filter.class": f"{HERE}.SuffixTopicFilter",
                                              "suffix.filter.suffix": f"${{echo:{keep}}}"})
    assert w.request("POST", "/connectors", {"name": "mm", "config": config}).status_code == 201
    wait_for(lambda: len(read_all(broker_b.bootstrap, f"A.{keep}", expect=20, timeout=5)) == 20, 60, "kept topic")
    status = w.request("GET", "/connectors/mm/status").json()
    assert status["connector"]["state"] == "RUNNING", status
    from confluent_kafka.admin import AdminClient

    assert f"A.{drop}" not in AdminClient({"bootstrap.servers": broker_b.bootstrap}).list_topics(timeout=10).topics
    stored = w.request("GET", "/connectors/mm/config").json()
    assert stored["suffix.filter.suffix"] == f"${{echo:{keep}}}", "the stored config keeps the placeholder"


def test_bogus_class_is_refused_on_create_and_in_validate(cluster_factory: Any, broker: Broker, broker_b: Broker
                                                          ) -> None:
    cluster: Cluster = cluster_factory(on=broker_b)
    (w,) = cluster.start(1)
    config = mirror_source(broker, broker_b, {"topic.filter.class": "com.example.NoSuchFilter"})
    expected = ("Invalid value com.example.NoSuchFilter for configuration topic.filter.class: "
                "Class com.example.NoSuchFilter could not be found.")
    r = w.request("POST", "/connectors", {"name": "bogus", "config": config})
    assert r.status_code == 400
    body = r.json()
    assert body["error_code"] == 400 and set(body) == {"error_code", "message"}
    assert body["message"].startswith("Connector configuration is invalid and contains the following 1 error(s):\n"
                                      + expected), body
    assert w.request("GET", "/connectors/bogus").status_code == 404
    v = w.request("PUT", "/connector-plugins/MirrorSourceConnector/config/validate", {**config, "name": "b"}).json()
    assert v["error_count"] == 1
    (entry,) = [c for c in v["configs"] if c["value"]["name"] == "topic.filter.class"]
    assert entry["value"]["errors"] == [expected]
