"""Kafka's RemoteClusterUtils for Python: translate consumer-group offsets from the properties of one cluster.

    translate_offsets({"bootstrap.servers": "B:9092"}, "A", "orders-app")             # {(topic, p): OffsetAndMetadata}
    translate_offsets({"bootstrap.servers": "B:9092"}, "A", re.compile("orders-.*"))  # {group: {(topic, p): ...}}

`properties` are Java client properties as MirrorClientConfig reads them (`bootstrap.servers`, security
settings, `admin.*` / `consumer.*` overrides, `replication.policy.*`). A compiled pattern is KIP-1239's
batch form (Kafka 4.2): every group whose whole id matches, from one read of the checkpoints topic.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple, overload

from connectors.mirror.client import MirrorClient, TopicPartition
from connectors.mirror.client_config import MirrorClientConfig
from pyconnect.kafka.config import to_librdkafka


class OffsetAndMetadata(NamedTuple):
    """Java's OffsetAndMetadata of a translated offset: the target offset and the group's commit metadata."""

    offset: int
    metadata: str = ""


def mirror_client(properties: Mapping[str, str]) -> MirrorClient:
    """A MirrorClient on the cluster `properties` name, with their replication policy."""
    config = MirrorClientConfig(properties)
    return MirrorClient(to_librdkafka(config.admin_config(), "admin"), config.replication_policy())


@overload
def translate_offsets(properties: Mapping[str, str], remote_cluster_alias: str, consumer_group: str,
                      timeout: float = 60.0) -> dict[TopicPartition, OffsetAndMetadata]: ...


@overload
def translate_offsets(properties: Mapping[str, str], remote_cluster_alias: str, consumer_group: re.Pattern[str],
                      timeout: float = 60.0) -> dict[str, dict[TopicPartition, OffsetAndMetadata]]: ...


def translate_offsets(properties: Mapping[str, str], remote_cluster_alias: str,
                      consumer_group: str | re.Pattern[str], timeout: float = 60.0
                      ) -> dict[TopicPartition, OffsetAndMetadata] | dict[str, dict[TopicPartition, OffsetAndMetadata]]:
    """RemoteClusterUtils.translateOffsets: the offsets on this cluster of a group (a group id) or of every
    group whose whole id matches (a compiled pattern) of `remote_cluster_alias`, per (remote topic,
    partition); `timeout` bounds the read of the checkpoints topic (seconds)."""
    client = mirror_client(properties)
    pattern = re.compile(re.escape(consumer_group)) if isinstance(consumer_group, str) else consumer_group
    translated = {group: {tp: OffsetAndMetadata(cp.downstream_offset, cp.metadata) for tp, cp in cps.items()}
                  for group, cps in client.checkpoints_by_group(remote_cluster_alias, pattern, timeout).items()}
    if isinstance(consumer_group, str):
        return translated.get(consumer_group, {})
    return translated
