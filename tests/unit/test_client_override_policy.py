"""Connector client override policies and the refusal of settings that load code or run commands.

Ports the cases of Kafka's connect/runtime/src/test/java/org/apache/kafka/connect/connector/policy/
(NoneConnectorClientConfigOverridePolicyTest, AllowlistConnectorClientConfigOverridePolicyTest,
PrincipalConnectorClientConfigOverridePolicyTest over BaseConnectorClientConfigOverridePolicyTest): a case
is "valid" when no ConfigValue the policy returns has an error, "invalid" when one has.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from connectors.mirror.client_config import client_settings
from pyconnect.api.config import ConfigException
from pyconnect.config.client_override_policy import ClientOverridePolicy
from pyconnect.config.properties import ConfigFileError, parse_properties
from pyconnect.config.worker import WorkerConfig, load_worker_config
from pyconnect.kafka import unsafe_settings
from pyconnect.runtime.client_overrides import roles_used, task_overrides

WORKER = {"group.id": "g", "config.storage.topic": "c", "offset.storage.topic": "o", "status.storage.topic": "s"}
# A sample of ProducerConfig/ConsumerConfig/AdminClientConfig names (Kafka's test iterates all of them).
ALL_CONFIGS = ["acks", "linger.ms", "batch.size", "compression.type", "enable.idempotence", "client.id",
               "bootstrap.servers", "sasl.jaas.config", "security.protocol", "group.id", "auto.offset.reset",
               "max.poll.records", "isolation.level", "connections.max.idle.ms", "request.timeout.ms"]


@pytest.fixture(autouse=True)
def _fresh_process_allowlist(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as a new process would: no worker config built yet (see unsafe_settings)."""
    monkeypatch.setattr(unsafe_settings, "_allowed", None)


def valid(policy: ClientOverridePolicy, overrides: Mapping[str, Any]) -> bool:
    return all(not v.errors for v in policy.validate(overrides))


def invalid(policy: ClientOverridePolicy, overrides: Mapping[str, Any]) -> bool:
    return any(v.errors for v in policy.validate(overrides))


def policy_of(**settings: str) -> ClientOverridePolicy:
    return WorkerConfig({**WORKER, **{k.replace("_", "."): v for k, v in settings.items()}}).client_overrides


def test_none_allows_no_override() -> None:
    """NoneConnectorClientConfigOverridePolicyTest.testNoOverrides and testWithOverrides."""
    none = policy_of(connector_client_config_override_policy="None")
    assert valid(none, {})
    assert invalid(none, {"sasl.jaas.config": "test", "acks": "none"})
    (value,) = none.validate({"acks": "none"})
    assert value.errors == ["The 'None' policy does not allow 'acks' to be overridden in the connector configuration."]


def test_allowlist_denies_all_by_default() -> None:
    """AllowlistConnectorClientConfigOverridePolicyTest.testDenyAllByDefault."""
    allowlist = policy_of(connector_client_config_override_policy="Allowlist")
    for config in ALL_CONFIGS:
        assert invalid(allowlist, {config: object()}), config


def test_allowlist_allows_its_configs() -> None:
    """AllowlistConnectorClientConfigOverridePolicyTest.testAllowConfigs."""
    allowed = {"acks", "client.id", "connections.max.idle.ms"}
    allowlist = policy_of(connector_client_config_override_policy="Allowlist",
                          connector_client_config_override_allowlist=",".join(sorted(allowed)))
    for config in ALL_CONFIGS:
        assert (valid if config in allowed else invalid)(allowlist, {config: object()}), config
    (value,) = allowlist.validate({"linger.ms": "5"})
    assert value.errors == [
        "The 'Allowlist' policy does not allow 'linger.ms' to be overridden in the connector configuration."]


def test_all_allows_every_override_and_is_the_default() -> None:
    """WorkerConfig.CONNECTOR_CLIENT_POLICY_CLASS_DEFAULT is All (Kafka 3.0 and later)."""
    assert policy_of().name == "All"
    for config in ALL_CONFIGS:
        assert valid(policy_of(), {config: "x"})


def test_policies_by_alias_simple_name_and_class_name() -> None:
    package = "org.apache.kafka.connect.connector.policy."
    for alias in ("None", "All", "Allowlist"):
        for name in (alias, f"{alias}ConnectorClientConfigOverridePolicy",
                     f"{package}{alias}ConnectorClientConfigOverridePolicy"):
            assert policy_of(connector_client_config_override_policy=name).name == alias


def test_principal_is_refused_at_start_naming_file_line_and_key() -> None:
    """PrincipalConnectorClientConfigOverridePolicyTest's policy is not offered: the worker does not start."""
    text = "".join(f"{k}={v}\n" for k, v in WORKER.items()) + "connector.client.config.override.policy=Principal\n"
    with pytest.raises(ConfigFileError) as info:
        load_worker_config(parse_properties(text, "worker.properties"))
    message = str(info.value)
    assert message.startswith("worker.properties:5: connector.client.config.override.policy: "), message
    assert "SASL principal overrides per connector are not supported" in message


@pytest.mark.parametrize(("settings", "key", "words"), [
    ({"connector.client.config.override.allowlist": "acks"}, "connector.client.config.override.allowlist",
     "used only by connector.client.config.override.policy=Allowlist"),
    ({"connector.client.config.override.policy": "Allowlist",
      "connector.client.config.override.allowlist": "acks,acks"}, "connector.client.config.override.allowlist",
     "must not be duplicated"),
    ({"connector.client.config.override.unsafe.allowlist": "plugin.library.paths,acks"},
     "connector.client.config.override.unsafe.allowlist", "acks is not a client setting that loads code"),
    ({"connector.client.config.override.policy": "com.example.Policy"}, "connector.client.config.override.policy",
     "could not be found"),
])
def test_bad_worker_settings_stop_the_start(settings: dict[str, str], key: str, words: str) -> None:
    text = "".join(f"{k}={v}\n" for k, v in {**WORKER, **settings}.items())
    with pytest.raises(ConfigFileError) as info:
        load_worker_config(parse_properties(text, "w.properties"))
    line = list({**WORKER, **settings}).index(key) + 1
    assert str(info.value).startswith(f"w.properties:{line}: {key}: ") and words in str(info.value), info.value


def test_unsafe_settings_under_any_prefix() -> None:
    config = {"producer.override.plugin.library.paths": "/x/lib", "source.cluster.sasl.kerberos.kinit.cmd": "sh",
              "target.producer.ssl.engine.location": "/e.so", "consumer.ssl.providers": "legacy",
              "ssl.engine.id": "dynamic", "producer.override.linger.ms": "5", "topics": "plugin.library.paths"}
    errors = unsafe_settings.unsafe_errors(config, frozenset())
    assert set(errors) == set(config) - {"producer.override.linger.ms", "topics"}
    assert "plugin.library.paths loads the native libraries" in errors["producer.override.plugin.library.paths"]
    assert "connector.client.config.override.unsafe.allowlist" in errors["producer.override.plugin.library.paths"]
    assert set(unsafe_settings.unsafe_errors(config, frozenset({"plugin.library.paths", "ssl.engine.id"}))) == {
        "source.cluster.sasl.kerberos.kinit.cmd", "target.producer.ssl.engine.location", "consumer.ssl.providers"}


def test_task_overrides_refuse_under_every_policy_unless_the_worker_names_the_setting() -> None:
    """Worker.connectorClientConfigOverrides: the check again when a task's clients are built."""
    unsafe = {"producer.override.plugin.library.paths": "/x/lib"}
    for policy in ("None", "All", "Allowlist"):
        worker = WorkerConfig({**WORKER, "connector.client.config.override.policy": policy})
        with pytest.raises(ConfigException, match="Client Config Overrides not allowed"):
            task_overrides(worker, unsafe, "producer")
    allowing = WorkerConfig({**WORKER, "connector.client.config.override.unsafe.allowlist": "plugin.library.paths"})
    assert task_overrides(allowing, unsafe, "producer") == {"plugin.library.paths": "/x/lib"}
    none = WorkerConfig({**WORKER, "connector.client.config.override.policy": "None"})
    with pytest.raises(ConfigException) as info:
        task_overrides(none, {"consumer.override.fetch.min.bytes": "1"}, "consumer")
    assert info.value.errors == {"consumer.override.fetch.min.bytes": [
        "The 'None' policy does not allow 'fetch.min.bytes' to be overridden in the connector configuration."]}
    assert task_overrides(none, {"consumer.override.fetch.min.bytes": "1"}, "producer") == {}


def test_clients_a_connector_uses() -> None:
    """AbstractHerder.connectorUsesProducer/Admin/Consumer: only their overrides are checked."""
    assert roles_used({}, sink=False) == ["producer"]
    assert roles_used({"topic.creation.default.partitions": "1"}, sink=False) == ["producer", "admin"]
    assert roles_used({}, sink=True) == ["consumer"]
    assert roles_used({"errors.deadletterqueue.topic.name": "dlq"}, sink=True) == ["producer", "admin", "consumer"]


def test_mirror_client_settings_refuse_unsafe_settings_unless_the_worker_names_them() -> None:
    raw = {"target.cluster.bootstrap.servers": "b:9092", "producer.plugin.library.paths": "/x/lib"}
    with pytest.raises(ConfigException) as info:
        client_settings(raw, "target", "producer")
    assert list(info.value.errors) == ["producer.plugin.library.paths"]
    with pytest.raises(ConfigException):  # nor any other client of that connector (backfill.<role>.* builds on it)
        client_settings(raw, "source", "consumer")
    assert client_settings({"target.cluster.bootstrap.servers": "b:9092"}, "target", "producer")
    WorkerConfig({**WORKER, "connector.client.config.override.unsafe.allowlist": "plugin.library.paths"})
    assert client_settings(raw, "target", "producer")["plugin.library.paths"] == "/x/lib"
    # A second worker of the process (another MirrorMaker flow) that does not allow it narrows the allowlist.
    WorkerConfig(WORKER)
    with pytest.raises(ConfigException):
        client_settings(raw, "target", "producer")
