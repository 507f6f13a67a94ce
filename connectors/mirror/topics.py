"""Which source topics a flow replicates, and keeping remote topics in shape on the target:
creation, partition growth and config sync (compat-spec §C.6-C.7; ACL sync: connectors.mirror.acls).

Invariant (Kafka's MirrorSourceConnector.syncTopicConfigs): after a config sync every synced property of a remote
topic is the source's value where the source overrides it (or where `use.defaults.from=source`), and the target
cluster's own default where the source is at its default: an override on the remote topic is deleted then, even
one an operator set there.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from connectors.mirror.filters import ConfigPropertyFilter, TopicFilter
from connectors.mirror.policy import ReplicationPolicy
from pyconnect.kafka.admin import Admin, ConfigInfo, TopicSpec
from pyconnect.kafka.clients import KafkaClientError

log = logging.getLogger(__name__)


class TopicSelector:
    """MM2's replication decision for one source->target flow."""

    def __init__(self, policy: ReplicationPolicy, topic_filter: TopicFilter, target_alias: str,
                 heartbeats_enabled: bool = True) -> None:
        self.policy, self.filter, self.target = policy, topic_filter, target_alias
        self.heartbeats_enabled = heartbeats_enabled

    def is_cycle(self, topic: str) -> bool:
        source = self.policy.topic_source(topic)
        if source is None:
            return False
        if source == self.target:
            return True
        upstream = self.policy.upstream_topic(topic)
        if upstream is None or upstream == topic:
            return False
        return self.is_cycle(upstream)

    def should_replicate(self, topic: str) -> bool:
        wanted = (self.filter.should_replicate_topic(topic)
                  or (self.heartbeats_enabled and self.policy.is_heartbeats_topic(topic)))
        return wanted and not self.policy.is_internal_topic(topic) and not self.is_cycle(topic)


def _synced(configs: list[ConfigInfo], prop_filter: ConfigPropertyFilter) -> list[ConfigInfo]:
    """The source topic configs MM2 syncs at all: not read-only, not sensitive, not static broker config, and
    accepted by the property filter (MirrorSourceConnector.targetConfig)."""
    return [c for c in configs if c.value is not None and not (c.is_read_only or c.is_sensitive or c.is_static_broker)
            and prop_filter.should_replicate_config_property(c.name)]


def _copied(configs: list[ConfigInfo], prop_filter: ConfigPropertyFilter) -> dict[str, str]:
    return {c.name: c.value for c in _synced(configs, prop_filter)
            if c.value is not None and (not c.is_default or prop_filter.should_replicate_source_default(c.name))}


def replicable_configs(admin: Admin, topic: str, prop_filter: ConfigPropertyFilter) -> dict[str, str]:
    """Source topic configs MM2 copies: those `_synced`, non-default unless the filter syncs that property's
    source default (MirrorSourceConnector.targetConfig)."""
    return _copied(admin.describe_topic_config(topic), prop_filter)


def target_defaults(configs: list[ConfigInfo], prop_filter: ConfigPropertyFilter) -> set[str]:
    """Properties at their default on the source whose remote value must be the target's own default: Kafka's
    incremental sync DELETEs them on the remote topic (MirrorSourceConnector.incrementalAlterConfigs)."""
    return {c.name for c in _synced(configs, prop_filter)
            if c.is_default and not prop_filter.should_replicate_source_default(c.name)}


class RemoteTopics:
    """Creates and syncs remote topics on the target cluster."""

    def __init__(self, source: Admin, target: Admin, policy: ReplicationPolicy, source_alias: str,
                 prop_filter: ConfigPropertyFilter, replication_factor: int) -> None:
        self.source, self.target, self.policy, self.alias = source, target, policy, source_alias
        self.prop_filter = prop_filter
        self.replication_factor = replication_factor
        self._warned: set[str] = set()

    def remote(self, topic: str) -> str:
        return self.policy.format_remote_topic(self.alias, topic)

    def _warn_once(self, key: str, message: str, *args: object) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning(message, *args)

    def ensure(self, partitions: dict[str, int]) -> dict[str, bool]:
        """Create missing remote topics; grow partitions where the source grew. Returns, per source topic,
        whether this call created its remote topic (False: it existed, whoever created it)."""
        existing = self.target.topic_partitions()
        created: dict[str, bool] = {}
        for topic, count in sorted(partitions.items()):
            remote = self.remote(topic)
            have = existing.get(remote)
            created[topic] = False
            if have is None:
                configs = replicable_configs(self.source, topic, self.prop_filter)
                if self.target.create_topic(TopicSpec(remote, count, self.replication_factor, configs)):
                    created[topic] = True
                    log.info("created remote topic %s (%d partitions, configs %s)", remote, count, configs)
            elif have < count:
                self._grow(remote, count)
        return created

    def _grow(self, remote: str, count: int) -> None:
        try:
            self.target.create_partitions(remote, count)
            log.info("grew remote topic %s to %d partitions", remote, count)
        except KafkaClientError as exc:
            self._warn_once(f"grow:{remote}", "%s (partition-count sync skipped for this topic)", exc)

    def sync_configs(self, topics: Iterable[str]) -> None:
        """Kafka's syncTopicConfigs: SET what the source overrides (and its defaults, per the filter), DELETE on the
        remote topic what is at its default on the source, so the target's own default applies. Only differences
        are sent: a remote topic already in shape costs one DescribeConfigs per cluster."""
        for topic in topics:
            try:
                source = self.source.describe_topic_config(topic)
                wanted = _copied(source, self.prop_filter)
                remote = self.remote(topic)
                current = {c.name: c for c in self.target.describe_topic_config(remote)}
                changed = {k: v for k, v in wanted.items() if k not in current or current[k].value != v}
                # DELETE only what the remote topic overrides itself: elsewhere it is a no-op Kafka would repeat.
                reset = sorted(k for k in target_defaults(source, self.prop_filter)
                               if k in current and current[k].is_topic_override)
                if changed or reset:
                    self.target.set_topic_configs(remote, changed, reset=reset)
                    log.info("synced configs of %s: %s%s", remote, changed,
                             f", reset to the target's defaults: {', '.join(reset)}" if reset else "")
            except Exception as exc:
                self._warn_once(f"cfg:{topic}", "topic config sync of %s failed: %s", topic, exc)
