"""mm2.properties -> herders, worker configs and connector configs (compat-spec §C.1)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from connectors.mirror.config import CHECKPOINT, HEARTBEAT, SOURCE, MirrorConfig
from connectors.mirror.maker_config import Flow, MirrorMakerConfig, load
from pyconnect.config.properties import ConfigFileError, parse_properties
from pyconnect.config.worker import WorkerConfig

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
    assert "wrapped in quotes" in caplog.text and "top-level key 'mystery.key' is not used" in caplog.text


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


# mm2.properties means what Java's MirrorMakerConfig makes of it ---------------

TLS = """clusters = A, B
A.bootstrap.servers = a:9093
B.bootstrap.servers = b:9093
A->B.enabled = true
security.protocol = SSL
ssl.truststore.location = /certs/ca.pem
ssl.truststore.type = PEM
sasl.mechanism = PLAIN
"""
DEFS = {"MirrorSourceConnector": SOURCE, "MirrorCheckpointConnector": CHECKPOINT,
        "MirrorHeartbeatConnector": HEARTBEAT}


def _every_client(text: str) -> list[dict[str, str]]:
    """The librdkafka settings of every client the flows of `text` build (workers' and connectors')."""
    cfg = mm2(text)
    clients = []
    for flow in (Flow("A", "B"), Flow("B", "A")):
        worker = WorkerConfig(cfg.worker_config(flow))
        clients += [worker.client_config(role) for role in ("producer", "consumer", "admin")]
        clients += [worker.client_config("admin", "admin."), worker.task_client_config("producer"),
                    worker.task_client_config("consumer")]
        for name, definition in DEFS.items():
            connector = MirrorConfig(definition, cfg.connector_config(flow, name))
            clients += [connector.client(side, role) for side in ("source", "target")
                        for role in ("producer", "consumer", "admin")]
    return clients


def test_top_level_tls_reaches_every_client() -> None:
    for conf in _every_client(TLS):
        assert conf["security.protocol"] == "SSL" and conf["ssl.ca.location"] == "/certs/ca.pem", conf
        assert conf["sasl.mechanisms"] == "PLAIN", conf


def test_top_level_bootstrap_applies_to_every_cluster() -> None:
    cfg = mm2("clusters = A, B\nbootstrap.servers = shared:9092\nB.bootstrap.servers = b:9092\n")
    assert cfg.worker_config(Flow("B", "A"))["bootstrap.servers"] == "shared:9092"
    assert cfg.worker_config(Flow("A", "B"))["bootstrap.servers"] == "b:9092", "the cluster's own wins"
    source = MirrorConfig(SOURCE, cfg.connector_config(Flow("A", "B"), "MirrorSourceConnector"))
    assert source.client("source", "consumer")["bootstrap.servers"] == "shared:9092"
    assert source.client("target", "admin")["bootstrap.servers"] == "b:9092"


def test_top_level_worker_keys_override_cluster_values() -> None:
    cfg = mm2(SAMPLE + "B.offset.storage.topic = b-offsets\noffset.storage.topic = all-offsets\n"
              "B.key.converter = B.Conv\nkey.converter = Top.Conv\nB.task.shutdown.graceful.timeout.ms = 1\n"
              "task.shutdown.graceful.timeout.ms = 2\nB.replication.policy.separator = _\n"
              "replication.policy.separator = __\nB.status.storage.topic = b-status\n")
    worker = cfg.worker_config(Flow("A", "B"))
    assert worker["offset.storage.topic"] == "all-offsets" and worker["key.converter"] == "Top.Conv"
    assert worker["task.shutdown.graceful.timeout.ms"] == "2" and worker["replication.policy.separator"] == "__"
    assert worker["status.storage.topic"] == "b-status", "no top-level value: the cluster's own stays"


def test_connector_clients_layer_as_mirror_connector_config() -> None:
    cfg = mm2(SAMPLE + "A.linger.ms = 5\nA.consumer.enable.auto.commit = true\nA->B.consumer.fetch.min.bytes = 7\n"
              "A->B.producer.acks = 1\nA->B.consumer.poll.timeout.ms = 250\nA->B.admin.timeout.ms = 9000\n")
    raw = cfg.connector_config(Flow("A", "B"), "MirrorSourceConnector")
    assert raw["source.cluster.linger.ms"] == "5", "non-client cluster settings stay in the connector config"
    source = MirrorConfig(SOURCE, raw)
    producer = source.client("source", "producer")  # offset syncs
    assert "linger.ms" not in producer, "only bootstrap/security/SSL/SASL come from source.cluster.*"
    assert producer["acks"] == "1" and source.client("target", "producer")["acks"] == "1"
    consumer = source.client("source", "consumer")
    assert consumer["enable.auto.commit"] == "false", "forced, as MirrorConnectorConfig does"
    assert consumer["fetch.min.bytes"] == "7" and source.client("target", "consumer")["fetch.min.bytes"] == "7"
    assert consumer["auto.offset.reset"] == "earliest"
    for side in ("source", "target"):
        assert "group.id" not in source.client(side, "consumer"), "Kafka sets no group.id on these consumers"
        assert "poll.timeout.ms" not in source.client(side, "consumer")
        assert "timeout.ms" not in source.client(side, "admin")


def test_top_level_connector_settings_are_passed_on(caplog: pytest.LogCaptureFixture) -> None:
    extra = ("errors.tolerance = all\nerrors.log.enable = true\ntransforms = \nkey.converter = K\n"
             "header.converter = H\ntasks.max.enforce = false\nssl.endpoint.identification.algorithm = \n"
             "transforms.t.type = org.example.T\nlinger.ms = 5\n")
    with caplog.at_level(logging.WARNING):
        cfg = mm2(SAMPLE + extra)
    for name in DEFS:
        config = cfg.connector_config(Flow("A", "B"), name)
        for key in ("errors.tolerance", "errors.log.enable", "transforms", "key.converter", "header.converter",
                    "tasks.max.enforce", "ssl.endpoint.identification.algorithm"):
            assert key in config, (name, key)
        assert "transforms.t.type" not in config and "linger.ms" not in config, "Kafka passes exact names only"
    for key in ("errors.tolerance", "transforms'", "key.converter", "tasks.max.enforce"):
        assert f"key '{key}" not in caplog.text, key
    assert "mm2.properties:24: top-level key 'transforms.t.type' is not used" in caplog.text
    assert "mm2.properties:25: top-level key 'linger.ms' is not used" in caplog.text


def test_flags_with_trailing_whitespace_are_false_as_in_java(caplog: pytest.LogCaptureFixture) -> None:
    text = SAMPLE.replace("A->B.enabled = true", "A->B.enabled = true ") + "emit.heartbeats.enabled = false\n"
    with caplog.at_level(logging.WARNING):
        cfg = mm2(text)
    assert cfg.flows == [], "Boolean.parseBoolean('true ') is false: no herder"
    assert "mm2.properties:5: A->B.enabled = 'true ' is false" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        cfg = mm2(SAMPLE + "emit.heartbeats.enabled = TRUE\t\n")
    assert [str(f) for f in cfg.flows] == ["A->B"], "global heartbeats read as false"
    assert "mm2.properties:17: emit.heartbeats.enabled = 'TRUE\\t' is false" in caplog.text


def test_empty_list_items_as_java_list(caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(ConfigFileError) as err:
        mm2(SAMPLE.replace("clusters = A, B", "clusters = A, B,"))
    assert str(err.value).startswith("mm2.properties:2: clusters: empty cluster alias")
    with caplog.at_level(logging.WARNING):
        cfg = mm2(SAMPLE.replace("A->B.topics = .*", "A->B.topics = orders, , payments"))
    assert "mm2.properties:6: A->B.topics: the list 'orders, , payments' has an empty item" in caplog.text
    assert cfg.connector_config(Flow("A", "B"), "MirrorSourceConnector")["topics"] == "orders, , payments"


def test_top_level_security_protocol_is_checked() -> None:
    with pytest.raises(ConfigFileError) as err:
        mm2(SAMPLE + "security.protocol = TLS\n")
    assert str(err.value).startswith("mm2.properties:17: security.protocol: Invalid value TLS")
    assert mm2(SAMPLE + "security.protocol = sasl_ssl\n").values["security.protocol"] == "sasl_ssl"


def test_worker_errors_name_the_files_line() -> None:
    from replikafka.mirror_maker import worker_configs

    with pytest.raises(ConfigFileError) as err:
        worker_configs(mm2(SAMPLE + "B.status.storage.partitions = 0\n"), "http://127.0.0.1:0")
    assert str(err.value).startswith("mm2.properties:17: status.storage.partitions:")


def test_clients_trim_values_as_java_configdef_but_not_passwords() -> None:
    cfg = mm2(SAMPLE + "A.security.protocol = SSL \nA.ssl.truststore.location = /ca.pem \nA.ssl.key.password = pw \n"
              "A.ssl.keystore.location = /k.p12\n")
    consumer = MirrorConfig(SOURCE, cfg.connector_config(Flow("A", "B"), "MirrorSourceConnector")).client(
        "source", "consumer")
    assert consumer["security.protocol"] == "SSL" and consumer["ssl.ca.location"] == "/ca.pem"
    assert consumer["ssl.key.password"] == "pw ", "PASSWORD values are not trimmed by Java's ConfigDef"


def test_connector_list_settings_keep_empty_items_as_java() -> None:
    raw = mm2(SAMPLE.replace("A->B.topics = .*", "A->B.topics = a,,b")).connector_config(
        Flow("A", "B"), "MirrorSourceConnector")
    assert MirrorConfig(SOURCE, raw)["topics"] == ["a", "", "b"]


# librdkafka's names of client security settings, each with the Java setting(s) it corresponds to.
TWINS = [
    ("ssl.truststore.location = /ca.pem\nssl.truststore.type = PEM\n", "ssl.ca.location = /ca.pem\n"),
    ("sasl.mechanism = PLAIN\n", "sasl.mechanisms = PLAIN\n"),
    ('sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required username="u" '
     'password="p ";\n', "sasl.username = u\nsasl.password = p \n"),
    ("ssl.keystore.type = PEM\nssl.keystore.location = /id.pem\n",
     "ssl.certificate.location = /id.pem\nssl.key.location = /id.pem\n"),
]
SCOPES = ["", "A.", "B.", "A.consumer.", "B.producer.", "A.admin.", "A->B.", "A->B.source.consumer."]

@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize(("java", "librdkafka"), TWINS)
def test_librdkafka_security_names_behave_as_the_java_names_at_every_scope(scope: str, java: str,
                                                                           librdkafka: str) -> None:
    """MirrorMakerConfig.clusterProps carries the top-level client security settings (CLIENT_CONFIG_DEF's)
    to every cluster and `<cluster>.` ones to its clients: librdkafka's names go exactly where Java's go
    (under `<source>-><target>.` a bare client setting reaches no client, in Java as here: a flow's
    clients read `<side>.<role>.*`). A password keeps its trailing space (Java's PASSWORD type)."""
    def scoped(lines: str) -> str:
        return "".join(scope + line + "\n" for line in lines.splitlines())

    base = TLS.split("security.protocol")[0] + "security.protocol = SASL_SSL\n"
    with_java, with_librdkafka = _every_client(base + scoped(java)), _every_client(base + scoped(librdkafka))
    assert with_librdkafka == with_java
    if scope != "A->B.":
        assert with_java != _every_client(base), "the setting reaches some client"
    if not scope:
        assert all("ssl.ca.location" in c or "sasl.mechanisms" in c or "sasl.username" in c
                   or "ssl.certificate.location" in c for c in with_librdkafka), "top level: every client"


def test_a_top_level_librdkafka_security_name_is_not_warned_about(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        mm2(TLS + "ssl.ca.location = /ca.pem\nsasl.username = u\nssl.key.location = /k.pem\n")
    assert "is not used" not in caplog.text


def test_per_connector_scope_and_state() -> None:
    """`<flow>.<Connector>.<key>` reaches that connector only, above the flow's value (Strimzi's per-connector
    sourceConnector/checkpointConnector settings); `.state` is read as the connector's target state."""
    cfg = mm2(SAMPLE + "A->B.tasks.max = 2\nA->B.MirrorSourceConnector.tasks.max = 5\n"
              "A->B.MirrorCheckpointConnector.state = Paused\n"
              "A->B.MirrorHeartbeatConnector.auto.restart.enabled = true\n")
    flow = Flow("A", "B")
    source, checkpoint = (cfg.connector_config(flow, n)
                          for n in ("MirrorSourceConnector", "MirrorCheckpointConnector"))
    assert source["tasks.max"] == "5" and checkpoint["tasks.max"] == "2"
    leaked = [k for c in (source, checkpoint) for k in c if k.startswith("Mirror") or k == "state"]
    assert leaked == [], "the scope and the state are not connector settings"
    assert cfg.connector_config(flow, "MirrorHeartbeatConnector")["auto.restart.enabled"] == "true"
    assert str(cfg.connector_state(flow, "MirrorCheckpointConnector")) == "PAUSED"
    assert cfg.connector_state(flow, "MirrorSourceConnector") is None


@pytest.mark.parametrize(("line", "fragment"), [
    ("A->B.MirrorSourceConnector.state = sleeping", "invalid state 'sleeping'"),
    ("A->B.state = paused", "set per connector"),
    ("A->B.MirrorSourceConnector.auto.restart.max.restarts = -3", "auto.restart.max.restarts"),
])
def test_bad_per_connector_values_name_line_and_key(line: str, fragment: str) -> None:
    with pytest.raises(ConfigFileError) as err:
        mm2(SAMPLE + line + "\n")
    assert "mm2.properties:17" in str(err.value) and fragment in str(err.value), str(err.value)


def test_dedicated_mode_refuses_admin_listeners() -> None:
    """Kafka's dedicated MirrorMaker serves no admin endpoints of its own: `<alias>.admin.listeners` is refused
    at start (before any port is bound), not accepted and ignored."""
    from replikafka.mirror_maker import MirrorMaker

    config = MirrorMakerConfig(parse_properties(
        "clusters = A, B\nA.bootstrap.servers = a:9092\nB.bootstrap.servers = b:9092\nA->B.enabled = true\n"
        "B.admin.listeners = http://127.0.0.1:0\n", "mm2.properties"))
    with pytest.raises(ValueError, match="admin.listeners: not supported by a dedicated MirrorMaker"):
        MirrorMaker(config, "http://127.0.0.1:0")


@pytest.mark.parametrize(("value", "fragment"), [
    ("false", "not implemented: every flow's REST API"), ("maybe", "Expected value to be either true or false")])
def test_internal_rest_can_only_be_on(value: str, fragment: str) -> None:
    """KIP-710's dedicated.mode.enable.internal.rest: the flows' REST API is always served here, so only true
    (what this runtime does) is accepted, and anything else names the file's line."""
    mm2(SAMPLE + "dedicated.mode.enable.internal.rest = true\n")
    with pytest.raises(ConfigFileError) as err:
        mm2(SAMPLE + f"dedicated.mode.enable.internal.rest = {value}\n")
    assert str(err.value).startswith("mm2.properties:17: dedicated.mode.enable.internal.rest: ") and \
        fragment in str(err.value)
