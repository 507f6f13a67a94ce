"""From a consumer group's committed source offsets to checkpoints and target-group commits
(the decisions of MM2's MirrorCheckpointTask, without its clients)."""

from __future__ import annotations

from collections.abc import Mapping

from connectors.mirror.formats import Checkpoint
from connectors.mirror.origin_translation import Translates
from connectors.mirror.policy import ReplicationPolicy
from pyconnect.api import SourceRecord
from pyconnect.kafka.admin import Committed

TopicPartition = tuple[str, int]


class GroupCheckpoints:
    """Translates committed offsets of groups on `source` for `target`, remembering the newest
    checkpoint of each (group, remote topic, partition) so that it never emits an older one."""

    def __init__(self, source: str, target: str, policy: ReplicationPolicy, store: Translates,
                 last: Mapping[str, Mapping[TopicPartition, Checkpoint]] | None = None) -> None:
        self.source, self.target, self.policy, self.store = source, target, policy, store
        self.last: dict[str, dict[TopicPartition, Checkpoint]] = {g: dict(cps) for g, cps in (last or {}).items()}

    def remote_topic(self, topic: str) -> str:
        """The target-side name: `<source>.<topic>`, or the original name for a topic coming home."""
        if self.policy.topic_source(topic) == self.target:
            return self.policy.upstream_topic(topic) or topic
        return self.policy.format_remote_topic(self.source, topic)

    def checkpoint(self, group: str, topic: str, partition: int, committed: Committed | None) -> Checkpoint | None:
        """The checkpoint of one committed offset, or None when it does not translate (yet)."""
        if committed is None:
            return None
        downstream = self.store.translate(topic, partition, committed.offset)
        if downstream is None:
            return None
        return Checkpoint(group, self.remote_topic(topic), partition, committed.offset, downstream, committed.metadata)

    def for_group(self, group: str, commits: Mapping[TopicPartition, Committed | None]
                  ) -> dict[TopicPartition, Checkpoint]:
        """New checkpoints of `group` keyed by (remote topic, partition): translatable ones (never -1)
        that are more recent than the last emitted (see `is_more_recent`)."""
        out = {}
        for (topic, partition), committed in commits.items():
            cp = self.checkpoint(group, topic, partition, committed)
            if cp is not None and cp.downstream_offset >= 0 and self.is_more_recent(cp):
                out[(cp.topic, cp.partition)] = cp
        return out

    def is_more_recent(self, cp: Checkpoint) -> bool:
        """Emit after an upstream rewind, or when the downstream offset advanced; a store that
        translates the same position lower (fewer syncs after a restart) emits nothing."""
        last = self.last.get(cp.group, {}).get((cp.topic, cp.partition))
        return (last is None or cp.upstream_offset < last.upstream_offset
                or cp.downstream_offset > last.downstream_offset)

    def emitted(self, cps: Mapping[TopicPartition, Checkpoint]) -> None:
        for cp in cps.values():
            self.last.setdefault(cp.group, {})[(cp.topic, cp.partition)] = cp

    def record(self, cp: Checkpoint, checkpoints_topic: str, timestamp: int) -> SourceRecord:
        return SourceRecord({"partition": cp.partition, "topic": cp.topic, "group": cp.group}, {"offset": 0},
                            checkpoints_topic, cp.value(), cp.key(), 0, timestamp)

    def offsets_to_sync(self, idle: Mapping[str, Mapping[TopicPartition, Committed | None]],
                        active: frozenset[str] = frozenset()) -> dict[str, dict[TopicPartition, Committed]]:
        """Target commits for each group with checkpoints: every one for a group absent on the target;
        for an idle group (`idle`: its current target offsets), those that do not move a partition
        backwards; none for an `active` group, whose consumers own their offsets."""
        out: dict[str, dict[TopicPartition, Committed]] = {}
        for group, cps in self.last.items():
            if group in active:
                continue
            current = idle.get(group)
            wanted = {}
            for tp, cp in cps.items():
                now = None if current is None else current.get(tp)
                if cp.downstream_offset >= 0 and (now is None or cp.downstream_offset > now.offset):
                    wanted[tp] = Committed(cp.downstream_offset, cp.metadata)
            if wanted:
                out[group] = wanted
        return out
