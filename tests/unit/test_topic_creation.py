"""Ports of Kafka's TopicCreationTest and SourceConnectorConfigTest cases: which group a topic falls in, what
it is created with, and the validation of the topic.creation.* keys."""

from __future__ import annotations

import pytest

from pyconnect.runtime.source.topic_creation import TopicCreation, uses_topic_creation, validation

DEFAULTS = {"topic.creation.default.replication.factor": "3", "topic.creation.default.partitions": "5"}


def creation(**extra: str) -> TopicCreation:
    config = {**DEFAULTS, **{k.replace("__", "."): v for k, v in extra.items()}}
    return TopicCreation(config, lambda: pytest.fail("no admin client in a unit test"))


@pytest.mark.kafka("TopicCreationTest.testTopicCreationWithSingleTopicCreationGroup")
def test_groups_take_what_they_include_and_not_what_they_exclude() -> None:
    c = creation(**{"topic.creation.groups": "foo, bar", "topic.creation.foo.include": "foo.*",
                    "topic.creation.foo.exclude": "foobar", "topic.creation.foo.partitions": "2",
                    "topic.creation.bar.include": "foo.*, bar.*", "topic.creation.bar.replication.factor": "1",
                    "topic.creation.bar.cleanup.policy": "compact"})
    assert c.group_for("foo1").name == "foo", "the first group that includes it"
    assert c.group_for("foobar").name == "bar", "excluded from foo: the next group"
    assert c.group_for("other").name == "default"
    foo, bar, default = (c.group_for(t).spec(t) for t in ("foo1", "bar1", "x"))
    assert (foo.partitions, foo.replication_factor, dict(foo.configs)) == (2, 3, {}), "rf from the default group"
    assert (bar.partitions, bar.replication_factor, dict(bar.configs)) == (5, 1, {"cleanup.policy": "compact"})
    assert (default.partitions, default.replication_factor) == (5, 3)


@pytest.mark.kafka("SourceConnectorConfigTest.shouldNotAllowZeroPartitionsOrReplicationFactor")
def test_zero_and_below_minus_one_are_refused() -> None:
    for key in DEFAULTS:
        for bad in ("0", "-2"):
            _definition, values = validation({**DEFAULTS, key: bad})
            assert values[key].errors, (key, bad)
        assert not validation({**DEFAULTS, key: "-1"})[1][key].errors


@pytest.mark.kafka("SourceConnectorConfigTest.noDefaultGroupConfig")
def test_the_default_group_needs_both_keys_once_topic_creation_is_used() -> None:
    assert not uses_topic_creation({"topic": "t"}) and validation({"topic": "t"})[1] == {}
    values = validation({"topic.creation.groups": "foo"})[1]
    assert values["topic.creation.default.partitions"].errors == [
        'Missing required configuration "topic.creation.default.partitions" which has no default value.']
    assert values["topic.creation.default.replication.factor"].errors
    assert "topic.creation.foo.include" not in validation({**DEFAULTS, "topic.creation.foo.include": "("})[1], \
        "foo is not in topic.creation.groups: no group of that name"
    bad = validation({**DEFAULTS, "topic.creation.groups": "foo", "topic.creation.foo.include": "("})[1]
    assert bad["topic.creation.foo.include"].errors == [
        "Invalid value ( for configuration topic.creation.foo.include: Syntax error in regular expression"]
