"""A sink task's partitions and offsets: what it owns, how far it got, what the group has committed, and
the consumer-side effects of its context's requests (Connect's WorkerSinkTask rebalance listener and
commitOffsets). Used only from the task's thread: the consumer calls the rebalance callbacks from inside
`consume`, on that thread.

`current[tp]` is the next offset to read after everything given to a `put` that returned; `committed[tp]`
what the group holds. See sink_runner.py for the invariants.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pyconnect.api.errors import ConnectException
from pyconnect.api.sink import SinkTask, TopicPartition
from pyconnect.kafka.clients import Consumer, KafkaClientError, assign
from pyconnect.kafka.consumer_control import OFFSET_COMMITTED, PartitionRef, commit_offsets, pause, resume, seek
from pyconnect.runtime.sink.context import WorkerSinkTaskContext

log = logging.getLogger(__name__)


def _tps(partitions: Iterable[PartitionRef]) -> list[TopicPartition]:
    return [TopicPartition(p.topic, p.partition) for p in partitions]


class SinkOffsets:
    """Partition ownership, offsets and commits of one sink task."""

    def __init__(self, task_id: str, consumer: Consumer, task: SinkTask, context: WorkerSinkTaskContext,
                 before_commit: Callable[[list[TopicPartition]], None]) -> None:
        self._id, self._consumer, self._task, self._context = task_id, consumer, task, context
        self._before_commit = before_commit
        self.current: dict[TopicPartition, int] = {}
        self.committed: dict[TopicPartition, int] = {}
        self.assigned: set[TopicPartition] = set()
        self._paused_all = False
        self._paused_by_task: set[TopicPartition] = set()
        self._failure: BaseException | None = None
        self._closed = False

    def check(self) -> None:
        """Raise what a rebalance callback failed with (the consumer swallows callback errors)."""
        if self._failure is not None:
            raise ConnectException("Exiting WorkerSinkTask due to unrecoverable exception.") from self._failure

    # rebalance callbacks ---------------------------------------------------------------------------

    def on_assign(self, consumer: Consumer, partitions: Sequence[PartitionRef]) -> None:
        try:
            new = _tps(partitions)
            self.assigned.update(new)
            self._context.set_assignment(set(self.assigned))
            log.info("[%s] partitions assigned: %s", self._id, ", ".join(f"{t}-{p}" for t, p in new) or "none")
            self._task.open(new)
            resets = self._context.peek_offsets(set(new))
            if resets:  # the task asked (in open, or earlier) where these partitions start
                self.current.update(resets)
                assign(consumer, [(p.topic, p.partition, resets.get(TopicPartition(p.topic, p.partition),
                                                                     OFFSET_COMMITTED)) for p in partitions])
            if self._paused_all:
                pause(consumer, new)
        except Exception as exc:
            self._failure = self._failure or exc

    def on_revoke(self, consumer: Consumer, partitions: Sequence[PartitionRef]) -> None:
        if self._closed:
            return
        try:
            self._close_partitions(_tps(partitions), commit=True)
        except Exception as exc:
            self._failure = self._failure or exc

    def on_lost(self, consumer: Consumer, partitions: Sequence[PartitionRef]) -> None:
        try:
            self._close_partitions(_tps(partitions), commit=False)  # another member may own them already
        except Exception as exc:
            self._failure = self._failure or exc

    def _close_partitions(self, partitions: list[TopicPartition], commit: bool) -> None:
        owned = [p for p in partitions if p in self.assigned]
        if not owned:
            return
        if commit:
            self.commit(owned)
        log.info("[%s] partitions revoked: %s", self._id, ", ".join(f"{t}-{p}" for t, p in owned))
        self._task.close(owned)
        for p in owned:
            self.assigned.discard(p)
            self.current.pop(p, None)
            self.committed.pop(p, None)
        self._context.set_assignment(set(self.assigned))

    def abandon(self) -> None:
        """The assignment was lost: no commit and no callback work from here on (the partitions may belong
        to another member already)."""
        self._closed = True

    def close_all(self) -> None:
        """At stop: commit and close every partition still owned; later callbacks do nothing."""
        if self._closed:
            self._task.close(sorted(self.assigned))
            return
        try:
            self._close_partitions(sorted(self.assigned), commit=True)
        except Exception:
            log.exception("[%s] error closing partitions at stop", self._id)
        self._closed = True

    # progress and commits --------------------------------------------------------------------------

    def delivered(self, offsets: dict[TopicPartition, int]) -> None:
        """`put` returned for records up to these next offsets."""
        self.current.update({p: o for p, o in offsets.items() if p in self.assigned})

    def commit(self, partitions: Iterable[TopicPartition] | None = None) -> None:
        """Commit what `pre_commit` allows of the owned partitions (all, or `partitions`)."""
        wanted = set(self.assigned if partitions is None else partitions) & self.assigned
        current = {p: o for p, o in self.current.items() if p in wanted}
        if not current:
            return
        try:
            allowed = self._task.pre_commit(dict(current))
        except Exception:
            log.exception("[%s] Commit of offsets threw an unexpected exception for sequence number -1: %s",
                          self._id, current)
            return
        offsets = {p: o for p, o in allowed.items() if p in wanted and self.committed.get(p) != o}
        if not offsets:
            return
        self._before_commit(sorted(offsets))  # raises (the task fails) if a DLQ write failed
        try:
            commit_offsets(self._consumer, offsets.items())
        except KafkaClientError as exc:
            log.warning("[%s] offset commit failed, retried at the next commit: %s", self._id, exc)
            return
        self.committed.update(offsets)
        log.debug("[%s] committed offsets %s", self._id, offsets)

    # context requests and pausing ------------------------------------------------------------------

    def apply_requests(self) -> None:
        """Offset resets and partition pauses the task asked for since the last call."""
        for p, offset in self._context.take_offsets().items():
            if p not in self.assigned:
                continue
            seek(self._consumer, p.topic, p.partition, offset)
            self.current[p] = offset  # Connect's rewind: the reset is where the task now is
        wanted = self._context.paused()
        if wanted != self._paused_by_task:
            if not self._paused_all:
                gone = self._paused_by_task - wanted
                if gone:
                    resume(self._consumer, gone)
                if wanted:
                    pause(self._consumer, wanted)
            self._paused_by_task = wanted

    def pause_all(self) -> None:
        self._paused_all = True
        if self.assigned:
            pause(self._consumer, self.assigned)

    def resume_all(self) -> None:
        self._paused_all = False
        resumable = self.assigned - self._paused_by_task
        if resumable:
            resume(self._consumer, resumable)

    def rewind(self, messages: Sequence[Any]) -> None:
        """Messages the consumer returned while their partitions were to be paused: seek back to the first
        of each partition, so they are read again once resumed (never dropped)."""
        first: dict[TopicPartition, int] = {}
        for m in messages:
            if m.error() is None:
                first.setdefault(TopicPartition(m.topic(), m.partition()), m.offset())
        for p, offset in first.items():
            seek(self._consumer, p.topic, p.partition, offset)
