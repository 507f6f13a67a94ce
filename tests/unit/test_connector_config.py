"""Connect's common connector keys (ConnectorConfig) and a sink's (SinkConnectorConfig), with Connect's messages."""

from __future__ import annotations

from pyconnect.api.config import ConfigDef
from pyconnect.runtime.connector_config import common_errors

BASE = {"name": "c", "connector.class": "X"}


def errors(**extra: str) -> list[str]:
    return common_errors(ConfigDef([]), {**BASE, **{k.replace("_", "."): v for k, v in extra.items()}})


def test_defaults_and_implemented_converters_pass() -> None:
    assert errors() == []
    assert errors(transforms="", errors_tolerance="none", errors_retry_timeout="0") == []
    assert errors(key_converter="org.apache.kafka.connect.converters.ByteArrayConverter",
                  value_converter="JsonConverter", header_converter="SimpleHeaderConverter") == []


def test_error_handling_keys_are_accepted_and_checked() -> None:
    """ConnectorConfig's errors.* keys are applied now (runtime/errors_handling): valid values pass,
    invalid ones get the validators' messages."""
    assert errors(errors_tolerance="ALL", errors_retry_timeout="-1", errors_retry_delay_max_ms="1000",
                  errors_log_enable="true", errors_log_include_messages="true") == []
    found = errors(errors_tolerance="sometimes", transforms="route", predicates="p",
                   value_converter="io.confluent.connect.avro.AvroConverter")
    assert [e.split(":", 1)[0] for e in found] == [
        "value.converter", "errors.tolerance", "transforms.route.type", "predicates.p.type"]
    assert found[2].endswith('Missing required configuration "transforms.route.type" which has no default value.')


def sink_errors(**extra: str) -> list[str]:
    return common_errors(ConfigDef([]), {**BASE, **{k.replace("_", "."): v for k, v in extra.items()}}, sink=True)


def test_sink_topics_rules_have_connects_messages() -> None:
    """SinkConnectorConfig.validate and ConnectorValidationIntegrationTest's DLQ cases."""
    assert sink_errors() == ["topics: Must configure one of topics or topics.regex",
                             "topics.regex: Must configure one of topics or topics.regex"]
    both = "topics and topics.regex are mutually exclusive options, but both are set."
    assert sink_errors(topics="a", topics_regex="b.*") == [f"topics: {both}", f"topics.regex: {both}"]
    assert sink_errors(topics="a,dlq", errors_deadletterqueue_topic_name="dlq") == [
        "topics: The DLQ topic 'dlq' may not be included in the list of topics ('topics=[a, dlq]') consumed by "
        "the connector"]
    assert sink_errors(topics_regex="d.*", errors_deadletterqueue_topic_name="dlq") == [
        "topics.regex: The DLQ topic 'dlq' may not be matched by the regex for the topics ('topics.regex=d.*') "
        "consumed by the connector"]
    assert sink_errors(topics_regex="(") and sink_errors(topics="a", errors_deadletterqueue_topic_name="dlq") == []
