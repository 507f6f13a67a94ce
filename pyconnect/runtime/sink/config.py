"""The keys every sink connector has (Connect's SinkConnectorConfig): `topics` or `topics.regex`, and the
cross-key rules AbstractHerder checks for sinks, with Connect's messages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.runtime.errors.config_keys import DLQ_KEYS
from pyconnect.runtime.errors.dlq_validation import dlq_errors
from pyconnect.transforms.simple_config import regex

TOPICS, TOPICS_REGEX = "topics", "topics.regex"

# SinkConnectorConfig's keys: the topics to consume, and the dead letter queue's (errors_handling).
SINK = DLQ_KEYS.merge(ConfigDef([
    ConfigKey(TOPICS, ConfigType.LIST, "", Importance.HIGH, "List of topics to consume, separated by commas",
              group="Common", order=4, display_name="Topics"),
    ConfigKey(TOPICS_REGEX, ConfigType.STRING, "", Importance.HIGH,
              "Regular expression giving topics to consume. Under the hood, the regex is compiled to a "
              "<code>java.util.regex.Pattern</code>. Only one of topics or topics.regex should be specified.",
              group="Common", order=4, display_name="Topics regex", validator=regex),
]))


def topics(config: Mapping[str, Any]) -> tuple[str, ...]:
    """The `topics` list, items trimmed, empty items dropped."""
    raw = config.get(TOPICS) or ""
    items = raw if isinstance(raw, list) else str(raw).split(",")
    return tuple(t.strip() for t in items if t.strip())


def topics_regex(config: Mapping[str, Any]) -> str | None:
    raw = str(config.get(TOPICS_REGEX) or "").strip()
    return raw or None


def sink_errors(config: Mapping[str, Any]) -> dict[str, list[str]]:
    """Connect's SinkConnectorConfig.validate: exactly one of topics / topics.regex, and a dead-letter
    queue that is not one of the connector's own input topics (`dlq_errors`)."""
    listed, pattern = topics(config), topics_regex(config)
    if listed and pattern:
        message = "topics and topics.regex are mutually exclusive options, but both are set."
        return {TOPICS: [message], TOPICS_REGEX: [message]}
    if not listed and not pattern:
        message = "Must configure one of topics or topics.regex"
        return {TOPICS: [message], TOPICS_REGEX: [message]}
    return dlq_errors(config)
