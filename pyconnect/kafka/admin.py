"""Admin operations the runtime needs: reachability, topic creation and checks."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

import confluent_kafka as ck
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic  # type: ignore[attr-defined]

from pyconnect.kafka.clients import KafkaClientError, client_conf
from pyconnect.kafka.config import redact

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TopicSpec:
    name: str
    partitions: int
    replication_factor: int  # -1: broker default
    configs: Mapping[str, str]


class Admin:
    """A wrapper over AdminClient with blocking calls and readable errors."""

    def __init__(self, conf: Mapping[str, str]) -> None:
        self._conf = dict(conf)
        try:
            self._client = AdminClient(client_conf(conf, "admin"))
        except ck.KafkaException as exc:
            raise KafkaClientError(f"invalid admin configuration {redact(conf)}: {exc}") from exc

    @property
    def client(self) -> AdminClient:
        return self._client

    def cluster_id(self, timeout: float = 10.0) -> str:
        """Return the cluster id; raise KafkaClientError if the cluster cannot be reached in time."""
        try:
            md = self._client.list_topics(timeout=timeout)
        except ck.KafkaException as exc:
            raise KafkaClientError(
                f"cannot reach Kafka at bootstrap.servers={self._conf.get('bootstrap.servers')} "
                f"within {timeout:.0f}s ({exc.args[0].str() if exc.args else exc})") from exc
        return str(md.cluster_id or "")

    def topic_partitions(self, timeout: float = 10.0) -> dict[str, int]:
        md = self._client.list_topics(timeout=timeout)
        return {name: len(t.partitions) for name, t in md.topics.items() if t.error is None}

    def topic_configs(self, topic: str, timeout: float = 10.0) -> dict[str, str]:
        futures = self._client.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, topic)])
        result: dict[str, str] = {}
        for fut in futures.values():
            for name, entry in fut.result(timeout=timeout).items():
                if entry.value is not None:
                    result[name] = str(entry.value)
        return result

    def create_topic(self, spec: TopicSpec, timeout: float = 30.0) -> bool:
        """Create a topic; return False if it already existed."""
        new = NewTopic(spec.name, spec.partitions, spec.replication_factor, config=dict(spec.configs))
        fut = self._client.create_topics([new], operation_timeout=timeout)[spec.name]
        try:
            fut.result(timeout=timeout)
            return True
        except ck.KafkaException as exc:
            err = exc.args[0]
            if err.code() == ck.KafkaError.TOPIC_ALREADY_EXISTS:
                return False
            raise KafkaClientError(f"cannot create topic {spec.name}: {err.str()}") from exc

    def ensure_compacted_topic(self, spec: TopicSpec, exact_partitions: bool = False) -> None:
        """Create the internal topic if missing; check an existing one is compacted (and sized)."""
        created = self.create_topic(spec)
        if created:
            log.info("created internal topic %s (%d partitions, compact)", spec.name, spec.partitions)
            return
        partitions = self.topic_partitions().get(spec.name)
        if exact_partitions and partitions is not None and partitions != spec.partitions:
            raise KafkaClientError(f"topic {spec.name} must have exactly {spec.partitions} partition(s) "
                                   f"but has {partitions}; the worker cannot use it")
        policy = self.topic_configs(spec.name).get("cleanup.policy", "")
        if policy and set(p.strip() for p in policy.split(",")) != {"compact"}:
            raise KafkaClientError(f"topic {spec.name} must have cleanup.policy=compact but has {policy}; "
                                   "set it to compact or choose another topic name")
