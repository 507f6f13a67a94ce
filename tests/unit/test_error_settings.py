"""ErrorSettings, ERROR_KEYS/DLQ_KEYS and dlq_errors: Connect's ConnectorConfig/SinkConnectorConfig error
keys (each case names its Kafka source)."""

from __future__ import annotations

import pytest

from pyconnect.api.config import ConfigException
from pyconnect.runtime.errors import (
    DLQ_KEYS,
    ERROR_KEYS,
    ErrorSettings,
    ToleranceType,
    dlq_errors,
)


def test_default_configs() -> None:
    """RetryWithToleranceOperatorTest.testDefaultConfigs (and SinkConnectorConfig's DLQ defaults)."""
    assert ErrorSettings.from_config({"name": "x"}) == ErrorSettings(
        tolerance=ToleranceType.NONE, retry_timeout_ms=0, retry_delay_max_ms=60000, log_enable=False,
        log_include_messages=False, dlq_topic="", dlq_replication_factor=3, dlq_context_headers=False)


def test_set_configs() -> None:
    """RetryWithToleranceOperatorTest.testSetConfigs and ErrorReporterTest.testSetDLQConfigs"""
    settings = ErrorSettings.from_config({
        "errors.retry.timeout": "100", "errors.retry.delay.max.ms": "100", "errors.tolerance": "ALL",
        "errors.log.enable": "true", "errors.log.include.messages": "TRUE",
        "errors.deadletterqueue.topic.name": " test-topic-errors ",
        "errors.deadletterqueue.topic.replication.factor": "7",
        "errors.deadletterqueue.context.headers.enable": "true"})
    assert settings == ErrorSettings(ToleranceType.ALL, 100, 100, True, True, "test-topic-errors", 7, True)
    assert settings.dlq_enabled and settings.errant_record_reporter_enabled
    assert ErrorSettings.from_config({"errors.tolerance": "none"}).tolerance is ToleranceType.NONE
    assert ErrorSettings.from_config({"errors.retry.timeout": "-1"}).retry_timeout_ms == -1


@pytest.mark.parametrize("key, value, message", [
    ("errors.tolerance", "some", "String must be one of (case insensitive): none, all"),
    ("errors.retry.timeout", "-2", "Value must be at least -1"),
    ("errors.retry.timeout", "soon", "Not a number of type LONG"),
    ("errors.retry.delay.max.ms", "-1", "Value must be at least 0"),
    ("errors.log.enable", "yes", "Expected value to be either true or false"),
    ("errors.deadletterqueue.topic.replication.factor", "0", "Value must be at least 1"),
    ("errors.deadletterqueue.topic.replication.factor", "40000", "Value must be a SHORT"),
])
def test_bad_values(key: str, value: str, message: str) -> None:
    """ConnectorConfig/SinkConnectorConfig validation: each bad value is refused, naming the key."""
    with pytest.raises(ConfigException) as info:
        ErrorSettings.from_config({key: value})
    assert list(info.value.errors) == [key]
    assert message in info.value.errors[key][0]


def test_config_keys_as_java() -> None:
    """ConnectorConfig.configDef / SinkConnectorConfig.CONFIG: the error group's keys, types, defaults, order."""
    rows = [(k.name, k.type.value, k.default, k.group, k.order, k.display_name)
            for k in [*ERROR_KEYS.keys.values(), *DLQ_KEYS.keys.values()]]
    assert rows == [
        ("errors.retry.timeout", "LONG", 0, "Error Handling", 1, "Retry Timeout for Errors"),
        ("errors.retry.delay.max.ms", "LONG", 60000, "Error Handling", 2, "Maximum Delay Between Retries for Errors"),
        ("errors.tolerance", "STRING", "none", "Error Handling", 3, "Error Tolerance"),
        ("errors.log.enable", "BOOLEAN", False, "Error Handling", 4, "Log Errors"),
        ("errors.log.include.messages", "BOOLEAN", False, "Error Handling", 5, "Log Error Details"),
        ("errors.deadletterqueue.topic.name", "STRING", "", "Error Handling", 6, "Dead Letter Queue Topic Name"),
        ("errors.deadletterqueue.topic.replication.factor", "SHORT", 3, "Error Handling", 7,
         "Dead Letter Queue Topic Replication Factor"),
        ("errors.deadletterqueue.context.headers.enable", "BOOLEAN", False, "Error Handling", 8,
         "Enable Error Context Headers"),
    ]
    assert all(k.documentation and k.importance.value == "MEDIUM" for k in ERROR_KEYS.keys.values())


def test_dlq_topic_in_topics_list() -> None:
    """ConnectorValidationIntegrationTest.testSinkConnectorDeadLetterQueueTopicInTopicsList"""
    assert dlq_errors({"topics": "t1", "errors.deadletterqueue.topic.name": "t1"}) == {"topics": [
        "The DLQ topic 't1' may not be included in the list of topics ('topics=[t1]') consumed by the connector"]}
    assert dlq_errors({"topics": "a, t1,,a", "errors.deadletterqueue.topic.name": " t1 "}) == {"topics": [
        "The DLQ topic 't1' may not be included in the list of topics ('topics=[a, t1]') consumed by the "
        "connector"]}


def test_dlq_topic_matches_topics_regex() -> None:
    """ConnectorValidationIntegrationTest.testSinkConnectorDeadLetterQueueTopicMatchesTopicsRegex"""
    assert dlq_errors({"topics.regex": "r.*", "errors.deadletterqueue.topic.name": "ruh.roh"}) == {"topics.regex": [
        "The DLQ topic 'ruh.roh' may not be matched by the regex for the topics ('topics.regex=r.*') consumed "
        "by the connector"]}


def test_dlq_topic_allowed() -> None:
    """SinkConnectorConfig.validate: a DLQ outside the consumed topics, or none, is fine."""
    assert dlq_errors({"topics": "t1,t2", "errors.deadletterqueue.topic.name": "dlq"}) == {}
    assert dlq_errors({"topics.regex": "r.*", "errors.deadletterqueue.topic.name": "xr"}) == {}  # full match only
    assert dlq_errors({"topics": "t1", "errors.deadletterqueue.topic.name": "  "}) == {}
    assert dlq_errors({"topics.regex": "(", "errors.deadletterqueue.topic.name": "x"}) == {}
