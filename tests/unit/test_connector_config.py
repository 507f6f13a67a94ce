"""Connect's common connector keys: what the runtime does not implement is refused, never ignored."""

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


def test_unimplemented_features_are_refused_with_the_key() -> None:
    found = errors(transforms="route", predicates="p", errors_tolerance="all",
                   errors_deadletterqueue_topic_name="dlq", errors_retry_timeout="60000",
                   value_converter="io.confluent.connect.avro.AvroConverter")
    assert [e.split(":", 1)[0] for e in found] == [
        "value.converter", "errors.tolerance", "errors.retry.timeout", "errors.deadletterqueue.topic.name",
        "transforms.route.type", "predicates.p.type"]
    assert all("not supported by this runtime yet" in e for e in found[1:4])
    # Transforms are applied now: an alias without its class is Connect's missing-key error.
    assert found[4].endswith('Missing required configuration "transforms.route.type" which has no default value.')
