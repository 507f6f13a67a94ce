"""MirrorSourceConnector: finds the source topics to replicate, keeps remote topics in shape, and
deals the source partitions round-robin over `tasks.max` tasks."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from connectors.mirror.acls import TopicAclSync
from connectors.mirror.backfill_plan import candidates, stored_plans
from connectors.mirror.backfill_task import MirrorBackfillTask, refused_spark_settings
from connectors.mirror.client_config import java_client_config
from connectors.mirror.config import CONFIG_PREFIXES, MIRROR_KEYS, SOURCE, MirrorConfig
from connectors.mirror.schema_config import check_schema_replication
from connectors.mirror.source_task import MirrorSourceTask
from connectors.mirror.topic_deletions import TopicDeletions
from connectors.mirror.topics import RemoteTopics, TopicSelector
from connectors.mirror.upstream_hops import UpstreamHops
from pyconnect.api import BatchTask, ConfigDef, ConfigValue, ExactlyOnceSupport, SourceConnector, SourceTask
from pyconnect.kafka.admin import TopicSpec
from pyconnect.logging_context import context_thread

log = logging.getLogger(__name__)
READ_COMMITTED_NEEDED = (
    "MirrorSourceConnector can only provide exactly-once guarantees when its source consumer is configured with "
    "isolation.level set to 'read_committed'; otherwise, records from aborted and uncommitted transactions will be "
    "replicated from the source cluster to the target cluster.")


def _reads_committed(config: Mapping[str, str]) -> bool:
    """MirrorSourceConnector.consumerUsesReadCommitted: the source consumer's isolation.level."""
    return java_client_config(config, "source", "consumer").get("isolation.level") == "read_committed"


def _check_deletions(config: Mapping[str, str], values: dict[str, ConfigValue]) -> None:
    """Deletions are noticed by the topic refresh and proven with the offset syncs: both must be on."""
    if config.get("sync.topic.deletions.enabled", "false").strip().lower() != "true":
        return
    for key in ("emit.offset-syncs.enabled", "refresh.topics.enabled"):
        if config.get(key, "true").strip().lower() == "false":
            values["sync.topic.deletions.enabled"].errors.append(
                f"Topic deletions need {key}=true (deletions are noticed by the topic refresh and checked "
                "against the offset syncs)")


_BACKFILL_KEY = "backfill.assigned.partitions"  # set on the batch task's config only
# Each streaming task holds two Kafka clients (consumer, offset-sync producer), and librdkafka's Python
# binding takes a thread-local key per client: a process has 1,024 (PTHREAD_KEYS_MAX), so ~500 tasks
# crash a worker ("Failed to initialize thread local storage"). tasks.max is an upper bound (Connect's
# contract), so a larger value gets this many tasks, each with a larger share of the partitions.
MAX_STREAMING_TASKS = 100


@dataclass
class _Job:
    interval: float
    run: Callable[[], object]
    due: float = 0.0

    def __post_init__(self) -> None:
        self.interval = max(self.interval, 0.5)
        self.due = time.monotonic() + self.interval


class MirrorSourceConnector(SourceConnector):
    java_class_name = "org.apache.kafka.connect.mirror.MirrorSourceConnector"
    config_prefixes = CONFIG_PREFIXES
    config_keys = MIRROR_KEYS

    def __init__(self) -> None:
        self._backfill: set[tuple[str, int]] = set()  # partitions the batch task copies before streaming
        self._batch_assigned: set[tuple[str, int]] = set()  # the batch task's (stable) partition list

    def config_def(self) -> ConfigDef:
        return SOURCE

    def validate(self, config: Mapping[str, str]) -> dict[str, ConfigValue]:
        values = SOURCE.validate_all(config)
        if config.get("emit.offset-syncs.enabled", "true").strip().lower() == "false":
            offending = [k for k in config if k.startswith("offset-syncs.")]
            if offending:
                values["emit.offset-syncs.enabled"].errors.append(
                    f"Offset syncs are disabled, but {', '.join(offending)} is set")
        _check_deletions(config, values)
        check_schema_replication(config, values)
        for key, reason in refused_spark_settings(config).items():
            values.setdefault(key, ConfigValue(key, config.get(key))).errors.append(reason)
        if config.get("exactly.once.support") == "required" and not _reads_committed(config):
            # Kafka compares case-sensitively here; the framework adds its own error beside this one.
            values.setdefault("exactly.once.support", ConfigValue("exactly.once.support", "required")).errors.append(
                READ_COMMITTED_NEEDED)
        return values

    def exactly_once_support(self, config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return ExactlyOnceSupport.SUPPORTED if _reads_committed(config) else ExactlyOnceSupport.UNSUPPORTED

    def start(self, config: Mapping[str, str]) -> None:
        self.cfg = MirrorConfig(SOURCE, config)
        self.raw = dict(config)
        policy = self.cfg.policy()
        self.selector = TopicSelector(policy, self.cfg.topic_filter(), self.cfg.target,
                                      bool(self.cfg["heartbeats.replication.enabled"]))
        self.source_admin = self.cfg.admin("source")
        self.target_admin = self.cfg.admin("target")
        self.remote = RemoteTopics(self.source_admin, self.target_admin, policy, self.cfg.source,
                                   self.cfg.config_property_filter(), int(self.cfg["replication.factor"]))
        self.acls = TopicAclSync(self.source_admin, self.target_admin, self.selector, self.cfg.source)
        self._stop = threading.Event()
        self._partitions: dict[str, int] = {}
        self._deletions: TopicDeletions | None = None
        self.upstreams = UpstreamHops(self.cfg.source, self.cfg.target, policy, getattr(self.context, "metrics", None))
        if not self.cfg["enabled"]:
            log.info("%s->%s replication is disabled (enabled=false)", self.cfg.source, self.cfg.target)
            return
        if self.cfg["emit.offset-syncs.enabled"]:
            admin = self.source_admin if self.cfg.offset_syncs_side() == "source" else self.target_admin
            admin.ensure_compacted_topic(TopicSpec(self.cfg.offset_syncs_topic(), 1,
                                                   int(self.cfg["offset-syncs.topic.replication.factor"]),
                                                   {"cleanup.policy": "compact"}), exact_partitions=True)
        listed = self.source_admin.topic_partitions()
        self._partitions = self._discover(listed)
        if self.cfg["sync.topic.deletions.enabled"]:
            self._deletions = TopicDeletions(self.cfg, self.selector, self.source_admin, self.target_admin,
                                             getattr(self.context, "metrics", None))
            self._deletions.refresh(set(listed), set(self._partitions))
        self._ensure_remote(self._partitions)
        self._backfill, self._batch_assigned = set(), set()
        if self.cfg["backfill.enabled"]:
            self._backfill = self._backfill_candidates(self._all(self._partitions))
        self.remote.sync_configs(self._partitions)
        if self.cfg["sync.topic.acls.enabled"]:  # MM2 schedules it at start, then every interval
            self.acls.sync()
        # In the caller's context: the refresh jobs log in the scope of the worker running this connector.
        self._thread = context_thread(self._background, f"mirror-source-{self.cfg.source}")
        self._thread.start()

    def _discover(self, listed: Mapping[str, int]) -> dict[str, int]:
        return {t: n for t, n in listed.items() if self.selector.should_replicate(t)}

    def _ensure_remote(self, partitions: dict[str, int]) -> None:
        if self._deletions is not None:
            self._deletions.ensure_remote(self.remote, partitions)  # records what it creates
        else:
            self.remote.ensure(partitions)

    def _background(self) -> None:
        """Periodic refresh of topics, configs and ACLs (MM2's scheduler)."""
        # The target's upstream clusters (heartbeat topic names) on the topic refresh schedule; first at once.
        upstreams = _Job(float(self.cfg["refresh.topics.interval.seconds"]),
                         lambda: self.upstreams.refresh(self.target_admin.topic_partitions()))
        upstreams.due = 0.0
        jobs: list[_Job] = [upstreams]
        if self.cfg["refresh.topics.enabled"]:
            jobs.append(_Job(float(self.cfg["refresh.topics.interval.seconds"]), self._refresh_topics))
        if self.cfg["sync.topic.configs.enabled"]:
            jobs.append(_Job(float(self.cfg["sync.topic.configs.interval.seconds"]),
                             lambda: self.remote.sync_configs(self._partitions)))
        if self.cfg["backfill.enabled"]:
            jobs.append(_Job(2.0, self._check_backfill))
        if self.cfg["sync.topic.acls.enabled"]:
            jobs.append(_Job(float(self.cfg["sync.topic.acls.interval.seconds"]),
                             self.acls.sync))
        while not self._stop.wait(max(0.0, min(j.due for j in jobs) - time.monotonic())):
            for job in jobs:
                if time.monotonic() >= job.due:
                    job.due = time.monotonic() + job.interval
                    try:
                        job.run()
                    except Exception:
                        log.exception("mirror source background job failed")

    def _refresh_topics(self) -> None:
        listed = self.source_admin.topic_partitions()
        found = self._discover(listed)
        if found != self._partitions:
            added = sorted(set(found) - set(self._partitions))
            log.info("source topics changed (new: %s); reconfiguring tasks", added)
            self._ensure_remote(found)
            if self.cfg["backfill.enabled"]:  # only new topics: streaming may already run the others
                self._backfill |= self._backfill_candidates(self._all(found) - self._all(self._partitions))
            self._partitions = found
            if self.context is not None:
                self.context.request_task_reconfiguration()
        if self._deletions is not None:  # after the reconfiguration request: tasks drop vanished partitions
            self._deletions.refresh(set(listed), set(found))

    @staticmethod
    def _all(partitions: Mapping[str, int]) -> set[tuple[str, int]]:
        return {(t, p) for t, n in partitions.items() for p in range(n)}

    def _backfill_candidates(self, tps: set[tuple[str, int]]) -> set[tuple[str, int]]:
        if not tps or self.context is None:
            return set()
        chosen = candidates(self.cfg, self.context.offset_storage_reader, tps)
        if chosen:
            log.info("backfill: %d partition(s) go to the batch task first: %s", len(chosen),
                     ", ".join(f"{t}-{p}" for t, p in sorted(chosen)))
        return chosen

    def backfill_partitions(self) -> set[tuple[str, int]]:
        """Partitions that go to the backfill task before streaming."""
        return set(self._backfill)

    def _check_backfill(self) -> None:
        """Hand partitions whose backfill is done over to the streaming tasks."""
        if not self._backfill or self.context is None:
            return
        plans = stored_plans(self.context.offset_storage_reader, self.cfg.source, self._backfill)
        finished = {tp for tp, plan in plans.items() if plan.done}
        if finished:
            log.info("backfill done for %s; streaming takes over", ", ".join(f"{t}-{p}" for t, p in sorted(finished)))
            self._backfill -= finished
            self.context.request_task_reconfiguration()

    def task_class(self) -> type[SourceTask]:
        return MirrorSourceTask

    def task_class_for(self, task_config: Mapping[str, str]) -> type[SourceTask] | type[BatchTask]:
        return MirrorBackfillTask if _BACKFILL_KEY in task_config else MirrorSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        if not self.cfg["enabled"]:
            return []
        tps = sorted(self._all(self._partitions) - self._backfill)
        configs = []
        if self._backfill:
            # One batch task (a Spark job) at index 0, with the same config for as long as any of its
            # partitions is not done: streaming tasks change as partitions are handed over, but the
            # running Spark job is left alone (it skips partitions whose plan is done).
            self._batch_assigned |= self._backfill  # grows only when new topics join the backfill
            configs.append({**self.raw, "task.index": "0",
                            _BACKFILL_KEY: ",".join(f"{t}-{p}" for t, p in sorted(self._batch_assigned))})
        else:
            self._batch_assigned = set()
        if not tps and not self._backfill:
            self._explain_no_tasks()
        if tps:
            count = self._task_count(max_tasks, len(tps))
            buckets: list[list[str]] = [[] for _ in range(count)]
            for i, (topic, partition) in enumerate(tps):
                buckets[i % count].append(f"{topic}-{partition}")
            # The key that makes a task the backfill is the connector's to set, never the user's.
            raw = {k: v for k, v in self.raw.items() if k != _BACKFILL_KEY}
            configs += [{**raw, "task.assigned.partitions": ",".join(b), "task.index": str(len(configs) + i)}
                        for i, b in enumerate(buckets)]
        return configs

    def _task_count(self, max_tasks: int, partitions: int) -> int:
        count = min(max_tasks, partitions)
        if count > MAX_STREAMING_TASKS:
            log.warning("tasks.max=%d over %d partition(s) would start %d tasks; using %d (at most %d per connector: "
                        "each task holds 2 Kafka clients and a worker process fits ~1,000), about %d partition(s) "
                        "each", max_tasks, partitions, count, MAX_STREAMING_TASKS, MAX_STREAMING_TASKS,
                        -(-partitions // MAX_STREAMING_TASKS))
            count = MAX_STREAMING_TASKS
        return count

    def _explain_no_tasks(self) -> None:
        """MM2 runs a connector that matches no topic with no tasks (status RUNNING, tasks []): say why."""
        log.info("no source topic on %s matches topics=%s (topics.exclude=%s): running with 0 tasks until a "
                 "matching topic appears (checked every refresh.topics.interval.seconds)", self.cfg.source,
                 ",".join(self.cfg["topics"]), ",".join(self.cfg["topics.exclude"] or []))

    def stop(self) -> None:
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()
        deletions = getattr(self, "_deletions", None)
        if deletions is not None:
            thread = getattr(self, "_thread", None)
            if thread is not None:
                thread.join(30)  # a refresh in progress finishes its ledger writes first
            deletions.stop()
