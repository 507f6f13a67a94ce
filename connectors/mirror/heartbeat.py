"""MirrorHeartbeatConnector: one task writing MM2 heartbeats to `heartbeats` on the target.

Heartbeats replicate like any topic (`A.heartbeats`, `B.A.heartbeats`, ...), which is how clients
list upstream clusters and count replication hops (see client.py).
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from connectors.mirror.config import CONFIG_PREFIXES, HEARTBEAT, MIRROR_KEYS, MirrorConfig
from connectors.mirror.formats import Heartbeat
from pyconnect.api import ConfigDef, SourceConnector, SourceRecord, SourceTask
from pyconnect.kafka.admin import TopicSpec


class MirrorHeartbeatTask(SourceTask):
    ordered_partitions = True

    def start(self, config: Mapping[str, str]) -> None:
        cfg = MirrorConfig(HEARTBEAT, config)
        self.topic = cfg.policy().heartbeats_topic()
        self.interval = float(cfg["emit.heartbeats.interval.seconds"])
        self.partition = {"sourceClusterAlias": cfg.source, "targetClusterAlias": cfg.target}
        self.aliases = (cfg.source, cfg.target)
        self.next_at = time.monotonic()
        self.stopped = False

    def poll(self) -> list[SourceRecord] | None:
        wait = self.next_at - time.monotonic()
        if wait > 0:
            time.sleep(min(wait, 0.2))
            return None
        self.next_at = time.monotonic() + max(self.interval, 0.05)
        now = int(time.time() * 1000)
        hb = Heartbeat(self.aliases[0], self.aliases[1], now)
        return [SourceRecord(self.partition, {"offset": 0}, self.topic, hb.value(), hb.key(), 0, now)]

    def stop(self) -> None:
        self.stopped = True


class MirrorHeartbeatConnector(SourceConnector):
    java_class_name = "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector"
    config_prefixes = CONFIG_PREFIXES
    config_keys = MIRROR_KEYS

    def config_def(self) -> ConfigDef:
        return HEARTBEAT

    def start(self, config: Mapping[str, str]) -> None:
        self.cfg = MirrorConfig(HEARTBEAT, config)
        self.raw = dict(config)
        if self.cfg["emit.heartbeats.enabled"]:
            self.cfg.admin("target").ensure_compacted_topic(TopicSpec(
                self.cfg.policy().heartbeats_topic(), 1, int(self.cfg["heartbeats.topic.replication.factor"]),
                {"cleanup.policy": "compact"}), exact_partitions=True)

    def task_class(self) -> type[SourceTask]:
        return MirrorHeartbeatTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        # One task, or none when heartbeats are off; `enabled` is ignored, as in MM2.
        return [dict(self.raw)] if self.cfg["emit.heartbeats.enabled"] and max_tasks > 0 else []

    def stop(self) -> None:
        return None
