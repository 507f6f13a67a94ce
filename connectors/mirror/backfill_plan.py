"""The backfill plan: which source partition ranges a Spark job copies before streaming takes over.

A partition is backfilled when it has no streaming offset yet, its remote partition is empty and its
backlog is at least `backfill.threshold.records`. Its range is [start, end): start = the source's
log start offset, end = the source end offset captured when the plan is made. The plan is kept in
the connector's offsets (Connect's offsets topic, key `[connector, {"backfill": "range", "cluster",
"partition", "topic"}]`), so a crashed or restarted job resumes with the very same ranges; `done`
turns true in the same write that hands the partition to streaming (its MirrorSource offset).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from connectors.mirror.config import MirrorConfig
from connectors.mirror.source_task import source_partition
from pyconnect.api import OffsetStorageReader
from pyconnect.kafka.clients import end_offsets, new_consumer, offset_bounds

TopicPartition = tuple[str, int]


def plan_key(cluster: str, topic: str, partition: int) -> dict[str, Any]:
    return {"backfill": "range", "cluster": cluster, "partition": partition, "topic": topic}


@dataclass(frozen=True)
class PartitionPlan:
    topic: str
    partition: int
    start: int
    end: int
    target_start: int
    done: bool = False

    @property
    def size(self) -> int:
        return max(0, self.end - self.start)

    def value(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "target.start": self.target_start, "done": self.done}

    @classmethod
    def from_value(cls, topic: str, partition: int, value: Mapping[str, Any]) -> PartitionPlan:
        return cls(topic, partition, int(value["start"]), int(value["end"]), int(value["target.start"]),
                   bool(value.get("done", False)))


def stored_plans(reader: OffsetStorageReader, cluster: str, tps: Iterable[TopicPartition]
                 ) -> dict[TopicPartition, PartitionPlan]:
    out = {}
    for topic, partition in tps:
        value = reader.offset(plan_key(cluster, topic, partition))
        if value:
            out[(topic, partition)] = PartitionPlan.from_value(topic, partition, value)
    return out


def by_topic(tps: Iterable[TopicPartition]) -> dict[str, list[int]]:
    grouped: dict[str, list[int]] = {}
    for topic, partition in sorted(tps):
        grouped.setdefault(topic, []).append(partition)
    return grouped


def candidates(cfg: MirrorConfig, reader: OffsetStorageReader, tps: Iterable[TopicPartition]
               ) -> set[TopicPartition]:
    """Partitions to hand to the backfill task: those with an unfinished plan, plus fresh ones (no
    streaming offset, empty remote partition) whose backlog reaches the threshold."""
    tps = list(tps)
    plans = stored_plans(reader, cfg.source, tps)
    chosen = {tp for tp, plan in plans.items() if not plan.done}
    fresh = [tp for tp in tps if tp not in plans
             and reader.offset(source_partition(cfg.source, *tp)) is None]
    if not fresh:
        return chosen
    threshold = int(cfg["backfill.threshold.records"])
    policy = cfg.policy()
    with _consumers(cfg) as (source, target):
        for topic, partitions in by_topic(fresh).items():
            remote = policy.format_remote_topic(cfg.source, topic)
            backlog = offset_bounds(source, topic, partitions)
            landed = offset_bounds(target, remote, partitions)
            for p in partitions:
                low, high = backlog[p]
                if high - low >= threshold and landed[p][1] == landed[p][0]:
                    chosen.add((topic, p))
    return chosen


def make_plans(cfg: MirrorConfig, tps: Iterable[TopicPartition]) -> list[PartitionPlan]:
    """Capture [log start, end) on the source and the remote partitions' current ends."""
    policy = cfg.policy()
    plans: list[PartitionPlan] = []
    with _consumers(cfg) as (source, target):
        for topic, partitions in by_topic(tps).items():
            bounds = offset_bounds(source, topic, partitions)
            ends = end_offsets(target, policy.format_remote_topic(cfg.source, topic), partitions)
            plans.extend(PartitionPlan(topic, p, bounds[p][0], bounds[p][1], ends[p]) for p in partitions)
    return plans


@contextmanager
def _consumers(cfg: MirrorConfig) -> Iterator[tuple[Any, Any]]:
    """A source and a target consumer for offset queries, closed afterwards."""
    source = new_consumer(cfg.client("source", "consumer"))
    target = new_consumer(cfg.client("target", "consumer"))
    try:
        yield source, target
    finally:
        source.close()
        target.close()
