"""MM2's pluggable filters: the TopicFilter, GroupFilter and ConfigPropertyFilter interfaces and
their Default* implementations (include/exclude regex lists with full-match semantics).

`topic.filter.class`, `group.filter.class` and `config.property.filter.class` name a class by its
Java name (`org.apache.kafka.connect.mirror.DefaultTopicFilter`) or simple name (the built-ins), a
Python path, or an entry point of `pyconnect.topic_filters` / `pyconnect.group_filters` /
`pyconnect.config_property_filters`. As in Kafka, a filter is created with no arguments and then
`configure`d with the connector's whole config (raw strings).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any

from pyconnect.api.loading import class_validator, java_aliases, new_instance

DEFAULT_TOPICS = [".*"]
# Kafka 4.0's DefaultTopicFilter (KIP-1074): only MirrorMaker's own `mm2...internal` topics, not every `*.internal`.
DEFAULT_TOPICS_EXCLUDE = [r"mm2.*\.internal", r".*\.replica", "__.*"]
DEFAULT_GROUPS = [".*"]
DEFAULT_GROUPS_EXCLUDE = ["console-consumer-.*", "connect-.*", "__.*"]
DEFAULT_CONFIG_PROPERTIES_EXCLUDE = [
    r"follower\.replication\.throttled\.replicas", r"leader\.replication\.throttled\.replicas",
    r"message\.timestamp\.difference\.max\.ms", r"message\.timestamp\.type",
    r"unclean\.leader\.election\.enable", r"min\.insync\.replicas",
]
JAVA_PACKAGE = "org.apache.kafka.connect.mirror"


def compile_list(patterns: Iterable[str]) -> re.Pattern[str] | None:
    """Join a list into one regex matched against the whole name; an empty list matches nothing.

    Raises ValueError naming the pattern that does not compile.
    """
    items = [p.strip() for p in patterns if p.strip()]
    if not items:
        return None
    for p in items:
        try:
            re.compile(p)
        except re.error as exc:
            raise ValueError(f"invalid regular expression {p!r}: {exc}") from None
    return re.compile("|".join(f"(?:{p})" for p in items))


def config_list(config: Mapping[str, Any], key: str, default: list[str]) -> list[str]:
    """A LIST setting as Kafka's ConfigDef parses it: comma-separated, trimmed; absent -> default."""
    value = config.get(key)
    if value is None:
        return list(default)
    if isinstance(value, list):
        return [str(v) for v in value]
    text = str(value).strip()
    return [item.strip() for item in text.split(",")] if text else []


def _matches(pattern: re.Pattern[str] | None, name: str) -> bool:
    return pattern is not None and pattern.fullmatch(name) is not None


class TopicFilter(ABC):
    """Decides which topics a flow replicates (Kafka's `TopicFilter`)."""

    def configure(self, config: Mapping[str, Any]) -> None:  # noqa: B027 - optional hook, as in Kafka
        """Receive the connector's config."""

    @abstractmethod
    def should_replicate_topic(self, topic: str) -> bool:
        """Whether `topic` is replicated (heartbeats, internal topics and cycles are decided apart)."""

    def close(self) -> None:  # noqa: B027 - optional hook, as in Kafka
        """Release resources."""


class GroupFilter(ABC):
    """Decides which consumer groups get checkpoints (Kafka's `GroupFilter`)."""

    def configure(self, config: Mapping[str, Any]) -> None:  # noqa: B027 - optional hook, as in Kafka
        """Receive the connector's config."""

    @abstractmethod
    def should_replicate_group(self, group: str) -> bool:
        """Whether checkpoints are emitted for `group`."""

    def close(self) -> None:  # noqa: B027 - optional hook, as in Kafka
        """Release resources."""


class ConfigPropertyFilter(ABC):
    """Decides which topic config properties are synced (Kafka's `ConfigPropertyFilter`)."""

    def configure(self, config: Mapping[str, Any]) -> None:  # noqa: B027 - optional hook, as in Kafka
        """Receive the connector's config."""

    @abstractmethod
    def should_replicate_config_property(self, prop: str) -> bool:
        """Whether the topic config property `prop` is synced to remote topics."""

    def should_replicate_source_default(self, prop: str) -> bool:
        """For a property at its default on the source: True to sync the source's default value, False
        to leave the target's default. Only asked for properties should_replicate_config_property accepts."""
        return False

    def close(self) -> None:  # noqa: B027 - optional hook, as in Kafka
        """Release resources."""


class DefaultTopicFilter(TopicFilter):
    """`topics` minus `topics.exclude`. As in Kafka, an instance that is not configured (and given no
    lists) replicates nothing; `configure` applies the defaults of absent keys."""

    def __init__(self, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> None:
        self._set(include, exclude)

    def _set(self, include: Iterable[str], exclude: Iterable[str]) -> None:
        self._include, self._exclude = compile_list(include), compile_list(exclude)

    def configure(self, config: Mapping[str, Any]) -> None:
        self._set(config_list(config, "topics", DEFAULT_TOPICS),
                  config_list(config, "topics.exclude", DEFAULT_TOPICS_EXCLUDE))

    def should_replicate_topic(self, topic: str) -> bool:
        return _matches(self._include, topic) and not _matches(self._exclude, topic)


class DefaultGroupFilter(GroupFilter):
    """`groups` minus `groups.exclude`; matches nothing until configured, as DefaultTopicFilter."""

    def __init__(self, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> None:
        self._set(include, exclude)

    def _set(self, include: Iterable[str], exclude: Iterable[str]) -> None:
        self._include, self._exclude = compile_list(include), compile_list(exclude)

    def configure(self, config: Mapping[str, Any]) -> None:
        self._set(config_list(config, "groups", DEFAULT_GROUPS),
                  config_list(config, "groups.exclude", DEFAULT_GROUPS_EXCLUDE))

    def should_replicate_group(self, group: str) -> bool:
        return _matches(self._include, group) and not _matches(self._exclude, group)


class DefaultConfigPropertyFilter(ConfigPropertyFilter):
    """Everything but `config.properties.exclude`; `use.defaults.from=source` syncs source defaults."""

    def __init__(self, exclude: Iterable[str] = DEFAULT_CONFIG_PROPERTIES_EXCLUDE, use_defaults_from: str = "target"
                 ) -> None:
        self._set(exclude, use_defaults_from)

    def _set(self, exclude: Iterable[str], use_defaults_from: str) -> None:
        self._exclude = compile_list(exclude)
        self._use_defaults_from = use_defaults_from

    def configure(self, config: Mapping[str, Any]) -> None:
        self._set(config_list(config, "config.properties.exclude", DEFAULT_CONFIG_PROPERTIES_EXCLUDE),
                  str(config.get("use.defaults.from", "target")).strip())

    def should_replicate_config_property(self, prop: str) -> bool:
        return not _matches(self._exclude, prop)

    def should_replicate_source_default(self, prop: str) -> bool:
        return self._use_defaults_from == "source"


TOPIC_FILTERS = java_aliases(JAVA_PACKAGE, [DefaultTopicFilter])
GROUP_FILTERS = java_aliases(JAVA_PACKAGE, [DefaultGroupFilter])
CONFIG_PROPERTY_FILTERS = java_aliases(JAVA_PACKAGE, [DefaultConfigPropertyFilter])
TOPIC_FILTER_GROUP = "pyconnect.topic_filters"
GROUP_FILTER_GROUP = "pyconnect.group_filters"
CONFIG_PROPERTY_FILTER_GROUP = "pyconnect.config_property_filters"

topic_filter_class = class_validator(TopicFilter, TOPIC_FILTERS, TOPIC_FILTER_GROUP)
group_filter_class = class_validator(GroupFilter, GROUP_FILTERS, GROUP_FILTER_GROUP)
config_property_filter_class = class_validator(ConfigPropertyFilter, CONFIG_PROPERTY_FILTERS,
                                               CONFIG_PROPERTY_FILTER_GROUP)


def topic_filter(class_name: str, config: Mapping[str, Any]) -> TopicFilter:
    """A configured instance of the `topic.filter.class` value; raises ClassLoadError."""
    f: TopicFilter = new_instance(class_name, TopicFilter, TOPIC_FILTERS, TOPIC_FILTER_GROUP, config)
    return f


def group_filter(class_name: str, config: Mapping[str, Any]) -> GroupFilter:
    """A configured instance of the `group.filter.class` value; raises ClassLoadError."""
    f: GroupFilter = new_instance(class_name, GroupFilter, GROUP_FILTERS, GROUP_FILTER_GROUP, config)
    return f


def config_property_filter(class_name: str, config: Mapping[str, Any]) -> ConfigPropertyFilter:
    """A configured instance of the `config.property.filter.class` value; raises ClassLoadError."""
    f: ConfigPropertyFilter = new_instance(class_name, ConfigPropertyFilter, CONFIG_PROPERTY_FILTERS,
                                           CONFIG_PROPERTY_FILTER_GROUP, config)
    return f
