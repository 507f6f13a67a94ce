"""Admin operations the runtime needs: reachability, topic creation and checks.

Invariant: a topic CreateTopics reported (created by us, or TOPIC_ALREADY_EXISTS because another worker
created it) is checked only once the broker we ask knows it. On Apache Kafka (KRaft) CreateTopics answers
when the controller has the topic; a broker's metadata may lag it, and Metadata/DescribeConfigs then answer
UNKNOWN_TOPIC_OR_PART for a moment. `ensure_compacted_topic` waits that out under a bounded, backed-off
deadline (`VISIBLE_S`), as Connect's KafkaBasedLog waits for a new topic's partitions, instead of failing a
worker's start on a race Tansu never shows.
"""

from __future__ import annotations

import concurrent.futures
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import confluent_kafka as ck
from confluent_kafka.admin import (  # type: ignore[attr-defined]
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    NewPartitions,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)

from pyconnect.kafka.clients import KafkaClientError, client_conf
from pyconnect.kafka.cluster_trouble import TroubleWatch
from pyconnect.kafka.config import redact
from pyconnect.kafka.errors import error_text

log = logging.getLogger(__name__)
_PENDING = object()
_SLICE_S = 0.25  # how often a blocking call looks for a TLS/authentication failure
VISIBLE_S = 30.0  # how long a just-created topic may take to reach the metadata of the broker asked
_BACKOFF_S = (0.05, 1.0)  # first and longest pause between two looks for it


@dataclass(frozen=True)
class ConfigInfo:
    """One topic config as the broker describes it."""

    name: str
    value: str | None
    is_default: bool
    is_read_only: bool
    is_sensitive: bool
    is_static_broker: bool
    is_topic_override: bool = False  # set on the topic itself (DYNAMIC_TOPIC_CONFIG), not inherited


@dataclass(frozen=True)
class TopicAcl:
    """A LITERAL TOPIC ACL binding; operation/permission as upper-case names (READ, ALLOW, ...)."""

    topic: str
    principal: str
    host: str
    operation: str
    permission: str


class UnsupportedByBroker(KafkaClientError):
    """The broker does not implement an operation (e.g. CreatePartitions, ACLs)."""


@dataclass(frozen=True)
class Committed:
    """A consumer group's committed position on one partition, with its commit metadata."""

    offset: int
    metadata: str = ""


@dataclass(frozen=True)
class TopicSpec:
    name: str
    partitions: int
    replication_factor: int  # -1: broker default
    configs: Mapping[str, str]


class Admin:
    """A wrapper over AdminClient with blocking calls and readable errors."""

    def __init__(self, conf: Mapping[str, str], cluster: str | None = None) -> None:
        """`cluster`: the alias errors name (default: the bootstrap servers)."""
        self._conf = dict(conf)
        self._watch = TroubleWatch(conf, cluster)
        try:
            full = client_conf(conf, "admin")
            full["error_cb"] = self._watch.on_error  # keeps TLS/authentication failures (cluster_trouble)
            self._client = AdminClient(full)
        except ck.KafkaException as exc:
            raise KafkaClientError(f"invalid admin configuration {redact(conf)}: {exc}") from exc

    @property
    def client(self) -> AdminClient:
        return self._client

    def _result(self, fut: Any, timeout: float) -> Any:
        """`fut.result(timeout)`, failing at once with the cluster and cause on a TLS/authentication
        failure (which librdkafka would retry until the timeout)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = fut.result(timeout=min(_SLICE_S, max(0.0, deadline - time.monotonic())))
            except concurrent.futures.TimeoutError:
                value = _PENDING
            if value is not _PENDING:
                self._watch.succeeded()
                return value
            self._client.poll(0)  # serves the error callback
            self._watch.check()  # outside the except: the cause is the cluster's, not a timeout
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no answer from cluster {self._watch.where} within {timeout:.0f}s")

    def _metadata(self, timeout: float) -> Any:
        """list_topics in short slices, so a TLS/authentication failure ends the wait early."""
        deadline = time.monotonic() + timeout
        while True:
            failure: ck.KafkaException | None = None
            try:
                md = self._client.list_topics(timeout=min(_SLICE_S * 4, max(0.1, deadline - time.monotonic())))
            except ck.KafkaException as exc:
                failure = exc
            if failure is None:
                self._watch.succeeded()
                return md
            self._client.poll(0)
            self._watch.check()
            if time.monotonic() >= deadline:
                raise failure

    def cluster_id(self, timeout: float = 10.0) -> str:
        """Return the cluster id; raise KafkaClientError if the cluster cannot be reached in time."""
        try:
            md = self._metadata(timeout)
        except ck.KafkaException as exc:
            raise KafkaClientError(
                f"cannot reach Kafka at bootstrap.servers={self._conf.get('bootstrap.servers')} "
                f"within {timeout:.0f}s ({error_text(exc)})") from exc
        return str(md.cluster_id or "")

    def topic_partitions(self, timeout: float = 10.0) -> dict[str, int]:
        md = self._metadata(timeout)
        return {name: len(t.partitions) for name, t in md.topics.items() if t.error is None}

    def topic_configs(self, topic: str, timeout: float = 10.0) -> dict[str, str]:
        futures = self._client.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, topic)])
        result: dict[str, str] = {}
        for fut in futures.values():
            for name, entry in self._result(fut, timeout).items():
                if entry.value is not None:
                    result[name] = str(entry.value)
        return result

    def create_topic(self, spec: TopicSpec, timeout: float = 30.0) -> bool:
        """Create a topic; return False if it already existed."""
        new = NewTopic(spec.name, spec.partitions, spec.replication_factor, config=dict(spec.configs))
        fut = self._client.create_topics([new], operation_timeout=timeout)[spec.name]
        try:
            self._result(fut, timeout)
            return True
        except ck.KafkaException as exc:
            err = exc.args[0]
            if err.code() == ck.KafkaError.TOPIC_ALREADY_EXISTS:
                return False
            raise KafkaClientError(f"cannot create topic {spec.name}: {err.str()}") from exc

    def delete_topic(self, topic: str, timeout: float = 30.0) -> bool:
        """Delete a topic; return False if it did not exist."""
        fut = self._client.delete_topics([topic], operation_timeout=timeout)[topic]
        try:
            self._result(fut, timeout)
            return True
        except ck.KafkaException as exc:
            err = exc.args[0]
            if err.code() == ck.KafkaError.UNKNOWN_TOPIC_OR_PART:
                return False
            raise KafkaClientError(f"cannot delete topic {topic}: {err.str()}") from exc

    def ensure_compacted_topic(self, spec: TopicSpec, exact_partitions: bool = False) -> None:
        """Create the internal topic if missing; check an existing one is compacted (and sized)."""
        created = self.create_topic(spec)
        partitions = self.await_topic(spec.name)
        if created:
            log.info("created internal topic %s (%d partitions, compact)", spec.name, spec.partitions)
            return
        if exact_partitions and partitions != spec.partitions:
            raise KafkaClientError(f"topic {spec.name} must have exactly {spec.partitions} partition(s) "
                                   f"but has {partitions}; the worker cannot use it")
        policy = self._visible_topic_configs(spec.name).get("cleanup.policy", "")
        if policy and set(p.strip() for p in policy.split(",")) != {"compact"}:
            raise KafkaClientError(f"topic {spec.name} must have cleanup.policy=compact but has {policy}; "
                                   "set it to compact or choose another topic name")

    def await_topic(self, topic: str, timeout: float = VISIBLE_S) -> int:
        """The partition count of `topic` once this client's Metadata shows it with all its partitions (see
        the module's invariant); KafkaClientError when it does not within `timeout`."""
        deadline = time.monotonic() + timeout
        pause = _BACKOFF_S[0]
        while True:
            md = self._metadata(max(0.5, deadline - time.monotonic()))
            found = md.topics.get(topic)
            if found is not None and found.error is None and found.partitions:
                return len(found.partitions)
            if time.monotonic() + pause > deadline:
                cause = error_text(found.error) if found is not None and found.error else "not in the metadata"
                raise KafkaClientError(f"topic {topic} exists on cluster {self._watch.where} but its brokers "
                                       f"did not show it within {timeout:.0f}s ({cause})")
            time.sleep(pause)
            pause = min(pause * 2, _BACKOFF_S[1])

    def _visible_topic_configs(self, topic: str, timeout: float = VISIBLE_S) -> dict[str, str]:
        """`topic_configs` of a topic known to exist: UNKNOWN_TOPIC_OR_PART is a broker whose metadata lags
        the controller's (the one asked need not be the one whose Metadata showed the topic), so ask again."""
        deadline = time.monotonic() + timeout
        pause = _BACKOFF_S[0]
        while True:
            try:
                return self.topic_configs(topic)
            except ck.KafkaException as exc:
                err = exc.args[0] if exc.args else None
                lagging = isinstance(err, ck.KafkaError) and err.code() == ck.KafkaError.UNKNOWN_TOPIC_OR_PART
                if not lagging or time.monotonic() + pause > deadline:
                    raise KafkaClientError(f"cannot describe the configs of topic {topic}: "
                                           f"{error_text(exc)}") from exc
            time.sleep(pause)
            pause = min(pause * 2, _BACKOFF_S[1])

    def describe_topic_config(self, topic: str, timeout: float = 30.0) -> list[ConfigInfo]:
        futures = self._client.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, topic)])
        out = []
        for fut in futures.values():
            for name, e in self._result(fut, timeout).items():
                out.append(ConfigInfo(name, None if e.value is None else str(e.value),
                                      bool(e.is_default) or e.source == ConfigSource.DEFAULT_CONFIG.value,
                                      bool(e.is_read_only), bool(e.is_sensitive),
                                      e.source == ConfigSource.STATIC_BROKER_CONFIG.value,
                                      e.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value))
        return out

    def set_topic_configs(self, topic: str, configs: Mapping[str, str], timeout: float = 30.0,
                          reset: Iterable[str] = ()) -> None:
        """IncrementalAlterConfigs SET of each key of `configs`, DELETE (back to the broker's default) of `reset`."""
        entries = [ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET) for k, v in configs.items()]
        entries += [ConfigEntry(k, None, incremental_operation=AlterConfigOpType.DELETE) for k in reset]
        resource = ConfigResource(ConfigResource.Type.TOPIC, topic, incremental_configs=entries)
        try:
            for fut in self._client.incremental_alter_configs([resource]).values():
                self._result(fut, timeout)
        except ck.KafkaException as exc:
            raise KafkaClientError(f"cannot alter configs of {topic}: {error_text(exc)}") from exc

    def create_partitions(self, topic: str, total: int, timeout: float = 30.0) -> None:
        try:
            for fut in self._client.create_partitions([NewPartitions(topic, total)]).values():
                self._result(fut, timeout)
        except ck.KafkaException as exc:
            err = exc.args[0] if exc.args else None
            cls = UnsupportedByBroker if err is not None and err.code() in (
                ck.KafkaError._UNSUPPORTED_FEATURE, ck.KafkaError.UNSUPPORTED_VERSION) else KafkaClientError
            raise cls(f"cannot add partitions to {topic}: {error_text(exc)}") from exc

    def describe_topic_acls(self, timeout: float = 30.0) -> list[TopicAcl]:
        anything: Any = None  # the filter's wildcard for name, principal and host
        flt = AclBindingFilter(ResourceType.TOPIC, anything, ResourcePatternType.LITERAL, anything, anything,
                               AclOperation.ANY, AclPermissionType.ANY)
        try:
            bindings = self._result(self._client.describe_acls(flt), timeout)
        except ck.KafkaException as exc:
            # librdkafka drops the answer's own error code (SECURITY_DISABLED reads as no ACLs): what fails
            # here is the request itself, unsupported by the broker or not answered
            err = exc.args[0] if exc.args else None
            cls = UnsupportedByBroker if isinstance(err, ck.KafkaError) and err.code() in (
                ck.KafkaError._UNSUPPORTED_FEATURE, ck.KafkaError.UNSUPPORTED_VERSION) else KafkaClientError
            raise cls(f"cannot describe ACLs: {error_text(exc)}") from exc
        return [TopicAcl(b.name, b.principal, b.host, b.operation.name, b.permission_type.name) for b in bindings]

    def broker_config(self, name: str, timeout: float = 30.0) -> str | None:
        """Broker config `name` as one broker of the cluster (the controller, if known) describes it; None
        when the broker does not report it."""
        md = self._metadata(timeout)
        broker = md.controller_id if md.controller_id >= 0 else min(md.brokers)
        resource = ConfigResource(ConfigResource.Type.BROKER, str(broker))
        try:
            entries = self._result(self._client.describe_configs([resource])[resource], timeout)
        except ck.KafkaException as exc:
            raise KafkaClientError(f"cannot describe the configs of broker {broker}: {error_text(exc)}") from exc
        entry = entries.get(name)
        return None if entry is None or entry.value is None else str(entry.value)

    def create_topic_acls(self, acls: list[TopicAcl], timeout: float = 30.0) -> None:
        bindings = [AclBinding(ResourceType.TOPIC, a.topic, ResourcePatternType.LITERAL, a.principal, a.host,
                               AclOperation[a.operation], AclPermissionType[a.permission]) for a in acls]
        try:
            for fut in self._client.create_acls(bindings).values():
                self._result(fut, timeout)
        except ck.KafkaException as exc:
            raise KafkaClientError(f"cannot create ACLs: {error_text(exc)}") from exc

    # consumer groups -------------------------------------------------------------------------

    def list_groups(self, timeout: float = 30.0) -> list[str]:
        result = self._result(self._client.list_consumer_groups(request_timeout=timeout), timeout)
        return sorted(g.group_id for g in result.valid)

    def group_offsets(self, group: str, timeout: float = 30.0) -> dict[tuple[str, int], int]:
        """Committed offsets of a group: (topic, partition) -> next offset to consume."""
        return {tp: c.offset for tp, c in self.group_commits(group, timeout).items()}

    def group_commits(self, group: str, timeout: float = 30.0) -> dict[tuple[str, int], Committed]:
        """Committed offsets of a group with their commit metadata."""
        result = self.groups_commits([group], timeout)[group]
        if isinstance(result, Exception):
            raise result
        return result

    def groups_commits(self, groups: Sequence[str], timeout: float = 30.0
                       ) -> dict[str, dict[tuple[str, int], Committed] | Exception]:
        """Committed offsets of many groups: every request is sent before any answer is awaited (the client
        takes one group per ListConsumerGroupOffsets call), so N groups cost about one round trip, not N.
        A group whose request failed maps to its error."""
        from confluent_kafka import ConsumerGroupTopicPartitions

        pending = {g: self._client.list_consumer_group_offsets([ConsumerGroupTopicPartitions(g)],
                                                               request_timeout=timeout) for g in groups}
        out: dict[str, dict[tuple[str, int], Committed] | Exception] = {}
        for group, futures in pending.items():
            try:
                commits: dict[tuple[str, int], Committed] = {}
                for fut in futures.values():
                    for tp in self._result(fut, timeout).topic_partitions or []:
                        if tp.error is None and tp.offset >= 0:
                            commits[(tp.topic, tp.partition)] = Committed(int(tp.offset), tp.metadata or "")
                out[group] = commits
            except Exception as exc:
                out[group] = exc
        return out

    def group_state(self, group: str, timeout: float = 30.0) -> str | None:
        """EMPTY, STABLE, ... or None when the group does not exist (DEAD / unknown)."""
        return self.group_states([group], timeout)[group]

    def group_states(self, groups: Sequence[str], timeout: float = 30.0) -> dict[str, str | None]:
        """`group_state` of many groups in one DescribeConsumerGroups call."""
        if not groups:
            return {}
        futures = self._client.describe_consumer_groups(list(groups), request_timeout=timeout)
        out: dict[str, str | None] = {}
        for group in groups:
            try:
                desc = self._result(futures[group], timeout)
            except ck.KafkaException:
                out[group] = None
                continue
            state = getattr(desc.state, "name", str(desc.state)).upper()
            out[group] = None if state in ("DEAD", "UNKNOWN") and not desc.members else state
        return out

    def alter_group_offsets(self, group: str, offsets: Mapping[tuple[str, int], int], timeout: float = 30.0,
                            metadata: Mapping[tuple[str, int], str] | None = None) -> None:
        """Commit `offsets` for `group` (with each partition's commit metadata, when given)."""
        from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition

        meta = metadata or {}
        request = ConsumerGroupTopicPartitions(group, [TopicPartition(t, p, o, metadata=meta.get((t, p), ""))
                                                       for (t, p), o in offsets.items()])
        try:
            for fut in self._client.alter_consumer_group_offsets([request]).values():
                self._result(fut, timeout)
        except ck.KafkaException as exc:
            raise KafkaClientError(f"cannot commit offsets for group {group}: {error_text(exc)}") from exc
