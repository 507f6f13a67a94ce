"""mm2.properties -> herders, worker configs and connector configs (compat-spec §C.1)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from connectors.mirror.maker_config import Flow, MirrorMakerConfig, load
from pyconnect.config.properties import ConfigFileError, parse_properties

SAMPLE = """# Apache's connect-mirror-maker.properties, trimmed
clusters = A, B
A.bootstrap.servers = A_host1:9092, A_host2:9092
B.bootstrap.servers = B_host1:9092
A->B.enabled = true
A->B.topics = .*
B->A.enabled = false
replication.factor=1
checkpoints.topic.replication.factor=1
heartbeats.topic.replication.factor=1
offset-syncs.topic.replication.factor=1
offset.storage.replication.factor=1
status.storage.replication.factor=1
config.storage.replication.factor=1
B.security.protocol=SASL_SSL
B.producer.linger.ms=20
"""


def mm2(text: str, clusters: list[str] | None = None) -> MirrorMakerConfig:
    return MirrorMakerConfig(parse_properties(text, "mm2.properties"), clusters)


def test_apache_sample_herders_and_worker_defaults() -> None:
    cfg = mm2(SAMPLE)
    assert [str(f) for f in cfg.flows] == ["A->B", "B->A"], "B->A still runs for heartbeats"
    worker = cfg.worker_config(Flow("A", "B"))
    assert worker["bootstrap.servers"] == "B_host1:9092" and worker["group.id"] == "A-mm2"
    assert worker["offset.storage.topic"] == "mm2-offsets.A.internal"
    assert worker["config.storage.topic"] == "mm2-configs.A.internal"
    assert worker["status.storage.topic"] == "mm2-status.A.internal"
    assert worker["client.id"] == "A->B" and worker["offset.storage.replication.factor"] == "1"
    assert worker["producer.security.protocol"] == "SASL_SSL" and worker["admin.bootstrap.servers"] == "B_host1:9092"
    assert worker["key.converter"].endswith("ByteArrayConverter")


def test_connector_configs_layering() -> None:
    cfg = mm2(SAMPLE)
    src = cfg.connector_config(Flow("A", "B"), "MirrorSourceConnector")
    assert src["connector.class"] == "org.apache.kafka.connect.mirror.MirrorSourceConnector"
    assert src["name"] == "MirrorSourceConnector" and src["enabled"] == "true" and src["topics"] == ".*"
    assert src["source.cluster.alias"] == "A" and src["target.cluster.alias"] == "B"
    assert src["source.cluster.bootstrap.servers"] == "A_host1:9092, A_host2:9092"
    assert src["target.cluster.security.protocol"] == "SASL_SSL" and src["target.producer.linger.ms"] == "20"
    assert src["replication.factor"] == "1"
    back = cfg.connector_config(Flow("B", "A"), "MirrorSourceConnector")
    assert back["enabled"] == "false"
    assert "offset.storage.replication.factor" not in src, "worker keys stay out of connector configs"


def test_clusters_filter_limits_to_targets() -> None:
    assert [str(f) for f in mm2(SAMPLE, ["B"]).flows] == ["A->B"]
    with pytest.raises(ConfigFileError, match="unknown cluster alias"):
        mm2(SAMPLE, ["C"])


def test_heartbeats_off_removes_idle_pairs() -> None:
    assert [str(f) for f in mm2(SAMPLE + "emit.heartbeats.enabled=false\n").flows] == ["A->B"]


@pytest.mark.parametrize("extra,line,fragment", [
    ("A->C.enabled = true\n", 17, "A->C.enabled: unknown cluster alias 'C'"),
    ("A->B.topics = orders-(\n", 17, "A->B.topics: invalid regular expression"),
    ("groups.exclude = [\n", 17, "groups.exclude: invalid regular expression"),
])
def test_bad_files_name_line_and_key(extra: str, line: int, fragment: str) -> None:
    with pytest.raises(ConfigFileError) as err:
        mm2(SAMPLE + extra)
    assert str(err.value).startswith(f"mm2.properties:{line}: ") and fragment in str(err.value)


def test_missing_bootstrap_and_quoted_pattern_warning(caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(ConfigFileError, match="C.bootstrap.servers: cluster 'C' is listed"):
        mm2(SAMPLE.replace("clusters = A, B", "clusters = A, B, C"))
    with caplog.at_level(logging.WARNING):
        mm2(SAMPLE + 'A->B.topics = "orders.*"\nmystery.key = 1\n')
    assert "wrapped in quotes" in caplog.text and "unknown key 'mystery.key'" in caplog.text


def test_config_providers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = tmp_path / "secrets.properties"
    secrets.write_text("password=p@ss\n")
    monkeypatch.setenv("MM2_USER", "alice")
    path = tmp_path / "mm2.properties"
    jaas = 'x username="${env:MM2_USER}" password="${file:' + str(secrets) + ':password}";'
    path.write_text(SAMPLE + f"B.sasl.jaas.config={jaas}\n")
    worker = load(path).worker_config(Flow("A", "B"))
    assert worker["sasl.jaas.config"] == 'x username="alice" password="p@ss";'
    path.write_text(SAMPLE + "B.sasl.jaas.config=${env:NOT_SET_ANYWHERE}\n")
    with pytest.raises(ConfigFileError) as err:
        load(path)
    assert "B.sasl.jaas.config: environment variable NOT_SET_ANYWHERE is not set" in str(err.value)
