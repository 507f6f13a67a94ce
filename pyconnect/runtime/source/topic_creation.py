"""Topic creation by source tasks (KIP-158): `topic.creation.*` of a source connector, honoured when the
worker has `topic.creation.enable=true` (its default).

As Kafka's TopicCreationConfig, SourceConnectorConfig, TopicCreation and AbstractWorkerSourceTask:

* A connector uses topic creation when its config has any `topic.creation.` key. Then the `default` group's
  `replication.factor` and `partitions` are required (each -1, the broker's default, or at least 1), and
  each group named in `topic.creation.groups` may set `include` / `exclude` (regex lists, whole-name
  match), `replication.factor` and `partitions` (the default group's when unset), and any other key,
  which is a topic config of the topics it creates (`topic.creation.<group>.cleanup.policy=compact`).
* The first time a task sends to a topic it has not seen, the topic is created before the record is
  produced, with the settings of the first group (in `topic.creation.groups` order) whose include matches
  and whose exclude does not; otherwise the default group's. An existing topic is left as it is.

Invariants: a topic is created at most once per task (then cached, as Kafka's TopicCreation cache), and
before the first record to it is produced (so the producer never creates it with the broker's defaults);
a topic that can neither be created nor found fails the task with Kafka's message.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pyconnect.api.config import NO_DEFAULT, ConfigDef, ConfigKey, ConfigType, ConfigValue, Importance, parse_value
from pyconnect.kafka.admin import Admin, TopicSpec
from pyconnect.kafka.clients import KafkaClientError

log = logging.getLogger(__name__)

PREFIX = "topic.creation."
GROUPS = "topic.creation.groups"
DEFAULT_GROUP = "default"
INCLUDE, EXCLUDE, REPLICATION_FACTOR, PARTITIONS = "include", "exclude", "replication.factor", "partitions"
OWN_KEYS = (INCLUDE, EXCLUDE, REPLICATION_FACTOR, PARTITIONS)
GROUP = "Topic Creation"
BROKER_DEFAULT = -1

_INCLUDE_DOC = ("A list of strings that represent regular expressions that may match topic names. This list is "
                "used to include topics that match their values and apply this group's specific configuration to "
                "the topics that match this inclusion list.")
_EXCLUDE_DOC = ("A list of strings that represent regular expressions that may match topic names. This list is "
                "used to exclude topics that match their values and refrain from applying this group's specific "
                "configuration to the topics that match this exclusion list. Note that exclusion rules have "
                "precedent and override any inclusion rules for topics.")
_RF_DOC = ("The replication factor for new topics created for this connector (-1: the broker's default). For the "
           "default group this configuration is required; for any other group it defaults to the default group's.")
_PARTITIONS_DOC = ("The number of partitions of new topics created for this connector (-1: the broker's default). "
                   "For the default group this configuration is required; for any other group it defaults to the "
                   "default group's.")


def _unique(_name: str, value: Any) -> str | None:
    return "Duplicate alias provided." if len(value) != len(set(value)) else None


def _partitions(_name: str, value: Any) -> str | None:
    if value != BROKER_DEFAULT and value < 1:
        return "Number of partitions must be positive, or -1 to use the broker's default"
    return None


def _replication_factor(_name: str, value: Any) -> str | None:
    if value != BROKER_DEFAULT and value < 1:
        return "Replication factor must be positive, or -1 to use the broker's default"
    return None


def _regexes(_name: str, value: Any) -> str | None:
    try:
        for pattern in value:
            re.compile(pattern)
    except re.error:
        return "Syntax error in regular expression"
    return None


GROUPS_KEY = ConfigKey(GROUPS, ConfigType.LIST, [], Importance.LOW, group=GROUP, order=1, validator=_unique,
                       documentation="Groups of configurations for topics created by source connectors "
                       "(topic.creation.<group>.*); the default group always exists and applies to topics that "
                       "match no other group.")


def _group_keys(group: str, replication_factor: Any, partitions: Any, order: int) -> list[ConfigKey]:
    """The four keys of one group; the default group's include/exclude do not apply (it takes any topic)."""
    prefix = f"{PREFIX}{group}."
    return [
        ConfigKey(prefix + INCLUDE, ConfigType.LIST, [], Importance.LOW, _INCLUDE_DOC, GROUP, order + 1,
                  validator=_regexes),
        ConfigKey(prefix + EXCLUDE, ConfigType.LIST, [], Importance.LOW, _EXCLUDE_DOC, GROUP, order + 2,
                  validator=_regexes),
        ConfigKey(prefix + REPLICATION_FACTOR, ConfigType.SHORT, replication_factor, Importance.LOW, _RF_DOC, GROUP,
                  order + 3, validator=_replication_factor),
        ConfigKey(prefix + PARTITIONS, ConfigType.INT, partitions, Importance.LOW, _PARTITIONS_DOC, GROUP, order + 4,
                  validator=_partitions),
    ]


#: The keys as the configuration reference lists them (`<group>` stands for each name of topic.creation.groups).
REFERENCE = ConfigDef([GROUPS_KEY, *_group_keys(DEFAULT_GROUP, NO_DEFAULT, NO_DEFAULT, 1)[2:],
                       *_group_keys("<group>", BROKER_DEFAULT, BROKER_DEFAULT, 3)])


def uses_topic_creation(config: Mapping[str, Any]) -> bool:
    """Whether a connector config asks for topic creation (any `topic.creation.` key, as Kafka decides)."""
    return any(key.startswith(PREFIX) for key in config)


def _groups(config: Mapping[str, Any]) -> list[str]:
    """The named groups, in order; `default` always exists and is not one of them (Kafka warns and drops it)."""
    raw = config.get(GROUPS)
    names = parse_value(GROUPS_KEY, raw) if raw is not None else []
    return list(dict.fromkeys(g for g in names if g and g != DEFAULT_GROUP))


def definition(config: Mapping[str, Any]) -> ConfigDef:
    """The topic creation keys of `config`: topic.creation.groups, the default group's and each group's."""
    default_def = ConfigDef(_group_keys(DEFAULT_GROUP, NO_DEFAULT, NO_DEFAULT, 1)[2:])
    parsed = default_def.validate_all(config)
    # A group's replication factor and partitions default to the default group's (-1 while those are invalid).
    rf, partitions = (parsed[f"{PREFIX}{DEFAULT_GROUP}.{k}"].value for k in (REPLICATION_FACTOR, PARTITIONS))
    keys = [GROUPS_KEY, *default_def.keys.values()]
    for i, group in enumerate(_groups(config)):
        keys += _group_keys(group, BROKER_DEFAULT if rf is None else rf,
                            BROKER_DEFAULT if partitions is None else partitions, 3 + 4 * i)
    return ConfigDef(keys)


def validation(config: Mapping[str, Any]) -> tuple[ConfigDef, dict[str, ConfigValue]]:
    """The definition of `config`'s topic creation keys and their validation (empty if it uses none)."""
    if not uses_topic_creation(config):
        return ConfigDef(), {}
    defined = definition(config)
    return defined, defined.validate_all(config)


def _pattern(patterns: list[str]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None


@dataclass(frozen=True)
class TopicCreationGroup:
    """One group: which topics it takes and how it creates them (Kafka's TopicCreationGroup)."""

    name: str
    include: re.Pattern[str] | None
    exclude: re.Pattern[str] | None
    replication_factor: int
    partitions: int
    configs: Mapping[str, str] = field(default_factory=dict)

    def matches(self, topic: str) -> bool:
        """Exclusion wins over inclusion; both match whole names."""
        if self.exclude is not None and self.exclude.fullmatch(topic):
            return False
        return self.include is not None and self.include.fullmatch(topic) is not None

    def spec(self, topic: str) -> TopicSpec:
        """What a topic of this group is created with."""
        return TopicSpec(topic, self.partitions, self.replication_factor, dict(self.configs))


def describe(spec: TopicSpec) -> str:
    """A topic to create, as Kafka's NewTopic prints itself in its messages."""
    configs = ", ".join(f"{k}={v}" for k, v in spec.configs.items())
    return (f"(name={spec.name}, numPartitions={spec.partitions}, replicationFactor={spec.replication_factor}, "
            f"replicasAssignments=null, configs={{{configs}}})")


def _group(name: str, values: Mapping[str, Any], config: Mapping[str, str]) -> TopicCreationGroup:
    prefix = f"{PREFIX}{name}."
    own = {k[len(prefix):]: str(v) for k, v in config.items() if k.startswith(prefix)}
    return TopicCreationGroup(name, _pattern(values[prefix + INCLUDE]), _pattern(values[prefix + EXCLUDE]),
                              int(values[prefix + REPLICATION_FACTOR]), int(values[prefix + PARTITIONS]),
                              {k: v for k, v in own.items() if k not in OWN_KEYS})


class TopicCreation:
    """A task's topic creation: its groups, and the topics it has created or found."""

    def __init__(self, config: Mapping[str, str], admin: Callable[[], Admin]) -> None:
        """`config`: a valid connector config that uses topic creation; `admin`: makes the task's admin client."""
        values = definition(config).parse(config)
        self.default = _group(DEFAULT_GROUP, {**values, f"{PREFIX}{DEFAULT_GROUP}.{INCLUDE}": [".*"],
                                              f"{PREFIX}{DEFAULT_GROUP}.{EXCLUDE}": []}, config)
        self.groups = [_group(g, values, config) for g in _groups(config)]
        self._admin_factory = admin
        self._admin: Admin | None = None
        self._known: set[str] = set()

    def group_for(self, topic: str) -> TopicCreationGroup:
        """The first group that takes `topic`, else the default group."""
        return next((g for g in self.groups if g.matches(topic)), self.default)

    def ensure(self, topic: str) -> None:
        """Create `topic` if it does not exist yet (once per task); RuntimeError if it can be neither."""
        if topic in self._known:
            return
        admin = self._admin = self._admin or self._admin_factory()
        group = self.group_for(topic)
        spec = group.spec(topic)
        try:
            created = admin.create_topic(spec)
        except KafkaClientError as exc:
            # Not allowed to create it, say: a topic that exists is still fine (Kafka describes it first).
            if topic not in admin.topic_partitions():
                log.warning("Request to create new topic '%s' failed: %s", topic, exc)
                raise RuntimeError(f"Task failed to create new topic {describe(spec)}. Ensure that the task is "
                                   "authorized to create topics or that the topic exists and restart the task") from exc
            created = False
        if created:
            log.info("Created topic '%s' using creation group %s", describe(spec), group.name)
        else:
            log.info("Found existing topic '%s'", topic)
        self._known.add(topic)
