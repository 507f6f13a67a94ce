"""MirrorCheckpointConnector/Task: translate consumer-group offsets from source to target
(`<source>.checkpoints.internal`) and, optionally, commit them to the same groups on the target.

A task's poll waits as MirrorCheckpointTask.poll does, `emit.checkpoints.interval.seconds` (at least 0.5 s)
rounded up to whole `consumer.poll.timeout.ms` (poll_wait.checkpoint_period), then emits the checkpoints
that changed; group offsets are synced to the target when due during that wait.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping

from connectors.mirror.config import CHECKPOINT, CONFIG_PREFIXES, MIRROR_KEYS, MirrorConfig
from connectors.mirror.formats import Checkpoint, OffsetSync
from connectors.mirror.group_checkpoints import GroupCheckpoints
from connectors.mirror.metrics import CheckpointMetrics
from connectors.mirror.offset_sync_store import OffsetSyncStore
from connectors.mirror.origin_routes import OriginRoutes
from connectors.mirror.origin_translation import OriginAwareTranslator
from connectors.mirror.poll_wait import checkpoint_period, slices
from connectors.mirror.topics import TopicSelector
from pyconnect.api import ConfigDef, ConfigValue, SourceConnector, SourceRecord, SourceTask
from pyconnect.api.errors import ConnectException
from pyconnect.kafka.admin import Admin, Committed, TopicSpec
from pyconnect.kafka.clients import KafkaClientError
from pyconnect.kafka.topic_log import KafkaLog
from pyconnect.logging_context import context_thread

log = logging.getLogger(__name__)

# Kafka's KafkaBasedLog.start waits this long for its topic to exist (CREATE_TOPIC_TIMEOUT_NS) before it fails:
# the offset-syncs topic is MirrorSourceConnector's to create, and a checkpoint task started with it may come first.
SYNCS_TOPIC_WAIT_S = 30.0


def wait_for_topic(admin: Admin, topic: str, cluster: str, lookup_timeout: float,
                   timeout: float = SYNCS_TOPIC_WAIT_S) -> None:
    """Return once `topic` shows on `cluster` with all its partitions; a ConnectException naming it after
    `timeout` seconds. A cluster that does not answer within `lookup_timeout` (admin.timeout.ms) is left to the
    log's first read, which reports it in that time."""
    try:
        if topic in admin.topic_partitions(lookup_timeout):
            return
    except Exception:  # noqa: BLE001 - unreachable: the read that follows fails with its own bounded error
        return
    log.info("offset-syncs topic %s does not exist on cluster %s yet: waiting up to %.0f s for "
             "MirrorSourceConnector to create it", topic, cluster, timeout)
    try:
        admin.await_topic(topic, timeout)
    except KafkaClientError as exc:
        raise ConnectException(f"offset-syncs topic {topic} does not exist on cluster {cluster} after "
                               f"{timeout:.0f} s: MirrorSourceConnector creates it (is it running for this flow, "
                               "with emit.offset-syncs.enabled=true?)") from exc


def _selector(cfg: MirrorConfig) -> TopicSelector:
    return TopicSelector(cfg.policy(), cfg.topic_filter(), cfg.target)


class MirrorCheckpointTask(SourceTask):
    ordered_partitions = True

    def start(self, config: Mapping[str, str]) -> None:
        self.cfg = cfg = MirrorConfig(CHECKPOINT, config)
        self.selector = _selector(cfg)
        self.groups = [g for g in config.get("task.assigned.groups", "").split(",") if g]
        self.topic = cfg.policy().checkpoints_topic(cfg.source)
        self.interval = float(cfg["emit.checkpoints.interval.seconds"])
        self.period = checkpoint_period(max(self.interval, 0.5), int(cfg["consumer.poll.timeout.ms"]))
        self.sync_interval = float(cfg["sync.group.offsets.interval.seconds"])
        self.source_admin = cfg.admin("source")
        self.target_admin = cfg.admin("target")
        store = OffsetSyncStore()
        side = cfg.offset_syncs_side()
        read_timeout = float(cfg["admin.timeout.ms"]) / 1000
        wait_for_topic(cfg.admin(side), cfg.offset_syncs_topic(), cfg.source if side == "source" else cfg.target,
                       read_timeout)
        self.syncs = KafkaLog(cfg.offset_syncs_topic(), 1, cfg.client(side, "producer"), cfg.client(side, "consumer"))
        self.syncs.start_with_headers(lambda key, value, headers: store.add(OffsetSync.decode(key, value, headers))
                                      if key and value else None, timeout=read_timeout)
        store.start()  # translate nothing until the syncs written so far have all been read
        self.routes = OriginRoutes(cfg)
        self.routes()  # the flows into the source known now, their syncs read to the end
        translator = OriginAwareTranslator(store, self.routes, self._keeps_name)
        self.checkpoints = GroupCheckpoints(cfg.source, cfg.target, cfg.policy(), translator, self._load_checkpoints())
        self.next_sync = time.monotonic() + self.sync_interval
        self._stopping = threading.Event()
        self._thread = threading.current_thread()
        self.latency = CheckpointMetrics(cfg.source, cfg.target, self.context.metrics if self.context else None,
                                         self.period)

    def _keeps_name(self, topic: str) -> bool:
        """Whether the remote topic has the source topic's name (IdentityReplicationPolicy): there the
        source topic may hold other flows' copies, and translation follows every origin."""
        return self.checkpoints.remote_topic(topic) == topic

    def _load_checkpoints(self) -> dict[str, dict[tuple[str, int], Checkpoint]]:
        """Checkpoints already emitted: a restarted task never goes back behind them."""
        found: dict[str, dict[tuple[str, int], Checkpoint]] = {}

        def on_record(key: bytes | None, value: bytes | None, _p: int, _o: int) -> None:
            if key and value:
                cp = Checkpoint.decode(key, value)
                found.setdefault(cp.group, {})[(cp.topic, cp.partition)] = cp

        if self.topic in self.target_admin.topic_partitions():
            reader = KafkaLog(self.topic, 1, self.cfg.client("target", "producer"),
                              self.cfg.client("target", "consumer"))
            reader.start(on_record)
            reader.stop()
        return found

    def commits(self, groups: list[str]) -> dict[str, dict[tuple[str, int], Committed | None] | Exception]:
        """Each group's committed offsets on replicated topics, with their metadata (all groups' requests
        in flight together: one round trip for the cycle, not one per group)."""
        out: dict[str, dict[tuple[str, int], Committed | None] | Exception] = {}
        for group, commits in self.source_admin.groups_commits(groups).items():
            out[group] = commits if isinstance(commits, Exception) else {
                tp: c for tp, c in commits.items() if self.selector.should_replicate(tp[0])}
        return out

    def poll(self) -> list[SourceRecord] | None:
        """The checkpoints that changed, after waiting the period out (None when none changed, as Kafka's)."""
        started = time.monotonic()
        for wait in slices(self.context, self.period, self._stopping):
            self._maybe_sync_groups()
            self._stopping.wait(wait)  # returns at once on stop
        if self._stopping.is_set() or time.monotonic() - started < self.period:
            return None  # stopping, or the runtime takes over (a pause): the next poll waits a full period
        records = []
        timestamp = int(time.time() * 1000)
        for group, commits in self.commits(self.groups).items():
            if isinstance(commits, Exception):
                log.warning("cannot read offsets of group %s: %s", group, commits)
                continue
            new = self.checkpoints.for_group(group, commits)
            self.checkpoints.emitted(new)
            self.latency.current(group)
            records += [self.checkpoints.record(cp, self.topic, timestamp) for cp in new.values()]
        log.debug("%d new checkpoint(s) for %d group(s)", len(records), len(self.groups))
        return records or None

    def _maybe_sync_groups(self) -> None:
        """Group offsets to the target every sync.group.offsets.interval.seconds (Kafka schedules it apart)."""
        now = time.monotonic()
        if self.cfg["sync.group.offsets.enabled"] and now >= self.next_sync:
            self.next_sync = now + max(self.sync_interval, 0.5)
            self.sync_group_offsets()

    def commit_record(self, record: SourceRecord, partition: int, offset: int) -> None:
        sp = record.source_partition
        self.latency.acked(sp["group"], sp["topic"], int(sp["partition"]), time.time() * 1000 - (record.timestamp or 0))

    def sync_group_offsets(self) -> None:
        """Commit the newest checkpoints to groups that are empty or absent on the target; never
        backwards, never to a group with active members."""
        idle: dict[str, dict[tuple[str, int], Committed | None]] = {}
        try:
            states = self.target_admin.group_states(self.groups)  # one request for every group
        except Exception as exc:
            log.warning("cannot describe groups on %s: %s", self.cfg.target, exc)
            return
        active = {g for g, state in states.items() if state is not None and state != "EMPTY"}  # consumers own these
        for group, commits in self.target_admin.groups_commits([g for g, s in states.items() if s == "EMPTY"]).items():
            if isinstance(commits, Exception):
                log.warning("cannot read offsets of group %s on %s: %s", group, self.cfg.target, commits)
                active.add(group)
            else:
                idle[group] = dict(commits)
        for group, wanted in self.checkpoints.offsets_to_sync(idle, frozenset(active)).items():
            if group not in self.groups:
                continue
            try:
                self.target_admin.alter_group_offsets(group, {tp: c.offset for tp, c in wanted.items()},
                                                      metadata={tp: c.metadata for tp, c in wanted.items()})
                log.info("synced offsets of group %s on %s: %s", group, self.cfg.target,
                         {tp: c.offset for tp, c in wanted.items()})
            except Exception as exc:
                log.warning("group offset sync of %s failed: %s", group, exc)

    def stop(self) -> None:
        stopping = getattr(self, "_stopping", None)
        if stopping is None:
            return  # stopped before start (a rebalance right after the assignment)
        stopping.set()
        syncs = getattr(self, "syncs", None)
        if syncs is not None and threading.current_thread() is getattr(self, "_thread", None):
            syncs.stop()  # only from the task's own thread; another thread just signals
            self.routes.stop()


class MirrorCheckpointConnector(SourceConnector):
    java_class_name = "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"
    config_prefixes = CONFIG_PREFIXES
    config_keys = MIRROR_KEYS

    def config_def(self) -> ConfigDef:
        return CHECKPOINT

    def validate(self, config: Mapping[str, str]) -> dict[str, ConfigValue]:
        """As MirrorCheckpointConnector.validate: a disabled connector is not checked further; an enabled
        one needs offset syncs, and checkpoints or group offset sync."""
        values = CHECKPOINT.validate_all(config)

        def flag(key: str, default: str) -> bool:
            return config.get(key, default).strip().lower() == "true"

        if not flag("enabled", "true"):
            return values
        if not flag("emit.checkpoints.enabled", "true") and not flag("sync.group.offsets.enabled", "false"):
            values["emit.checkpoints.enabled"].errors.append(
                "MirrorCheckpointConnector can't run with both emit.checkpoints.enabled and "
                "sync.group.offsets.enabled set to false")
        if not flag("emit.offset-syncs.enabled", "true"):
            values["emit.offset-syncs.enabled"].errors.append(
                "MirrorCheckpointConnector can't run with emit.offset-syncs.enabled set to false")
        return values

    def start(self, config: Mapping[str, str]) -> None:
        self.cfg = MirrorConfig(CHECKPOINT, config)
        self.raw = dict(config)
        self._groups: list[str] = []
        self._stop = threading.Event()
        if not self.cfg["enabled"] or not self.cfg["emit.checkpoints.enabled"]:
            return  # a heartbeat-only flow in dedicated mode: nothing to create or list
        self.selector = _selector(self.cfg)
        self.group_filter = self.cfg.group_filter()
        self.source_admin = self.cfg.admin("source")
        self.cfg.admin("target").ensure_compacted_topic(TopicSpec(
            self.cfg.policy().checkpoints_topic(self.cfg.source), 1,
            int(self.cfg["checkpoints.topic.replication.factor"]), {"cleanup.policy": "compact"}),
            exact_partitions=True)
        self._groups = self._find_groups()
        if self.cfg["refresh.groups.enabled"]:
            context_thread(self._refresh, "mirror-checkpoint-groups").start()  # logs in its worker's scope

    def _find_groups(self) -> list[str]:
        """Filter-accepted groups with committed offsets on replicated topics."""
        wanted = [g for g in self.source_admin.list_groups() if self.group_filter.should_replicate_group(g)]
        found = []
        for group, commits in self.source_admin.groups_commits(wanted).items():  # all in flight together
            if isinstance(commits, Exception):
                raise commits
            if any(self.selector.should_replicate(t) for t, _ in commits):
                found.append(group)
        return found

    def _refresh(self) -> None:
        while not self._stop.wait(max(float(self.cfg["refresh.groups.interval.seconds"]), 0.5)):
            try:
                groups = self._find_groups()
            except Exception as exc:
                log.warning("cannot list consumer groups: %s", exc)
                continue
            if groups != self._groups:
                log.info("consumer groups changed: %s", groups)
                self._groups = groups
                if self.context is not None:
                    self.context.request_task_reconfiguration()

    def task_class(self) -> type[SourceTask]:
        return MirrorCheckpointTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        if not self.cfg["enabled"] or not self.cfg["emit.checkpoints.enabled"] or not self._groups:
            return []
        count = min(max_tasks, len(self._groups))
        size, extra = divmod(len(self._groups), count)
        chunks, start = [], 0
        for i in range(count):  # contiguous chunks, as MM2 splits groups
            end = start + size + (1 if i < extra else 0)
            chunks.append(self._groups[start:end])
            start = end
        return [{**self.raw, "task.assigned.groups": ",".join(c), "task.index": str(i)} for i, c in enumerate(chunks)]

    def stop(self) -> None:
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()
