"""A worker's internal topics: their names, and creating them as Connect does (compacted, with the
partition counts and per-topic settings of the worker config)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pyconnect.config.worker import WorkerConfig
from pyconnect.kafka.admin import Admin, TopicSpec
from pyconnect.storage.log import KafkaLog, Log
from pyconnect.storage.offset_store import OffsetStore

LogFactory = Callable[[str, int], Log]


@dataclass(frozen=True)
class InternalTopics:
    """The four topics a worker cluster keeps its state in."""

    config: str
    offsets: str
    status: str
    membership: str


def kafka_log_factory(config: WorkerConfig) -> tuple[LogFactory, str]:
    """Create the internal topics if needed; return a factory of KafkaLogs over them and the cluster id."""
    admin = Admin(config.client_config("admin", "admin."))
    cluster_id = admin.cluster_id(timeout=20)

    c = config.settings
    specs = [
        (TopicSpec(c.config_storage_topic, 1, c.config_storage_replication_factor,
                   _topic_conf(config, "config.storage.")), True),
        (TopicSpec(c.offset_storage_topic, c.offset_storage_partitions, c.offset_storage_replication_factor,
                   _topic_conf(config, "offset.storage.")), False),
        (TopicSpec(c.status_storage_topic, c.status_storage_partitions, c.status_storage_replication_factor,
                   _topic_conf(config, "status.storage.")), False),
        (TopicSpec(config.membership_topic, 1, c.config_storage_replication_factor,
                   {"cleanup.policy": "compact"}), True),
    ]
    partitions: dict[str, int] = {}
    for spec, exact in specs:
        admin.ensure_compacted_topic(spec, exact_partitions=exact)
        partitions[spec.name] = admin.topic_partitions().get(spec.name, spec.partitions)

    # Exactly-once tasks write their offsets inside transactions: read only committed ones (as Connect's
    # offsets consumer does then), or a task could resume past records of an aborted transaction.
    committed = {"isolation.level": "read_committed"} if config.settings.exactly_once else {}

    def factory(topic: str, _default_partitions: int) -> Log:
        consumer = {**config.client_config("consumer"), **(committed if topic == c.offset_storage_topic else {})}
        return KafkaLog(topic, partitions[topic], config.client_config("producer"), consumer)
    return factory, cluster_id


def _topic_conf(config: WorkerConfig, prefix: str) -> dict[str, str]:
    skip = {"topic", "replication.factor", "partitions", "cleanup.policy"}
    conf = {k[len(prefix):]: v for k, v in config.raw.items()
            if k.startswith(prefix) and k[len(prefix):] not in skip}
    conf["cleanup.policy"] = "compact"
    return conf


_CONNECTION = ("bootstrap.servers", "security.protocol", "ssl.", "sasl.", "client.dns.lookup", "socket.")


def own_offset_store(config: WorkerConfig, topic: str, producer_conf: Mapping[str, str], committed: bool
                     ) -> OffsetStore:
    """A task's own offsets topic on the cluster its producer writes to (created as the worker's offsets
    topic is: compacted, with its partition count and replication factor), as an unstarted store."""
    connection = {k: v for k, v in producer_conf.items() if k.startswith(_CONNECTION)}
    c = config.settings
    try:
        admin = Admin(connection)
        admin.ensure_compacted_topic(TopicSpec(topic, c.offset_storage_partitions,
                                               c.offset_storage_replication_factor,
                                               _topic_conf(config, "offset.storage.")))
        partitions = admin.topic_partitions().get(topic, c.offset_storage_partitions)
    except Exception as exc:
        raise RuntimeError(f"Could not create the connector's offsets topic {topic} on "
                           f"{connection.get('bootstrap.servers')}, the cluster its producer writes to: "
                           f"{type(exc).__name__}: {exc}") from exc
    consumer = {**connection, **({"isolation.level": "read_committed"} if committed else {})}
    return OffsetStore(KafkaLog(topic, partitions, connection, consumer))
