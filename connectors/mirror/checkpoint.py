"""MirrorCheckpointConnector/Task: translate consumer-group offsets from source to target
(`<source>.checkpoints.internal`) and, optionally, commit them to the same groups on the target."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping

from prometheus_client import Gauge

from connectors.mirror.config import CHECKPOINT, MirrorConfig
from connectors.mirror.filters import GroupFilter, TopicFilter
from connectors.mirror.formats import Checkpoint, OffsetSync
from connectors.mirror.offset_sync_store import OffsetSyncStore
from connectors.mirror.topics import TopicSelector
from pyconnect.api import ConfigDef, ConfigValue, SourceConnector, SourceRecord, SourceTask
from pyconnect.kafka.admin import Admin, TopicSpec
from pyconnect.storage.log import KafkaLog

log = logging.getLogger(__name__)

# Strimzi's MM2 dashboard names: checkpoint latency per group and remote topic-partition.
CHECKPOINT_LATENCY = {s: Gauge(f"kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms{s}",
                               "Time from checkpoint creation to its acknowledgement (ms).",
                               ["source", "target", "group", "topic", "partition"])
                      for s in ("", "_min", "_max", "_avg")}


def _selector(cfg: MirrorConfig) -> TopicSelector:
    return TopicSelector(cfg.policy(), TopicFilter(cfg["topics"], cfg["topics.exclude"]), cfg.target)


class MirrorCheckpointTask(SourceTask):
    ordered_partitions = True

    def start(self, config: Mapping[str, str]) -> None:
        self.cfg = cfg = MirrorConfig(CHECKPOINT, config)
        self.policy = cfg.policy()
        self.selector = _selector(cfg)
        self.groups = [g for g in config.get("task.assigned.groups", "").split(",") if g]
        self.topic = self.policy.checkpoints_topic(cfg.source)
        self.interval = float(cfg["emit.checkpoints.interval.seconds"])
        self.sync_interval = float(cfg["sync.group.offsets.interval.seconds"])
        self.source_admin = Admin(cfg.client("source", "admin"))
        self.target_admin = Admin(cfg.client("target", "admin"))
        self.store = OffsetSyncStore()
        side = cfg.offset_syncs_side()
        self.syncs = KafkaLog(cfg.offset_syncs_topic(), 1, cfg.client(side, "producer"), cfg.client(side, "consumer"))
        # Translate nothing until the syncs written so far have all been read.
        self.syncs.start(self._on_sync, timeout=float(cfg["admin.timeout.ms"]) / 1000)
        self.last: dict[tuple[str, str, int], Checkpoint] = self._load_checkpoints()
        self.next_emit = time.monotonic()
        self.next_sync = time.monotonic() + self.sync_interval
        self._stopping = threading.Event()
        self._thread = threading.current_thread()
        self._latency: dict[tuple[str, ...], list[float]] = {}

    def _on_sync(self, key: bytes | None, value: bytes | None, _p: int, _o: int) -> None:
        if key and value:
            self.store.add(OffsetSync.decode(key, value))

    def _load_checkpoints(self) -> dict[tuple[str, str, int], Checkpoint]:
        """Checkpoints already emitted: a restarted task never goes back behind them."""
        found: dict[tuple[str, str, int], Checkpoint] = {}

        def on_record(key: bytes | None, value: bytes | None, _p: int, _o: int) -> None:
            if key and value:
                cp = Checkpoint.decode(key, value)
                found[(cp.group, cp.topic, cp.partition)] = cp

        if self.topic in self.target_admin.topic_partitions():
            reader = KafkaLog(self.topic, 1, self.cfg.client("target", "producer"),
                              self.cfg.client("target", "consumer"))
            reader.start(on_record)
            reader.stop()
        return found

    def translated(self, group: str) -> dict[tuple[str, int], Checkpoint]:
        """(remote topic, partition) -> checkpoint for every translatable committed offset of `group`."""
        out = {}
        for (topic, partition), upstream in self.source_admin.group_offsets(group).items():
            if not self.selector.should_replicate(topic):
                continue
            downstream = self.store.translate(topic, partition, upstream)
            if downstream is None:
                continue
            if self.policy.topic_source(topic) == self.cfg.target:  # coming home: the original name
                remote = self.policy.upstream_topic(topic) or topic
            else:
                remote = self.policy.format_remote_topic(self.cfg.source, topic)
            out[(remote, partition)] = Checkpoint(group, remote, partition, upstream, downstream, "")
        return out

    def poll(self) -> list[SourceRecord] | None:
        if self._stopping.is_set():
            return None
        now = time.monotonic()
        if self.cfg["sync.group.offsets.enabled"] and now >= self.next_sync:
            self.next_sync = now + max(self.sync_interval, 0.5)
            self.sync_group_offsets()
        if now < self.next_emit:
            time.sleep(min(self.next_emit - now, 0.2))
            return None
        self.next_emit = now + max(self.interval, 0.5)
        records = []
        for group in self.groups:
            try:
                checkpoints = self.translated(group)
            except Exception as exc:
                log.warning("cannot read offsets of group %s: %s", group, exc)
                continue
            for (remote, partition), cp in checkpoints.items():
                prev = self.last.get((group, remote, partition))
                if prev is None or cp.upstream_offset < prev.upstream_offset or (
                        cp.downstream_offset > prev.downstream_offset):
                    self.last[(group, remote, partition)] = cp
                    records.append(SourceRecord({"partition": partition, "topic": remote, "group": group},
                                                {"offset": 0}, self.topic, cp.value(), cp.key(), 0,
                                                int(time.time() * 1000)))
        return records

    def commit_record(self, record: SourceRecord, partition: int, offset: int) -> None:
        sp = record.source_partition
        labels = (self.cfg.source, self.cfg.target, sp["group"], sp["topic"], str(sp["partition"]))
        latency = time.time() * 1000 - (record.timestamp or 0)
        stats = self._latency.setdefault(labels, [latency, latency, 0.0, 0])
        stats[0], stats[1] = min(stats[0], latency), max(stats[1], latency)
        stats[2], stats[3] = stats[2] + latency, stats[3] + 1
        for suffix, value in (("", latency), ("_min", stats[0]), ("_max", stats[1]), ("_avg", stats[2] / stats[3])):
            CHECKPOINT_LATENCY[suffix].labels(*labels).set(value)

    def sync_group_offsets(self) -> None:
        """Commit translated offsets to groups that are empty or absent on the target; never backwards."""
        for group in self.groups:
            try:
                state = self.target_admin.group_state(group)
                if state not in (None, "EMPTY"):
                    continue  # active on the target: consumers there own their offsets
                current = self.target_admin.group_offsets(group) if state else {}
                wanted = {key: cp.downstream_offset for key, cp in self.translated(group).items()
                          if cp.downstream_offset > current.get(key, -1)}
                if wanted:
                    self.target_admin.alter_group_offsets(group, wanted)
                    log.info("synced offsets of group %s on %s: %s", group, self.cfg.target, wanted)
            except Exception as exc:
                log.warning("group offset sync of %s failed: %s", group, exc)

    def stop(self) -> None:
        self._stopping.set()
        syncs = getattr(self, "syncs", None)
        if syncs is not None and threading.current_thread() is getattr(self, "_thread", None):
            syncs.stop()  # only from the task's own thread; another thread just signals


class MirrorCheckpointConnector(SourceConnector):
    java_class_name = "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"

    def config_def(self) -> ConfigDef:
        return CHECKPOINT

    def validate(self, config: Mapping[str, str]) -> dict[str, ConfigValue]:
        values = CHECKPOINT.validate_all(config)
        for key in ("emit.checkpoints.enabled", "emit.offset-syncs.enabled"):
            if config.get(key, "true").strip().lower() == "false":
                values[key].errors.append(f"MirrorCheckpointConnector can't run with {key} set to false")
        return values

    def start(self, config: Mapping[str, str]) -> None:
        self.cfg = MirrorConfig(CHECKPOINT, config)
        self.raw = dict(config)
        self._groups: list[str] = []
        self._stop = threading.Event()
        if not self.cfg["enabled"] or not self.cfg["emit.checkpoints.enabled"]:
            return  # a heartbeat-only flow in dedicated mode: nothing to create or list
        self.selector = _selector(self.cfg)
        self.group_filter = GroupFilter(self.cfg["groups"], self.cfg["groups.exclude"])
        self.source_admin = Admin(self.cfg.client("source", "admin"))
        Admin(self.cfg.client("target", "admin")).ensure_compacted_topic(TopicSpec(
            self.cfg.policy().checkpoints_topic(self.cfg.source), 1,
            int(self.cfg["checkpoints.topic.replication.factor"]), {"cleanup.policy": "compact"}),
            exact_partitions=True)
        self._groups = self._find_groups()
        if self.cfg["refresh.groups.enabled"]:
            threading.Thread(target=self._refresh, name="mirror-checkpoint-groups", daemon=True).start()

    def _find_groups(self) -> list[str]:
        """Filter-accepted groups with committed offsets on replicated topics."""
        found = []
        for group in self.source_admin.list_groups():
            if not self.group_filter.accepts(group):
                continue
            topics = {t for t, _ in self.source_admin.group_offsets(group)}
            if any(self.selector.should_replicate(t) for t in topics):
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
