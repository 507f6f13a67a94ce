"""Kafka's MirrorSourceConfigTest, ported, plus the client-layering cases of MirrorConnectorConfigTest
(MirrorConnectorConfig's sourceConsumerConfig and friends, which every MM2 connector uses).

`java_client_config` is the layering in Java names; the connectors use its librdkafka translation
(`MirrorConfig.client`). Kafka's client.id labels (`source1->target2|ConnectorName|<role>`) are not
set by pyconnect, so the cases compare everything but client.id.
"""

from __future__ import annotations

import pytest

from connectors.mirror.client_config import java_client_config
from connectors.mirror.config import SOURCE, MirrorConfig
from connectors.mirror.source_connector import MirrorSourceConnector
from connectors.mirror.source_task import parse_partitions
from pyconnect.api.config import ConfigException
from tests.harness.mirror import make_props


def source(*pairs: str) -> MirrorConfig:
    return MirrorConfig(SOURCE, make_props(*pairs))


@pytest.mark.kafka("MirrorSourceConfigTest.testTaskConfigTopicPartitions")
def test_task_config_topic_partitions() -> None:
    connector = MirrorSourceConnector()
    # The connector's task split without brokers: what start() would have discovered.
    connector.cfg, connector.raw = source(), make_props()
    connector._partitions = {"topic-1": 3, "topic-3": 5, "topic-5": 7}
    (task,) = connector.task_configs(1)
    assert set(parse_partitions(task["task.assigned.partitions"])) == {
        (t, p) for t, n in connector._partitions.items() for p in range(n)}
    assert task["task.index"] == "0"


@pytest.mark.kafka("MirrorSourceConfigTest.testTopicMatching")
def test_topic_matching() -> None:
    topics = source("topics", "topic1").topic_filter()
    assert topics.should_replicate_topic("topic1") and not topics.should_replicate_topic("topic2")


@pytest.mark.kafka("MirrorSourceConfigTest.testConfigPropertyMatching")
def test_config_property_matching() -> None:
    props = source("config.properties.exclude", "prop2").config_property_filter()
    assert props.should_replicate_config_property("prop1")
    assert not props.should_replicate_config_property("prop2")


@pytest.mark.kafka("MirrorSourceConfigTest.testConfigBackwardsCompatibility")
def test_config_backwards_compatibility() -> None:
    cfg = source("config.properties.blacklist", "prop1", "topics.blacklist", "topic-1")
    assert not cfg.config_property_filter().should_replicate_config_property("prop1")
    assert cfg.config_property_filter().should_replicate_config_property("prop2")
    assert not cfg.topic_filter().should_replicate_topic("topic-1")
    assert cfg.topic_filter().should_replicate_topic("topic-2")


@pytest.mark.kafka("MirrorSourceConfigTest.testNoTopics")
def test_no_topics() -> None:
    topics = source("topics", "").topic_filter()
    assert not any(topics.should_replicate_topic(t) for t in ("topic1", "topic2", ""))


@pytest.mark.kafka("MirrorSourceConfigTest.testAllTopics")
def test_all_topics() -> None:
    topics = source("topics", ".*").topic_filter()
    assert topics.should_replicate_topic("topic1") and topics.should_replicate_topic("topic2")


@pytest.mark.kafka("MirrorSourceConfigTest.testListOfTopics")
def test_list_of_topics() -> None:
    topics = source("topics", "topic1, topic2").topic_filter()
    assert topics.should_replicate_topic("topic1") and topics.should_replicate_topic("topic2")
    assert not topics.should_replicate_topic("topic3")


@pytest.mark.kafka("MirrorSourceConfigTest.testNonMutationOfConfigDef")
def test_non_mutation_of_config_def() -> None:
    assert "task.assigned.partitions" not in SOURCE.keys, "a task setting, not a connector setting"
    assert parse_partitions("a-b-0,c-1") == [("a-b", 0), ("c", 1)], "tasks read it (split at the last '-')"


@pytest.mark.kafka("MirrorSourceConfigTest.testOffsetSyncsTopic")
def test_offset_syncs_topic() -> None:
    with pytest.raises(ConfigException):
        source("offset-syncs.topic.location", "something")
    assert source("offset-syncs.topic.location", "source").offset_syncs_topic() == "mm2-offset-syncs.target2.internal"
    assert source("offset-syncs.topic.location", "target").offset_syncs_topic() == "mm2-offset-syncs.source1.internal"
    assert source().offset_syncs_topic() == "mm2-offset-syncs.target2.internal", "source by default"


@pytest.mark.kafka("MirrorSourceConfigTest.testProducerConfigsForOffsetSyncsTopic")
def test_producer_configs_for_offset_syncs_topic() -> None:
    pairs = ("source.producer.batch.size", "1", "target.producer.acks", "1", "producer.max.poll.interval.ms", "1",
             "fetch.min.bytes", "1")
    cfg = source(*pairs)
    assert cfg.offset_syncs_side() == "source"
    assert java_client_config(cfg.raw, "source", "producer") == {"batch.size": "1", "max.poll.interval.ms": "1"}
    cfg = source(*pairs, "offset-syncs.topic.location", "target")
    assert cfg.offset_syncs_side() == "target"
    assert java_client_config(cfg.raw, "target", "producer") == {"acks": "1", "max.poll.interval.ms": "1"}


@pytest.mark.kafka("MirrorSourceConfigTest.testAdminConfigsForOffsetSyncsTopic")
def test_admin_configs_for_offset_syncs_topic() -> None:
    pairs = ("source.admin.request.timeout.ms", "1", "target.admin.send.buffer.bytes", "1",
             "admin.reconnect.backoff.max.ms", "1", "retries", "123")
    cfg = source(*pairs)
    assert java_client_config(cfg.raw, "source", "admin") == {"request.timeout.ms": "1",
                                                              "reconnect.backoff.max.ms": "1"}
    cfg = source(*pairs, "offset-syncs.topic.location", "target")
    assert java_client_config(cfg.raw, cfg.offset_syncs_side(), "admin") == {"send.buffer.bytes": "1",
                                                                             "reconnect.backoff.max.ms": "1"}


# MirrorConnectorConfigTest: the client layering -------------------------------------------------

@pytest.mark.kafka("MirrorConnectorConfigTest.testSourceConsumerConfig")
def test_source_consumer_config() -> None:
    raw = make_props("consumer.max.poll.interval.ms", "120000", "source.cluster.bootstrap.servers", "localhost:2345")
    assert java_client_config(raw, "source", "consumer") == {
        "enable.auto.commit": "false", "auto.offset.reset": "earliest", "max.poll.interval.ms": "120000",
        "bootstrap.servers": "localhost:2345"}
    raw = make_props("consumer.auto.offset.reset", "latest", "source.cluster.bootstrap.servers", "localhost:2345")
    assert java_client_config(raw, "source", "consumer") == {
        "enable.auto.commit": "false", "auto.offset.reset": "latest", "bootstrap.servers": "localhost:2345"}


@pytest.mark.kafka("MirrorConnectorConfigTest.testSourceConsumerConfigWithSourcePrefix")
def test_source_consumer_config_with_source_prefix() -> None:
    raw = make_props("source.consumer.auto.offset.reset", "latest", "source.consumer.max.poll.interval.ms", "100")
    assert java_client_config(raw, "source", "consumer") == {
        "enable.auto.commit": "false", "auto.offset.reset": "latest", "max.poll.interval.ms": "100"}


@pytest.mark.kafka("MirrorConnectorConfigTest.testSourceProducerConfig")
def test_source_producer_config() -> None:
    assert java_client_config(make_props("producer.acks", "1"), "source", "producer") == {"acks": "1"}


@pytest.mark.kafka("MirrorConnectorConfigTest.testSourceProducerConfigWithSourcePrefix")
def test_source_producer_config_with_source_prefix() -> None:
    assert java_client_config(make_props("source.producer.acks", "1"), "source", "producer") == {"acks": "1"}


@pytest.mark.kafka("MirrorConnectorConfigTest.testSourceAdminConfig")
def test_source_admin_config() -> None:
    raw = make_props("admin.connections.max.idle.ms", "10000")
    assert java_client_config(raw, "source", "admin") == {"connections.max.idle.ms": "10000"}


@pytest.mark.kafka("MirrorConnectorConfigTest.testSourceAdminConfigWithSourcePrefix")
def test_source_admin_config_with_source_prefix() -> None:
    raw = make_props("source.admin.connections.max.idle.ms", "10000")
    assert java_client_config(raw, "source", "admin") == {"connections.max.idle.ms": "10000"}


@pytest.mark.kafka("MirrorConnectorConfigTest.testTargetAdminConfig")
def test_target_admin_config() -> None:
    raw = make_props("admin.connections.max.idle.ms", "10000")
    assert java_client_config(raw, "target", "admin") == {"connections.max.idle.ms": "10000"}


@pytest.mark.kafka("MirrorConnectorConfigTest.testTargetAdminConfigWithSourcePrefix")
def test_target_admin_config_with_target_prefix() -> None:
    raw = make_props("target.admin.connections.max.idle.ms", "10000")
    assert java_client_config(raw, "target", "admin") == {"connections.max.idle.ms": "10000"}
