"""A standalone worker's inputs: StandaloneConfig (Connect's StandaloneConfig: the base worker keys plus
offset.storage.file.filename), its storage, and the connector files ConnectStandalone reads."""

from __future__ import annotations

import logging
from pathlib import Path

import orjson
import pytest

from pyconnect.config.properties import ConfigFileError, parse_properties
from pyconnect.config.standalone import STANDALONE_CONFIG, StandaloneConfig, load_standalone_config
from pyconnect.config.worker import WORKER_CONFIG, load_worker_config
from pyconnect.runtime.standalone_storage import check_offsets_file, standalone_log_factory
from pyconnect.storage.compacted_memory_log import CompactedMemoryLog
from pyconnect.storage.file_log import FileLog
from replikafka.connector_files import load_connector_file


def standalone(text: str, path: str = "worker.properties") -> StandaloneConfig:
    return load_standalone_config(parse_properties(text, path))


def test_offsets_file_is_required_and_distributed_keys_are_not(tmp_path: Path) -> None:
    with pytest.raises(ConfigFileError) as err:
        standalone("bootstrap.servers=h:9092\n")
    assert str(err.value) == ('worker.properties: offset.storage.file.filename: Missing required configuration '
                              '"offset.storage.file.filename" which has no default value.')
    config = load_standalone_config(parse_properties(f"offset.storage.file.filename={tmp_path}/o\n", "w"))
    assert config.offsets_file == f"{tmp_path}/o" and config.settings.exactly_once is False
    assert STANDALONE_CONFIG.keys["offset.storage.file.filename"].documentation == "File to store offset data in"
    assert "group.id" not in STANDALONE_CONFIG.keys and "offset.flush.interval.ms" in STANDALONE_CONFIG.keys


def test_an_empty_offsets_file_name_names_its_line() -> None:
    with pytest.raises(ConfigFileError) as err:
        standalone("bootstrap.servers=h:9092\noffset.storage.file.filename=\n")
    assert str(err.value).startswith("worker.properties:2: offset.storage.file.filename: Invalid value")


def test_distributed_keys_are_warned_about_and_have_no_effect(caplog: pytest.LogCaptureFixture) -> None:
    text = ("offset.storage.file.filename=/tmp/o\ngroup.id=g\nconfig.storage.topic=c\n"
            "exactly.once.source.support=enabled\nsession.timeout.ms=nonsense\nconfig.storage.cleanup.policy=x\n")
    with caplog.at_level(logging.WARNING):
        config = standalone(text)
    for line, key in ((2, "group.id"), (3, "config.storage.topic"), (4, "exactly.once.source.support"),
                      (5, "session.timeout.ms")):
        assert f"worker.properties:{line}: '{key}' is a distributed worker setting" in caplog.text
    assert "worker.properties:6: unknown worker setting 'config.storage.cleanup.policy'" in caplog.text
    assert config.settings.exactly_once is False
    assert "group.id" not in config.client_config("consumer")
    assert "group.id" not in config.task_client_config("consumer")


def test_distributed_validation_is_unchanged() -> None:
    with pytest.raises(ConfigFileError, match='Missing required configuration "group.id"'):
        load_worker_config(parse_properties("bootstrap.servers=h:9092\n", "w"))
    assert "offset.storage.file.filename" not in WORKER_CONFIG.keys


def test_offsets_file_directory_must_exist(tmp_path: Path) -> None:
    config = load_standalone_config(parse_properties(
        f"bootstrap.servers=h\n\noffset.storage.file.filename={tmp_path}/missing/offsets\n", "w.properties"))
    with pytest.raises(ConfigFileError) as err:
        check_offsets_file(config)
    assert str(err.value) == (f"w.properties:3: offset.storage.file.filename: File to store offset data in: "
                              f"the directory {tmp_path}/missing does not exist")


def test_log_factory_puts_offsets_in_the_file_and_the_rest_in_memory(tmp_path: Path) -> None:
    config = load_standalone_config(parse_properties(f"offset.storage.file.filename={tmp_path}/o\n", "w"))
    factory = standalone_log_factory(config)
    offsets = factory(config.settings.offset_storage_topic, 1)
    assert isinstance(offsets, FileLog) and offsets.path == tmp_path / "o"
    assert isinstance(factory(config.settings.config_storage_topic, 1), CompactedMemoryLog)
    assert isinstance(factory(config.membership_topic, 1), CompactedMemoryLog)


def test_compacted_memory_log_replays_only_live_keys() -> None:
    log = CompactedMemoryLog(2)
    for i in range(1000):
        log.send(b"beat", b"%d" % i, 0)
    log.send(b"gone", b"x", 1)
    log.send(b"gone", None, 1)
    seen: list[tuple[bytes | None, bytes | None, int, int]] = []
    log.start(lambda k, v, p, o: seen.append((k, v, p, o)))
    assert seen == [(b"beat", b"999", 0, 999)]
    log.send(b"next", b"1", 1)
    assert seen[-1] == (b"next", b"1", 1, 2)


# Connector files: ConnectStandaloneTest's cases ----------------------------------------------

CONFIG = {"name": "test-connector", "key1": "val1", "key2": "val2"}


def test_parse_java_properties_file(tmp_path: Path) -> None:
    """ConnectStandaloneTest.testParseJavaPropertiesFile"""
    path = tmp_path / "c.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in CONFIG.items()))
    found = load_connector_file(str(path))
    assert (found.name, found.config, found.initial_state) == ("test-connector", CONFIG, None)


def test_parse_json_file_with_connector_configuration(tmp_path: Path) -> None:
    """ConnectStandaloneTest.testParseJsonFileWithConnectorConfiguration"""
    path = tmp_path / "c.json"
    path.write_bytes(orjson.dumps(CONFIG))
    found = load_connector_file(str(path))
    assert (found.name, found.config, found.initial_state) == ("test-connector", CONFIG, None)


def test_parse_json_file_with_create_connector_request(tmp_path: Path) -> None:
    """ConnectStandaloneTest.testParseJsonFileWithCreateConnectorRequest (and ...WithoutConfigName)"""
    path = tmp_path / "c.json"
    config = {k: v for k, v in CONFIG.items() if k != "name"}
    path.write_bytes(orjson.dumps({"name": "test-connector", "config": config, "initial_state": "STOPPED"}))
    found = load_connector_file(str(path))
    assert (found.name, found.config, found.initial_state) == ("test-connector", CONFIG, "STOPPED")


def test_parse_json_file_with_create_connector_request_with_unknown_field(tmp_path: Path) -> None:
    """ConnectStandaloneTest.testParseJsonFileWithCreateConnectorRequestWithUnknownField"""
    path = tmp_path / "c.json"
    path.write_bytes(orjson.dumps({"name": "test-connector", "config": CONFIG, "unknown": "x"}))
    assert load_connector_file(str(path)).config == CONFIG


def test_parse_json_file_with_create_connector_request_with_inconsistent_name(tmp_path: Path) -> None:
    """ConnectStandaloneTest.testParseJsonFileWithCreateConnectorRequestWithInconsistentName"""
    path = tmp_path / "c.json"
    path.write_bytes(orjson.dumps({"name": "other", "config": CONFIG}))
    with pytest.raises(ConfigFileError, match="doesn't match the one specified in 'name'"):
        load_connector_file(str(path))


def test_properties_parse_error_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "c.properties"
    path.write_text("name=c\n= orphan value\n")
    with pytest.raises(ConfigFileError) as err:
        load_connector_file(str(path))
    assert str(err.value).startswith(f"{path}:2")


def test_unreadable_connector_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigFileError, match="cannot read file"):
        load_connector_file(str(tmp_path / "absent.properties"))
