from __future__ import annotations

import logging

import pytest

from connectors.sequence.connector import SequenceSourceConnector
from pyconnect.config.properties import ConfigFileError, parse_properties
from pyconnect.config.worker import load_worker_config
from pyconnect.kafka.config import redact, to_librdkafka
from pyconnect.plugins import PluginNotFound, registry

BASE = ("group.id=g\nconfig.storage.topic=c\noffset.storage.topic=o\nstatus.storage.topic=s\n"
        "bootstrap.servers=h:9092\n")


def test_worker_config_defaults_and_client_mapping(caplog: pytest.LogCaptureFixture) -> None:
    text = BASE + ("listeners=http://0.0.0.0:8084\nrest.advertised.host.name=worker-1\n"
                   "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
                   'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required '
                   'username="u" password="p\\\\"q";\n'
                   "producer.compression.type=zstd\nconsumer.max.poll.records=5\nlinger.ms=0\n"
                   "no.such.setting=1\n")
    with caplog.at_level(logging.WARNING):
        cfg = load_worker_config(parse_properties(text, "w.properties"))
    assert "w.properties:" in caplog.text and "no.such.setting" in caplog.text
    assert cfg.worker_id == "worker-1:8084" and cfg.settings.offset_storage_partitions == 25
    assert cfg.settings.session_timeout_ms == 10000
    producer = cfg.task_client_config("producer")
    assert producer["compression.type"] == "zstd" and producer["sasl.mechanisms"] == "SCRAM-SHA-512"
    assert producer["sasl.username"] == "u" and producer["sasl.password"] == 'p"q'
    assert "max.poll.records" not in cfg.task_client_config("consumer")
    internal = cfg.client_config("producer")
    assert internal["linger.ms"] == "0" and internal["bootstrap.servers"] == "h:9092"
    assert "group.id" not in cfg.client_config("consumer"), "the worker group is not a client group"
    assert redact(producer)["sasl.password"] == "[hidden]"


def test_worker_config_errors_name_the_line() -> None:
    with pytest.raises(ConfigFileError) as err:
        load_worker_config(parse_properties(BASE + "status.storage.partitions=0\n", "w.properties"))
    assert str(err.value).startswith("w.properties:6: status.storage.partitions: ")


def test_java_ssl_names_map_to_librdkafka() -> None:
    out = to_librdkafka({"ssl.truststore.location": "/ca.pem", "ssl.endpoint.identification.algorithm": "",
                         "ssl.truststore.type": "PEM", "acks": "all"}, "consumer")
    assert out == {"ssl.ca.location": "/ca.pem", "ssl.endpoint.identification.algorithm": "none"}


def test_plugins_resolve_by_entry_point_short_java_and_python_names() -> None:
    for name in ("SequenceSourceConnector", "SequenceSource", "pyconnect.connectors.SequenceSourceConnector",
                 "connectors.sequence.connector:SequenceSourceConnector"):
        assert registry.resolve(name).cls is SequenceSourceConnector
    with pytest.raises(PluginNotFound):
        registry.resolve("org.example.Nope")


def test_connector_validation_reports_per_key_errors() -> None:
    values = SequenceSourceConnector().validate({"tasks.max": "0", "rate": "fast"})
    assert values["topic"].errors and values["tasks.max"].errors and values["rate"].errors
    assert not values["count"].errors


def test_every_worker_setting_is_a_key_of_the_configdef() -> None:
    # WorkerSettings only types what WORKER_CONFIG declares: a field without a key would be a second
    # source of defaults.
    from dataclasses import fields

    from pyconnect.config.worker import WORKER_CONFIG
    from pyconnect.config.worker_settings import WorkerSettings, key_of
    assert [f.name for f in fields(WorkerSettings) if key_of(f.name) not in WORKER_CONFIG.keys] == []
