"""`GET /connector-plugins/<connector>/config` lists what Connect's ConnectorPluginsResource lists: for a
source connector SourceConnectorConfig.configDef(), which adds `topic.creation.groups` (KIP-158) to the common
keys; a sink connector has no such key (SinkConnectorConfig)."""

from __future__ import annotations

from pyconnect.plugins import PluginRegistry
from pyconnect.runtime.herder.config_validation import plugin_config


def names(plugin: str) -> list[str]:
    return [k.name for k in plugin_config(PluginRegistry(), plugin)]


def test_a_source_connector_lists_topic_creation_groups_and_a_sink_does_not() -> None:
    source = names("org.apache.kafka.connect.file.FileStreamSourceConnector")
    assert "topic.creation.groups" in source and "exactly.once.support" in source
    assert source.count("topic.creation.groups") == 1
    assert "topic.creation.groups" not in names("org.apache.kafka.connect.file.FileStreamSinkConnector")
