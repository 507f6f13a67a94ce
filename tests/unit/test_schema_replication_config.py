"""Schema replication's settings (mm2.properties -> MirrorSource connector keys, validation) and its pure parts
(wire format, subject choice). The end-to-end behaviour against real registries: tests/test_schema_replication.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from connectors.mirror.maker_config import Flow, MirrorMakerConfig
from connectors.mirror.schema_config import SWITCH, missing_urls, registry_settings
from connectors.mirror.schema_mapper import subjects_for
from connectors.mirror.schema_records import rewriter_for, wire_id, with_id
from connectors.mirror.source_connector import MirrorSourceConnector
from pyconnect.api.config import ConfigException
from pyconnect.config.properties import parse_properties
from pyconnect.kafka.schema_registry import RegistryError

MM2 = """clusters = A, B
A.bootstrap.servers = a:9092
B.bootstrap.servers = b:9092
A.schema.registry.url = http://registry-a:8081
A.schema.registry.basic.auth.user.info = mirror:secret
B.schema.registry.url = https://registry-b:8081
B.schema.registry.ssl.ca.location = /etc/ca.pem
A->B.enabled = true
A->B.schema.replication.enabled = true
"""


def test_mm2_properties_give_the_connector_both_registries_and_the_flow_switch() -> None:
    cfg = MirrorMakerConfig(parse_properties(MM2, "mm2.properties"))
    src = cfg.connector_config(Flow("A", "B"), "MirrorSourceConnector")
    assert src["source.cluster.schema.registry.url"] == "http://registry-a:8081"
    assert src["source.cluster.schema.registry.basic.auth.user.info"] == "mirror:secret"
    assert src["target.cluster.schema.registry.url"] == "https://registry-b:8081"
    assert src["target.cluster.schema.registry.ssl.ca.location"] == "/etc/ca.pem"
    assert src[SWITCH] == "true"
    assert SWITCH not in cfg.connector_config(Flow("B", "A"), "MirrorSourceConnector"), "the switch is per flow"
    assert registry_settings(src, "source") == {"url": "http://registry-a:8081",
                                                "basic.auth.user.info": "mirror:secret"}
    assert registry_settings(src, "target") == {"url": "https://registry-b:8081", "ssl.ca.location": "/etc/ca.pem"}
    worker = cfg.worker_config(Flow("A", "B"))
    assert not [k for k in worker if "schema.registry" in k], "the herder's worker config gets none of them"


def _config(**extra: str) -> dict[str, str]:
    return {"connector.class": "MirrorSourceConnector", "source.cluster.alias": "A", "target.cluster.alias": "B",
            "source.cluster.bootstrap.servers": "a:9092", "target.cluster.bootstrap.servers": "b:9092", **extra}


def test_switch_without_a_registry_url_is_an_error_naming_the_key() -> None:
    config = _config(**{SWITCH: "true", "source.cluster.schema.registry.url": "http://a:8081"})
    values = MirrorSourceConnector().validate(config)
    errors = values["target.cluster.schema.registry.url"].errors
    assert errors == [f"{SWITCH}=true needs target.cluster.schema.registry.url (the schema registry of that "
                      "cluster)"]
    assert missing_urls(config) == ["target.cluster.schema.registry.url"]
    with pytest.raises(ConfigException, match=r"target\.cluster\.schema\.registry\.url"):
        rewriter_for(config)  # the task's start refuses it too


def test_switch_off_by_default_asks_no_registry(caplog: pytest.LogCaptureFixture) -> None:
    config = _config(**{"target.cluster.schema.registry.url": "http://b:8081"})
    assert not [v.errors for v in MirrorSourceConnector().validate(config).values() if v.errors]
    assert rewriter_for(config) is None
    assert f"target.cluster.schema.registry.url is set but {SWITCH} is false" in caplog.text  # never silent


def test_the_keys_are_in_the_source_connectors_definition() -> None:
    keys = MirrorSourceConnector().config_def().keys
    assert keys[SWITCH].default is False
    for side in ("source", "target"):
        for key in ("url", "basic.auth.user.info", "ssl.ca.location", "ssl.certificate.location",
                    "ssl.key.location", "ssl.key.password"):
            assert f"{side}.cluster.schema.registry.{key}" in keys
    assert keys["source.cluster.schema.registry.basic.auth.user.info"].type == "PASSWORD"


@pytest.mark.parametrize(("data", "expected"), [
    (b"\x00\x00\x00\x01\x02payload", 258), (b"\x00\x00\x00\x00\x07", 7), (b"\x00\x00\x00\x01", None),
    (b"\x01\x00\x00\x00\x07x", None), (b"plain text", None), (b"", None), (None, None)])
def test_wire_format_is_a_zero_byte_and_a_four_byte_id(data: bytes | None, expected: int | None) -> None:
    assert wire_id(data) == expected


def test_with_id_keeps_the_payload_byte_for_byte() -> None:
    data = b"\x00\x00\x00\x00\x05" + bytes(range(256))
    assert with_id(data, 70_000) == b"\x00" + (70_000).to_bytes(4, "big") + bytes(range(256))


def test_subjects_topic_name_strategy_renamed_with_the_remote_topic() -> None:
    holders = [("orders-value", 3), ("orders-key", 1), ("other-value", 2)]
    assert subjects_for("orders", "A.orders", holders, is_key=False) == [
        ("orders-value", "A.orders-value", 3), ("orders-key", "A.orders-key", 1)]
    assert subjects_for("orders", "A.orders", holders, is_key=True)[0] == ("orders-key", "A.orders-key", 1)
    assert subjects_for("orders", "orders", holders, is_key=False)[0] == ("orders-value", "orders-value", 3)


def test_subjects_record_name_strategies() -> None:
    # TopicRecordNameStrategy: <topic>-<record name>, renamed with the topic
    assert subjects_for("orders", "A.orders", [("orders-com.acme.Order", 2)], False) == [
        ("orders-com.acme.Order", "A.orders-com.acme.Order", 2)]
    # RecordNameStrategy: the record's name, kept; another topic's TopicNameStrategy subject is not copied
    assert subjects_for("orders", "A.orders", [("com.acme.Order", 1), ("other-value", 1)], False) == [
        ("com.acme.Order", "com.acme.Order", 1)]
    # none of the topic's and no record name: the caller registers under <remote>-value
    assert subjects_for("orders", "A.orders", [("other-value", 1)], False) == []


def test_auth_and_tls_settings_reach_the_registry_client(tmp_path: Path) -> None:
    """The cluster's registry settings are confluent-kafka's registry client's own: a bad value is refused by
    that client at the task's start, naming the setting (the source side; the target's are built alike)."""
    base = _config(**{SWITCH: "true", "target.cluster.schema.registry.url": "http://b:8081"})
    bad = {
        "basic.auth.user.info": ("no-colon", "basic.auth.user.info must be in the form"),
        "ssl.ca.location": (str(tmp_path / "missing-ca.pem"), "No such file"),
        "ssl.key.location": (str(tmp_path / "key.pem"), "ssl.certificate.location required"),
        "ssl.certificate.location": (str(tmp_path / "missing-cert.pem"), "No such file"),
    }
    for key, (value, message) in bad.items():
        config = {**base, "source.cluster.schema.registry.url": "https://a:8081",
                  f"source.cluster.schema.registry.{key}": value}
        if key == "ssl.certificate.location":
            config["source.cluster.schema.registry.ssl.key.location"] = str(tmp_path / "missing-key.pem")
        with pytest.raises(RegistryError, match=message):
            rewriter_for(config)
    password = {**base, "source.cluster.schema.registry.url": "https://a:8081",
                "source.cluster.schema.registry.ssl.key.password": "secret"}
    with pytest.raises(RegistryError, match="ssl.certificate.location required"):
        rewriter_for(password)
    good = {**base, "source.cluster.schema.registry.url": "https://a:8081",
            "source.cluster.schema.registry.basic.auth.user.info": "mirror:secret"}
    assert rewriter_for(good) is not None  # nothing is asked of a registry before the first record
