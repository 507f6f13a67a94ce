"""Kafka's MirrorCheckpointConfigTest, ported (Kafka's client.id labels are not set by pyconnect, so
the client cases compare everything but client.id)."""

from __future__ import annotations

import pytest

from connectors.mirror.checkpoint import MirrorCheckpointConnector
from connectors.mirror.client_config import java_client_config
from connectors.mirror.config import CHECKPOINT, MirrorConfig
from tests.harness.mirror import make_props


def checkpoint(*pairs: str) -> MirrorConfig:
    return MirrorConfig(CHECKPOINT, make_props(*pairs))


def invalid_keys(*pairs: str) -> set[str]:
    """MirrorCheckpointConfig.validate: the keys the connector's validation flags."""
    values = MirrorCheckpointConnector().validate(make_props(*pairs))
    return {name for name, value in values.items() if value.errors}


@pytest.mark.kafka("MirrorCheckpointConfigTest.testTaskConfigConsumerGroups")
def test_task_config_consumer_groups() -> None:
    groups = ["consumer-1", "consumer-2", "consumer-3"]
    connector = MirrorCheckpointConnector()
    # The connector's task split without brokers: what start() would have found.
    connector.cfg, connector.raw, connector._groups = checkpoint(), make_props(), groups
    (task,) = connector.task_configs(1)
    assert set(task["task.assigned.groups"].split(",")) == set(groups) and task["task.index"] == "0"


@pytest.mark.kafka("MirrorCheckpointConfigTest.testGroupMatching")
def test_group_matching() -> None:
    groups = checkpoint("groups", "group1").group_filter()
    assert groups.should_replicate_group("group1") and not groups.should_replicate_group("group2")


@pytest.mark.kafka("MirrorCheckpointConfigTest.testNonMutationOfConfigDef")
def test_non_mutation_of_config_def() -> None:
    assert "task.assigned.groups" not in CHECKPOINT.keys, "a task setting, not a connector setting"


@pytest.mark.kafka("MirrorCheckpointConfigTest.testConsumerConfigsForOffsetSyncsTopic")
def test_consumer_configs_for_offset_syncs_topic() -> None:
    pairs = ("source.consumer.max.partition.fetch.bytes", "1", "target.consumer.heartbeat.interval.ms", "1",
             "consumer.max.poll.interval.ms", "1", "fetch.min.bytes", "1")
    cfg = checkpoint(*pairs)
    assert java_client_config(cfg.raw, cfg.offset_syncs_side(), "consumer") == {
        "max.partition.fetch.bytes": "1", "max.poll.interval.ms": "1", "enable.auto.commit": "false",
        "auto.offset.reset": "earliest"}
    cfg = checkpoint(*pairs, "offset-syncs.topic.location", "target")
    assert java_client_config(cfg.raw, cfg.offset_syncs_side(), "consumer") == {
        "heartbeat.interval.ms": "1", "max.poll.interval.ms": "1", "enable.auto.commit": "false",
        "auto.offset.reset": "earliest"}


@pytest.mark.kafka("MirrorCheckpointConfigTest.testSkipValidationIfConnectorDisabled")
def test_skip_validation_if_connector_disabled() -> None:
    assert invalid_keys("enabled", "false", "emit.checkpoints.enabled", "false",
                        "sync.group.offsets.enabled", "false") == set()
    assert invalid_keys("enabled", "false", "emit.checkpoints.enabled", "true",
                        "emit.offset-syncs.enabled", "false") == set()


@pytest.mark.kafka("MirrorCheckpointConfigTest.testValidateIfConnectorEnabled")
def test_validate_if_connector_enabled() -> None:
    assert invalid_keys("emit.checkpoints.enabled", "false", "sync.group.offsets.enabled", "false") == {
        "emit.checkpoints.enabled"}
    assert invalid_keys("emit.checkpoints.enabled", "true", "emit.offset-syncs.enabled", "false") == {
        "emit.offset-syncs.enabled"}
    assert invalid_keys("emit.checkpoints.enabled", "true", "emit.offset-syncs.enabled", "true") == set()
