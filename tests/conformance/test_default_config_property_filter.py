"""Ports of Kafka's DefaultConfigPropertyFilterTest and of the MirrorSourceConnectorTest cases about which
topic configs reach remote topics."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from connectors.mirror.filters import DefaultConfigPropertyFilter
from connectors.mirror.policy import DefaultReplicationPolicy
from connectors.mirror.topics import RemoteTopics, replicable_configs
from pyconnect.kafka.admin import Admin, ConfigInfo, TopicSpec


class FakeAdmin(Admin):
    """Topic configs as given; created topics recorded."""

    def __init__(self, configs: Mapping[str, list[ConfigInfo]] | None = None) -> None:
        self.configs = dict(configs or {})
        self.created: list[TopicSpec] = []

    def describe_topic_config(self, topic: str, timeout: float = 30.0) -> list[ConfigInfo]:
        return self.configs[topic]

    def topic_partitions(self, timeout: float = 10.0) -> dict[str, int]:
        return {}

    def create_topic(self, spec: TopicSpec, timeout: float = 30.0) -> bool:
        self.created.append(spec)
        return True


def entry(name: str, value: str, default: bool = False) -> ConfigInfo:
    return ConfigInfo(name, value, is_default=default, is_read_only=False, is_sensitive=False, is_static_broker=False)


def configured(config: Mapping[str, str]) -> DefaultConfigPropertyFilter:
    f = DefaultConfigPropertyFilter()
    f.configure(config)
    return f


@pytest.mark.kafka("DefaultConfigPropertyFilterTest.shouldReplicateConfigProperty_includesUnmatchedByDefault")
def test_unmatched_properties_are_replicated() -> None:
    assert configured({}).should_replicate_config_property("my.unknown.config")


@pytest.mark.kafka("DefaultConfigPropertyFilterTest.shouldReplicateConfigProperty_excludesPatterns")
def test_excluded_patterns() -> None:
    f = configured({"config.properties.exclude": r"foo\..*,bar"})
    assert not f.should_replicate_config_property("foo.test")
    assert not f.should_replicate_config_property("bar")
    assert f.should_replicate_config_property("baz")


@pytest.mark.kafka("DefaultConfigPropertyFilterTest.shouldReplicateSourceDefault_behavior")
def test_use_defaults_from_source() -> None:
    assert configured({"use.defaults.from": "source"}).should_replicate_source_default("any.property")
    assert not configured({}).should_replicate_source_default("any.property"), "target defaults by default"


@pytest.mark.kafka("DefaultConfigPropertyFilterTest.configure_invalidRegexThrows")
def test_invalid_regex_is_refused() -> None:
    with pytest.raises(ValueError, match="invalid regular expression"):
        configured({"config.properties.exclude": "(***invalid"})


@pytest.mark.kafka("MirrorSourceConnectorTest.testConfigPropertyFilteringWithAlterConfigs")
def test_default_valued_properties_keep_the_target_default() -> None:
    admin = FakeAdmin({"t": [entry("name-1", "value-1"), entry("name-2", "value-2", default=True),
                             entry("min.insync.replicas", "2")]})
    assert replicable_configs(admin, "t", configured({})) == {"name-1": "value-1"}


@pytest.mark.kafka("MirrorSourceConnectorTest.testConfigPropertyFilteringWithAlterConfigsAndSourceDefault")
def test_default_valued_properties_with_use_defaults_from_source() -> None:
    admin = FakeAdmin({"t": [entry("name-1", "value-1"), entry("name-2", "value-2", default=True),
                             entry("min.insync.replicas", "2")]})
    assert replicable_configs(admin, "t", configured({"use.defaults.from": "source"})) == {
        "name-1": "value-1", "name-2": "value-2"}


@pytest.mark.kafka("MirrorSourceConnectorTest.testNewTopicConfigs")
def test_new_topic_configs() -> None:
    excluded = (r"follower\.replication\.throttled\.replicas, leader\.replication\.throttled\.replicas, "
                r"message\.timestamp\.difference\.max\.ms, message\.timestamp\.type, "
                r"unclean\.leader\.election\.enable, min\.insync\.replicas,exclude_param.*")
    source = FakeAdmin({"testtopic": [entry("name-1", "value-1"), entry("exclude_param.param1", "value-param1"),
                                      entry("min.insync.replicas", "2")]})
    target = FakeAdmin()
    remote = RemoteTopics(source, target, DefaultReplicationPolicy(), "source",
                          configured({"config.properties.exclude": excluded}), replication_factor=1)
    remote.ensure({"testtopic": 1})
    (spec,) = target.created
    assert spec.name == "source.testtopic"
    assert spec.configs == {"name-1": "value-1"}, "excluded by the default list and by the custom regex"
