"""Helpers to configure MirrorMaker 2 connectors between two test brokers."""

from __future__ import annotations

from tests.harness.brokers import Broker

MIRROR_SOURCE = "org.apache.kafka.connect.mirror.MirrorSourceConnector"


def cluster_settings(side: str, broker: Broker) -> dict[str, str]:
    """`<side>.cluster.bootstrap.servers` plus the harness's client overrides for that broker."""
    out = {f"{side}.cluster.bootstrap.servers": broker.bootstrap}
    for key, value in broker.client_overrides.items():
        out[f"{side}.producer.{key}"] = value
        out[f"{side}.consumer.{key}"] = value
    return out


def mirror_source(a: Broker, b: Broker, overrides: dict[str, str] | None = None, source: str = "A",
                  target: str = "B") -> dict[str, str]:
    config = {
        "connector.class": MIRROR_SOURCE,
        "source.cluster.alias": source, "target.cluster.alias": target,
        "replication.factor": "1", "offset-syncs.topic.replication.factor": "1",
        "refresh.topics.interval.seconds": "2", "sync.topic.configs.interval.seconds": "2",
        **cluster_settings("source", a), **cluster_settings("target", b),
    }
    config.update(overrides or {})
    return config
