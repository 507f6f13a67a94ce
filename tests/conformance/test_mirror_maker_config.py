"""Kafka's MirrorMakerConfigTest, ported: what MirrorMakerConfig makes of an mm2.properties file.

Deviations kept on purpose (our file loader is stricter than Java's):
- a listed cluster needs bootstrap.servers (its own or the top-level one); Java would default to
  localhost:9092, so `props()` adds that default for clusters a case leaves without one;
- `<source>-><target>.*` keys must name listed clusters, so cases using a `source->target` flow list
  `source` and `target` in `clusters`.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from connectors.mirror.client_config import MirrorClientConfig
from connectors.mirror.config import CHECKPOINT, JMX_REPORTER, SOURCE, MirrorConfig
from connectors.mirror.maker_config import Flow, MirrorMakerConfig
from pyconnect.api.config import ConfigException
from pyconnect.api.config_provider import ConfigProvider
from pyconnect.config.properties import ConfigFileError, Entry, Properties

FAKE_PROVIDER = f"{__name__}:FakeConfigProvider"

class FakeConfigProvider(ConfigProvider):
    """Kafka's MirrorMakerConfigTest.FakeConfigProvider: every key of every path is `secret2`."""

    def get(self, path: str, keys: set[str]) -> dict[str, str]:
        return {key: "secret2" for key in keys}


def props(*pairs: str) -> Properties:
    """The file a case builds with makeProps, one key per line, in order."""
    values = dict(zip(pairs[::2], pairs[1::2], strict=True))
    if "bootstrap.servers" not in values:
        for alias in [a.strip() for a in values.get("clusters", "").split(",")]:
            values.setdefault(f"{alias}.bootstrap.servers", "localhost:9092")
    return Properties("mm2.properties", {k: Entry(v, n) for n, (k, v) in enumerate(values.items(), start=1)})


def mm2(*pairs: str) -> MirrorMakerConfig:
    return MirrorMakerConfig(props(*pairs))


def count_pairs(*pairs: str) -> int:
    return len(mm2(*pairs).flows)


def source_config(raw: Mapping[str, str]) -> MirrorConfig:
    return MirrorConfig(SOURCE, raw)


@pytest.mark.kafka("MirrorMakerConfigTest.testClusterConfigProperties")
def test_cluster_config_properties() -> None:
    cfg = mm2("clusters", "a, b", "a.bootstrap.servers", "servers-one", "b.bootstrap.servers", "servers-two",
              "security.protocol", "SSL", "replication.factor", "4")
    connector = cfg.connector_config(Flow("a", "b"), "MirrorSourceConnector")
    assert connector["source.cluster.bootstrap.servers"] == "servers-one"
    assert connector["target.cluster.bootstrap.servers"] == "servers-two"
    assert connector["security.protocol"] == "SSL", "top-level security.protocol is passed to the connector"


@pytest.mark.kafka("MirrorMakerConfigTest.testReplicationConfigProperties")
def test_replication_config_properties() -> None:
    connector = mm2("clusters", "a, b", "a->b.tasks.max", "123").connector_config(Flow("a", "b"),
                                                                                   "MirrorSourceConnector")
    assert connector["tasks.max"] == "123"


@pytest.mark.kafka("MirrorMakerConfigTest.testClientConfigProperties")
def test_client_config_properties() -> None:
    cfg = mm2("clusters", "a, b", "config.providers", "fake", "config.providers.fake.class", FAKE_PROVIDER,
              "replication.policy.separator", "__", "ssl.truststore.password", "secret1",
              "ssl.key.password", "${fake:secret:password}", "security.protocol", "SSL",
              "a.security.protocol", "PLAINTEXT", "a.producer.security.protocol", "SSL",
              "a.bootstrap.servers", "one:9092, two:9092", "metrics.reporter", "FakeMetricsReporter",
              "a.metrics.reporter", "FakeMetricsReporter", "b->a.metrics.reporter", "FakeMetricsReporter",
              "a.xxx", "yyy", "xxx", "zzz")
    a = MirrorClientConfig(cfg.client_config("a"))
    b = MirrorClientConfig(cfg.client_config("b"))
    assert a.props["replication.policy.separator"] == "__"
    assert a.replication_policy().format_remote_topic("b", "topic1") == "b__topic1"
    assert a.admin_config()["bootstrap.servers"] == "one:9092, two:9092"
    assert a.admin_config()["security.protocol"] == "PLAINTEXT"
    assert a.producer_config()["security.protocol"] == "SSL"
    assert "xxx" not in a.admin_config() and "metric.reporters" not in a.admin_config()
    assert a.props["ssl.truststore.password"] == "secret1" == a.admin_config()["ssl.truststore.password"]
    assert a.props["ssl.key.password"] == "secret2" == a.admin_config()["ssl.key.password"]
    assert "metrics.reporter" not in a.producer_config() and "metrics.reporter" not in b.admin_config()


@pytest.mark.kafka("MirrorMakerConfigTest.testIncludesConnectorConfigProperties")
def test_includes_connector_config_properties() -> None:
    """Kafka's case names its test class FakeMetricsReporter in metric.reporters; Java reporter classes do not
    load here (only JmxReporter, Java's default, is accepted), so the passed-on value is JmxReporter."""
    cfg = mm2("clusters", "a, b", "tasks.max", "100", "topics", "topic-1", "groups", "group-2",
              "replication.policy.separator", "__", "config.properties.exclude", "property-3",
              "metric.reporters", JMX_REPORTER, "topic.filter.class",
              "org.apache.kafka.connect.mirror.DefaultTopicFilter", "xxx", "yyy")
    raw = cfg.connector_config(Flow("source", "target"), "MirrorSourceConnector")
    source = source_config(raw)
    assert source["tasks.max"] == 100 and source["topics"] == ["topic-1"]
    assert MirrorConfig(CHECKPOINT, raw)["groups"] == ["group-2"]
    assert source["config.properties.exclude"] == ["property-3"]
    assert source["metric.reporters"] == [JMX_REPORTER]
    assert type(source.topic_filter()).__name__ == "DefaultTopicFilter"
    assert source["replication.policy.separator"] == "__"
    assert "xxx" not in raw, "unknown properties are not passed to the connectors"


@pytest.mark.kafka("MirrorMakerConfigTest.testConfigBackwardsCompatibility")
def test_config_backwards_compatibility() -> None:
    cfg = mm2("clusters", "a, b", "groups.blacklist", "group-7", "topics.blacklist", "topic3",
              "config.properties.blacklist", "property-3",
              "topic.filter.class", "org.apache.kafka.connect.mirror.DefaultTopicFilter")
    raw = cfg.connector_config(Flow("source", "target"), "MirrorSourceConnector")
    assert not source_config(raw).topic_filter().should_replicate_topic("topic3")
    assert not MirrorConfig(CHECKPOINT, raw).group_filter().should_replicate_group("group-7")
    assert not source_config(raw).config_property_filter().should_replicate_config_property("property-3")


@pytest.mark.kafka("MirrorMakerConfigTest.testConfigBackwardsCompatibilitySourceTarget")
def test_config_backwards_compatibility_source_target() -> None:
    cfg = mm2("clusters", "source, target", "source->target.topics.blacklist", "topic3",
              "source->target.groups.blacklist", "group-7",
              "topic.filter.class", "org.apache.kafka.connect.mirror.DefaultTopicFilter")
    raw = cfg.connector_config(Flow("source", "target"), "MirrorSourceConnector")
    assert not source_config(raw).topic_filter().should_replicate_topic("topic3")
    assert not MirrorConfig(CHECKPOINT, raw).group_filter().should_replicate_group("group-7")


@pytest.mark.kafka("MirrorMakerConfigTest.testIncludesTopicFilterProperties")
def test_includes_topic_filter_properties() -> None:
    cfg = mm2("clusters", "source, target", "source->target.topics", "topic1, topic2",
              "source->target.topics.exclude", "topic3")
    source = source_config(cfg.connector_config(Flow("source", "target"), "MirrorSourceConnector"))
    assert source["topics"] == ["topic1", "topic2"] and source["topics.exclude"] == ["topic3"]


@pytest.mark.kafka("MirrorMakerConfigTest.testWorkerConfigs")
def test_worker_configs() -> None:
    cfg = mm2("clusters", "a, b", "config.providers", "fake", "config.providers.fake.class", FAKE_PROVIDER,
              "replication.policy.separator", "__", "offset.storage.replication.factor", "123",
              "b.status.storage.replication.factor", "456", "b.producer.client.id", "client-one",
              "b.security.protocol", "PLAINTEXT", "b.producer.security.protocol", "SASL",
              "ssl.truststore.password", "secret1", "ssl.key.password", "${fake:secret:password}", "b.xxx", "yyy")
    a = cfg.worker_config(Flow("b", "a"))
    assert a["offset.storage.replication.factor"] == "123" and a["replication.policy.separator"] == "__"
    b = cfg.worker_config(Flow("a", "b"))
    assert b["status.storage.replication.factor"] == "456"
    assert b["producer.client.id"] == "client-one"
    assert b["producer.security.protocol"] == "SASL", "the cluster's producer setting wins"
    assert b["consumer.security.protocol"] == "PLAINTEXT"
    assert b["ssl.truststore.password"] == "secret1" == b["producer.ssl.truststore.password"]
    assert b["ssl.key.password"] == "secret2" == b["producer.ssl.key.password"], "providers resolved"
    assert b["replication.policy.separator"] == "__"


@pytest.mark.kafka("MirrorMakerConfigTest.testClusterPairsWithDefaultSettings")
def test_cluster_pairs_with_default_settings() -> None:
    assert count_pairs("clusters", "a, b, c") == 6, "every pair emits heartbeats by default"


@pytest.mark.kafka("MirrorMakerConfigTest.testEmptyClusterPairsWithGloballyDisabledHeartbeats")
def test_empty_cluster_pairs_with_globally_disabled_heartbeats() -> None:
    assert count_pairs("clusters", "a, b, c", "emit.heartbeats.enabled", "false") == 0


@pytest.mark.kafka("MirrorMakerConfigTest.testClusterPairsWithTwoDisabledHeartbeats")
def test_cluster_pairs_with_two_disabled_heartbeats() -> None:
    assert count_pairs("clusters", "a, b, c", "a->b.emit.heartbeats.enabled", "false",
                       "a->c.emit.heartbeats.enabled", "false") == 4


@pytest.mark.kafka("MirrorMakerConfigTest.testClusterPairsWithGloballyDisabledHeartbeats")
def test_cluster_pairs_with_globally_disabled_heartbeats() -> None:
    cfg = mm2("clusters", "a, b, c, d, e, f", "emit.heartbeats.enabled", "false", "a->b.enabled", "true",
              "a->c.enabled", "true", "a->d.enabled", "true", "a->e.enabled", "false", "a->f.enabled", "false")
    assert len(cfg.flows) == 3
    assert Flow("b", "a") not in cfg.flows, "an unset flow gets no herder"


@pytest.mark.kafka("MirrorMakerConfigTest.testClusterPairsWithGloballyDisabledHeartbeatsCentralLocal")
def test_cluster_pairs_with_globally_disabled_heartbeats_central_local() -> None:
    assert count_pairs("clusters", "central, local_one, local_two, beats_emitter", "emit.heartbeats.enabled",
                       "false", "central->local_one.enabled", "true", "central->local_two.enabled", "true",
                       "beats_emitter->central.emit.heartbeats.enabled", "true") == 3


@pytest.mark.kafka("MirrorMakerConfigTest.testInvalidSecurityProtocol")
def test_invalid_security_protocol() -> None:
    with pytest.raises(ConfigFileError) as err:
        mm2("clusters", "a, b, c", "a->b.emit.heartbeats.enabled", "false", "a->c.emit.heartbeats.enabled",
            "false", "security.protocol", "abc")
    assert "security.protocol" in str(err.value) and str(err.value).startswith("mm2.properties:4: ")


@pytest.mark.kafka("MirrorMakerConfigTest.testClientInvalidSecurityProtocol")
def test_client_invalid_security_protocol() -> None:
    with pytest.raises(ConfigException) as err:
        MirrorClientConfig({"security.protocol": "abc"})
    assert "security.protocol" in str(err.value)


@pytest.mark.kafka("MirrorMakerConfigTest.testCaseInsensitiveSecurityProtocol")
def test_case_insensitive_security_protocol() -> None:
    assert MirrorClientConfig({"security.protocol": "sasl_ssl"}).props["security.protocol"] == "sasl_ssl"
