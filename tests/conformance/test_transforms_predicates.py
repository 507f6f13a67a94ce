"""Ports of Kafka's TopicNameMatchesTest and HasHeaderKeyTest (connect/transforms/predicates); Kafka has no
test class for RecordIsTombstone and Filter, whose own cases follow."""

from __future__ import annotations

import pytest

from pyconnect.api.config import ConfigException
from pyconnect.transforms import ConnectRecord, Headers
from pyconnect.transforms.filter import Filter
from pyconnect.transforms.predicates import HasHeaderKey, RecordIsTombstone, TopicNameMatches
from pyconnect.transforms.simple_config import simple_config


@pytest.mark.kafka("TopicNameMatchesTest.testConfig")
def test_topic_name_matches_config() -> None:
    config_def = TopicNameMatches().config_def()
    assert not config_def.validate_all({"pattern": "my-prefix-.*"})["pattern"].errors
    errors = config_def.validate_all({"pattern": "*"})["pattern"].errors
    assert len(errors) == 1 and "Invalid regex" in errors[0]


@pytest.mark.kafka("TopicNameMatchesTest.testTest")
def test_topic_name_matches_test() -> None:
    predicate = TopicNameMatches()
    predicate.configure({"pattern": "my-prefix-.*"})
    assert predicate.test(ConnectRecord("my-prefix-")) and predicate.test(ConnectRecord("my-prefix-foo"))
    for topic in ("x-my-prefix-", "x-my-prefix-foo", "your-prefix-", "your-prefix-foo", None):
        assert not predicate.test(ConnectRecord(topic))


@pytest.mark.kafka("HasHeaderKeyTest.testNameRequiredInConfig")
def test_has_header_key_name_required() -> None:
    with pytest.raises(ConfigException, match='Missing required configuration "name"'):
        simple_config(HasHeaderKey().config_def(), {})


@pytest.mark.kafka("HasHeaderKeyTest.testNameMayNotBeEmptyInConfig")
def test_has_header_key_name_not_empty() -> None:
    with pytest.raises(ConfigException, match="String must be non-empty"):
        simple_config(HasHeaderKey().config_def(), {"name": ""})


@pytest.mark.kafka("HasHeaderKeyTest.testConfig")
def test_has_header_key_config() -> None:
    config_def = HasHeaderKey().config_def()
    assert not config_def.validate_all({"name": "foo"})["name"].errors
    assert config_def.validate_all({"name": ""})["name"].errors == [
        "Invalid value  for configuration name: String must be non-empty"]


def with_headers(*keys: str) -> ConnectRecord:
    headers = Headers()
    for key in keys:
        headers.add(key, None)
    return ConnectRecord(None, headers=headers)


@pytest.mark.kafka("HasHeaderKeyTest.testTest")
def test_has_header_key_test() -> None:
    predicate = HasHeaderKey()
    predicate.configure({"name": "foo"})
    assert predicate.test(with_headers("foo")) and predicate.test(with_headers("foo", "bar"))
    assert predicate.test(with_headers("bar", "foo", "bar", "foo"))
    for keys in (("bar",), ("bar", "bar"), ()):
        assert not predicate.test(with_headers(*keys))
    assert not predicate.test(ConnectRecord(None))


def test_record_is_tombstone() -> None:
    predicate = RecordIsTombstone()
    predicate.configure({})
    assert predicate.test(ConnectRecord("t", key="k")) and not predicate.test(ConnectRecord("t", value=b""))


def test_filter_drops_every_record() -> None:
    xform = Filter()
    xform.configure({})
    assert xform.apply(ConnectRecord("t", value="v")) is None and not xform.config_def().keys
