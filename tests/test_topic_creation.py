"""`topic.creation.*` (KIP-158) against a real worker and broker: source connectors create their topics with
the configured partitions, replication factor, groups and topic configs before the first record is sent.

Follows Kafka's SourceConnectorsIntegrationTest (testTopicsAreCreatedWhenTopicCreationIsEnabled: a default
group and a named group with its own partitions and topic configs) and SourceConnectorConfigTest
(shouldNotAllowZeroPartitionsOrReplicationFactor, the default group's required keys).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.harness.kafka_io import partition_count, read_messages, topic_config, topic_names
from tests.harness.workers import WorkerProcess, wait_for

FILE_SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"


def _source(path: Path, topic: str, **extra: str) -> dict[str, str]:
    path.write_text("".join(f"line-{i}\n" for i in range(20)))
    return {"connector.class": FILE_SOURCE, "file": str(path), "topic": topic,
            "value.converter": "org.apache.kafka.connect.storage.StringConverter", **extra}


def _post(w: WorkerProcess, name: str, config: dict[str, str]) -> Any:
    return w.request("POST", "/connectors", {"name": name, "config": config})


def test_file_source_creates_its_topic_with_the_configured_groups(cluster_factory: Any, broker: Any, unique: str,
                                                                  tmp_path: Path) -> None:
    """FileStreamSource with topic.creation.default.partitions=3 creates its topic with 3 partitions; a second
    one whose topic a named group includes gets that group's partitions and topic config."""
    plain, hourly = f"created-{unique}", f"hourly-{unique}"
    (w,) = cluster_factory().start(1)
    defaults = {"topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "3"}
    assert _post(w, "plain", _source(tmp_path / "a.txt", plain, **defaults)).status_code == 201
    assert _post(w, "grouped", _source(tmp_path / "b.txt", hourly, **defaults, **{
        "topic.creation.groups": "hourly", "topic.creation.hourly.include": "hourly-.*",
        "topic.creation.hourly.partitions": "2", "topic.creation.hourly.retention.ms": "3600000"})).status_code == 201
    for topic in (plain, hourly):
        wait_for(lambda t=topic: partition_count(broker.bootstrap, t) > 0, 30, f"{topic} created by the task")
        records = read_messages(broker.bootstrap, topic, expect=20, timeout=30)
        assert sorted(m.value() for m in records) == sorted(f"line-{i}".encode() for i in range(20)), topic
    assert partition_count(broker.bootstrap, plain) == 3
    assert partition_count(broker.bootstrap, hourly) == 2
    assert topic_config(broker.bootstrap, hourly).get("retention.ms") == "3600000"
    assert f"Created topic '(name={plain}, numPartitions=3, replicationFactor=1" in w.log_path.read_text()


def test_topic_creation_settings_are_validated_as_kafka_does(cluster_factory: Any, unique: str,
                                                             tmp_path: Path) -> None:
    """The default group needs replication.factor and partitions; each is -1 or positive. Nothing is created."""
    (w,) = cluster_factory().start(1)
    topic = f"refused-{unique}"
    r = _post(w, "missing", _source(tmp_path / "a.txt", topic, **{"topic.creation.default.partitions": "3"}))
    assert r.status_code == 400, r.text
    assert 'Missing required configuration "topic.creation.default.replication.factor" which has no default ' \
           "value." in r.json()["message"]
    r = _post(w, "zero", _source(tmp_path / "a.txt", topic, **{"topic.creation.default.replication.factor": "1",
                                                                  "topic.creation.default.partitions": "0"}))
    assert r.status_code == 400 and r.json()["error_code"] == 400, r.text
    assert "Invalid value 0 for configuration topic.creation.default.partitions: Number of partitions must be " \
           "positive, or -1 to use the broker's default" in r.json()["message"]
    r = w.request("PUT", f"/connector-plugins/{FILE_SOURCE}/config/validate", _source(
        tmp_path / "a.txt", topic, **{"topic.creation.default.replication.factor": "-1",
                                      "topic.creation.default.partitions": "-1", "topic.creation.groups": "g, g",
                                      "name": "validated"}))
    assert r.status_code == 200 and r.json()["error_count"] == 1, r.text
    errors = {c["value"]["name"]: c["value"]["errors"] for c in r.json()["configs"] if c["value"]["errors"]}
    assert errors == {"topic.creation.groups": ["Invalid value g, g for configuration topic.creation.groups: "
                                                "Duplicate alias provided."]}, errors
    assert w.request("GET", "/connectors").json() == []
    assert topic not in topic_names(w.props["bootstrap.servers"])


def test_a_worker_without_topic_creation_leaves_the_keys_unused(cluster_factory: Any, unique: str,
                                                                 tmp_path: Path) -> None:
    """topic.creation.enable=false: the keys are neither validated (Kafka builds no topic creation groups
    then) nor used, and the task's start says so."""
    (w,) = cluster_factory(extra={"topic.creation.enable": "false"}).start(1)
    config = _source(tmp_path / "a.txt", f"plain-{unique}", **{"topic.creation.default.partitions": "3"})
    assert _post(w, "unused", config).status_code == 201
    wait_for(lambda: "the connector's topic.creation.* settings are not used: the worker has "
                     "topic.creation.enable=false" in w.log_path.read_text(), 30, "the warning")
