"""The connector-config input checks (pyconnect/runtime/herder/input_checks.py) and the worker settings this
worker does not implement (pyconnect/config/unimplemented.py), without a broker."""

from __future__ import annotations

import pytest

from connectors.mirror.config import CONFIG_PREFIXES, MIRROR_KEYS
from pyconnect.api.config import ConfigValue
from pyconnect.config.properties import ConfigFileError
from pyconnect.config.unimplemented import unimplemented_error
from pyconnect.config.worker import WorkerConfig
from pyconnect.runtime.herder.input_checks import unknown_keys, unknown_providers

BASE = {"bootstrap.servers": "127.0.0.1:1", "group.id": "g", "config.storage.topic": "c",
        "offset.storage.topic": "o", "status.storage.topic": "s"}


def test_typos_get_the_closest_known_key_and_prefixed_keys_are_left_alone() -> None:
    config = ["topcis", "topics", "source.cluster.bootstrap.servers", "producer.override.linger.ms",
              "transforms.x.type", "refresh.topics.interval.seconds", "tasks.maxx", "something.else.entirely"]
    found = unknown_keys(config, [*MIRROR_KEYS, "tasks.max"], CONFIG_PREFIXES)
    assert found == {"topcis": "topics", "tasks.maxx": "tasks.max"}


@pytest.mark.parametrize(("value", "errors"), [
    ("${topic}-${timestamp}", 0),       # no provider syntax: not a placeholder
    ("${env:HOME}", 0),                 # an implicit provider (no config.providers declared)
    ("a${vault:kv/db:password}b", 1),   # no provider named vault
    ("cost: ${5}", 0),
])
def test_only_placeholders_of_unconfigured_providers_are_errors(value: str, errors: int) -> None:
    values: dict[str, ConfigValue] = {}
    unknown_providers({"k": value}, values)
    assert sum(len(v.errors) for v in values.values()) == errors, values


def test_declared_providers_replace_the_implicit_ones() -> None:
    values: dict[str, ConfigValue] = {}
    unknown_providers({"config.providers": "file", "config.providers.file.class":
                       "org.apache.kafka.common.config.provider.FileConfigProvider", "k": "${env:HOME}"}, values)
    assert "config provider 'env', which is not configured (configured providers: file;" in values["k"].errors[0]


@pytest.mark.parametrize(("key", "value", "refused"), [
    ("plugin.path", "", False), ("plugin.path", "/opt/jars", True),
    ("connect.protocol", "sessioned", False), ("connect.protocol", "compatible", True),
    ("scheduled.rebalance.max.delay.ms", "0", False), ("scheduled.rebalance.max.delay.ms", "300000", True),
    ("config.storage.partitions", "1", False), ("config.storage.partitions", "3", True),
])
def test_unimplemented_settings_pass_only_with_values_that_need_nothing(key: str, value: str, refused: bool) -> None:
    assert (unimplemented_error({key: value}) is not None) == refused
    if refused:
        with pytest.raises(ConfigFileError, match=f"{key}: '{value}': "):
            WorkerConfig({**BASE, key: value})
    else:
        WorkerConfig({**BASE, key: value})  # accepted: raises nothing


def test_listeners_and_admin_listeners_are_parsed_and_kept_from_the_admin_client() -> None:
    """RestServerConfig's keys: every entry of `listeners`; `admin.listeners` unset, empty or a list (KIP-495);
    the `admin.` client prefix does not take `admin.listeners` (the admin client would refuse `listeners`)."""
    config = WorkerConfig({**BASE, "listeners": "http://127.0.0.1:8083, https://localhost:8443",
                           "admin.listeners": "http://127.0.0.1:8084", "admin.request.timeout.ms": "5000"})
    assert [(x.scheme, x.host, x.port) for x in config.listeners] == [("http", "127.0.0.1", 8083),
                                                                      ("https", "localhost", 8443)]
    assert config.admin_listeners is not None and [x.port for x in config.admin_listeners] == [8084]
    admin = config.client_config("admin", "admin.")
    assert "listeners" not in admin and admin["request.timeout.ms"] == "5000"
    assert WorkerConfig(BASE).admin_listeners is None
    assert WorkerConfig({**BASE, "admin.listeners": ""}).admin_listeners == []
    for key, value in (("admin.listeners", "ftp://x:1"), ("listeners", "http://:8083,http://nohost"),
                       ("admin.listeners.https.ssl.keystore.location", "/k.pem")):
        with pytest.raises(ConfigFileError, match=key):
            WorkerConfig({**BASE, key: value})


def test_unknown_keys_mode_is_validated() -> None:
    assert WorkerConfig({**BASE, "connector.config.unknown.keys": "refuse"}).settings.refuse_unknown_keys
    assert not WorkerConfig(BASE).settings.refuse_unknown_keys
    with pytest.raises(ConfigFileError, match="connector.config.unknown.keys"):
        WorkerConfig({**BASE, "connector.config.unknown.keys": "ignore"})
