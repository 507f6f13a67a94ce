"""Helpers to configure MirrorMaker 2 connectors between two test brokers."""

from __future__ import annotations

import time
from pathlib import Path

from connectors.mirror.formats import OffsetSync
from connectors.mirror.offset_sync_store import OffsetSyncStore
from connectors.mirror.source_task import MirrorSourceTask
from pyconnect.converters.builtin import byte_array
from pyconnect.runtime.source.offset_stores import ConnectorOffsetStores
from pyconnect.runtime.source.runner import RunnerSettings, SourceTaskRunner
from pyconnect.storage.offset_store import OffsetStore
from tests.harness.brokers import Broker
from tests.harness.kafka_io import read_messages

MIRROR_SOURCE = "org.apache.kafka.connect.mirror.MirrorSourceConnector"


def make_props(*pairs: str) -> dict[str, str]:
    """Kafka's TestUtils.makeProps: a named connector from source1 to target2, plus `pairs` (key, value, ...)."""
    props = {"name": "ConnectorName", "connector.class": "ConnectorClass", "source.cluster.alias": "source1",
             "target.cluster.alias": "target2"}
    props.update(zip(pairs[::2], pairs[1::2], strict=True))
    return props


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


def cluster_lines(clusters: dict[str, Broker]) -> str:
    """mm2.properties' `clusters` line and each cluster's `<alias>.bootstrap.servers`."""
    return f"clusters = {', '.join(clusters)}\n" + "".join(f"{alias}.bootstrap.servers = {b.bootstrap}\n"
                                                          for alias, b in clusters.items())


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
        # The herder's own clients read <alias>.<key>; the connectors' clients read <alias>.producer.*
        # and <alias>.consumer.* (MirrorConnectorConfig's layering).
        lines += [f"{alias}.{k}={v}" for k, v in broker.client_overrides.items()]
        lines += [f"{alias}.{role}.{k}={v}" for k, v in broker.client_overrides.items()
                  for role in ("producer", "consumer")]
    return "\n".join(lines) + "\n"


def mm2_file(path: Path, a: Broker, b: Broker, port: int, topic_prefix: str) -> Path:
    """A dedicated-mode file from A to B for the topics `topic_prefix.*`, REST on `port`, B->A off."""
    path.write_text(f"""# like Apache's config/connect-mirror-maker.properties
clusters = A, B
A.bootstrap.servers = {a.bootstrap}
B.bootstrap.servers = {b.bootstrap}
A->B.enabled = true
A->B.topics = {topic_prefix}.*
B->A.enabled = false
listeners=http://127.0.0.1:{port}
""" + mm2_settings({"A": a, "B": b}))
    return path


def offset_syncs(bootstrap: str, topic: str = "mm2-offset-syncs.B.internal", idle: float = 1.0) -> list[OffsetSync]:
    """The offset syncs of `topic`, decoded with their headers (our writer's link, see formats)."""
    return [OffsetSync.decode(m.key() or b"", m.value() or b"", m.headers()) for m in read_messages(bootstrap, topic,
                                                                                                    idle)]


def sync_store(syncs: list[OffsetSync], topic: str) -> OffsetSyncStore:
    """An OffsetSyncStore holding the syncs of one source topic, read to the end."""
    store = OffsetSyncStore()
    for sync in syncs:
        if sync.topic == topic:
            store.add(sync)
    store.start()
    return store


def task_runner(name: str, task: MirrorSourceTask, source: str, target: str, partitions: list[str],
                offsets: OffsetStore) -> SourceTaskRunner:
    """The real `task` under the real SourceTaskRunner (not started), as a worker runs it with default client
    settings: `partitions` ("topic-p") copied from cluster A at `source` to B at `target`, its offsets committed
    into `offsets` every 0.1 s (as bench/mirror_source_bench.py does)."""
    config = {"connector.class": "MirrorSourceConnector", "source.cluster.alias": "A", "target.cluster.alias": "B",
              "source.cluster.bootstrap.servers": source, "target.cluster.bootstrap.servers": target,
              "task.assigned.partitions": ",".join(partitions)}
    settings = RunnerSettings({"bootstrap.servers": target}, byte_array, byte_array, 0.1, 5.0, 10.0)
    return SourceTaskRunner(name, 0, task, config, ConnectorOffsetStores(offsets), settings, lambda _s, _t: None)


def wait_running(runner: SourceTaskRunner, deadline: float) -> None:
    """Polls, until the monotonic `deadline`, for the runner's task to be RUNNING (fails if it FAILED)."""
    while runner.state != "RUNNING":
        assert runner.state != "FAILED" and time.monotonic() < deadline, f"task {runner.state}"
        time.sleep(0.001)  # polling the task's state under the deadline
