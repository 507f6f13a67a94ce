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


def mm2_settings(clusters: dict[str, Broker]) -> str:
    """mm2.properties lines every test file needs on single-broker clusters: replication factors of 1,
    short intervals, each herder's worker settings (`<alias>.<key>`, as MM2 reads them) and the
    harness's client overrides per cluster."""
    lines = [f"{key}=1" for key in (
        "replication.factor", "checkpoints.topic.replication.factor", "heartbeats.topic.replication.factor",
        "offset-syncs.topic.replication.factor", "offset.storage.replication.factor",
        "status.storage.replication.factor", "config.storage.replication.factor")]
    lines += ["refresh.topics.interval.seconds=2", "emit.checkpoints.interval.seconds=1"]
    for alias, broker in clusters.items():
        lines.append(f"{alias}.offset.flush.interval.ms=1000")
        lines += [f"{alias}.{k}={v}" for k, v in broker.client_overrides.items()]
    return "\n".join(lines) + "\n"
