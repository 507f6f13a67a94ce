"""Decides when to emit offset syncs and writes them (MM2's OffsetSyncWriter, made exact).

A sync (upstream U -> downstream D) is sent at once for the first record of a partition in this
task's life, at every upstream gap (U != previous U + 1), at every downstream discontinuity
(D != previous D + 1: duplicates after a restart, another producer, a new remote partition) and
once `offset.lag.max` records passed since the last sync. Otherwise the newest mapping is held back
and sent at the next offset commit, or as soon as the task is caught up (an empty poll).

Every sync but a partition's first in this writer's life names the previous one it sent for that
partition (`OffsetSync.since`): between the two, this writer copied every upstream record one by
one and both offsets advanced together, because any break would have been synced. That promise is
what lets the checkpoint side translate exactly between the two (offset_sync_store, invariant B).

Every sync is an exact mapping: upstream record U is at downstream offset D. Where a run's per-record
downstream offsets are not known (another producer's records landed inside it), only its first and
last records are synced and the last names no predecessor. Exactness is what lets translation run
backwards too (a downstream position to the upstream records not yet read, offset_sync_store F), where
a lower bound would skip.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from connectors.mirror.formats import OffsetSync

log = logging.getLogger(__name__)

Send = Callable[[OffsetSync], None]


class _PartitionState:
    __slots__ = ("last_sync", "prev_upstream", "prev_downstream", "pending")

    def __init__(self) -> None:
        self.last_sync: tuple[int, int] | None = None  # (upstream, downstream) of the last sync sent
        self.prev_upstream = -1
        self.prev_downstream = -1
        self.pending = False  # prev_* is a mapping not sent yet

    @property
    def last_sync_downstream(self) -> int:
        return -1 if self.last_sync is None else self.last_sync[1]


class OffsetSyncWriter:
    def __init__(self, send: Send, max_lag: int) -> None:
        self._send = send
        self._max_lag = max_lag
        self._states: dict[tuple[str, int], _PartitionState] = {}
        self._pending: set[tuple[str, int]] = set()  # partitions holding a sync back: flushes touch only these
        self.sent = 0

    def _state(self, topic: str, partition: int) -> _PartitionState:
        state = self._states.get((topic, partition))
        if state is None:
            state = self._states[(topic, partition)] = _PartitionState()
        return state

    def record(self, topic: str, partition: int, upstream: int, downstream: int) -> None:
        """Called for each acknowledged record, in produce order per partition."""
        state = self._state(topic, partition)
        immediate = (state.last_sync is None
                     or upstream != state.prev_upstream + 1
                     or downstream != state.prev_downstream + 1
                     or downstream - (state.last_sync_downstream + 1) >= self._max_lag)
        state.prev_upstream, state.prev_downstream = upstream, downstream
        if immediate:
            state.pending = False
            self._emit(state, topic, partition, upstream, downstream)
        else:
            state.pending = True
            self._pending.add((topic, partition))

    def record_run(self, topic: str, partition: int, messages: Sequence[Any], first_down: int, last_down: int) -> None:
        """Called for each acknowledged run of consumer messages (in produce order per partition) that
        landed at `first_down`..`last_down`; emits exactly the syncs `record` would for each message."""
        n = len(messages)
        first_up, last_up = messages[0].offset(), messages[-1].offset()
        if last_up - first_up == n - 1 and last_down - first_down == n - 1:
            # Both sides advance together: only the first record and the offset.lag.max steps matter.
            self.record(topic, partition, first_up, first_down)
            state = self._states[(topic, partition)]
            step = self._max_lag + 1
            due = state.last_sync_downstream + step
            while due <= last_down:
                self._emit(state, topic, partition, first_up + (due - first_down), due)
                due += step
            state.prev_upstream, state.prev_downstream = last_up, last_down
            state.pending = state.last_sync_downstream != last_down
            if state.pending:
                self._pending.add((topic, partition))
            return
        if last_down - first_down == n - 1:
            # Upstream gaps (transaction markers, compaction), nothing else in between downstream: every
            # message's position first_down + i is exact, and `record` syncs each gap.
            for i, m in enumerate(messages):
                self.record(topic, partition, m.offset(), first_down + i)
            return
        # Another producer's records landed inside the run: only the first and last positions are known.
        # Only those two are synced, and the last names no predecessor (the stretch between is not
        # contiguous), so every sync is an exact mapping (module doc) and nothing is claimed in between.
        self.record(topic, partition, first_up, first_down)
        state = self._states[(topic, partition)]
        if state.pending:
            state.pending = False
            self._emit(state, topic, partition, first_up, first_down)
        state.last_sync = None
        state.prev_upstream, state.prev_downstream = last_up, last_down
        self._emit(state, topic, partition, last_up, last_down)

    def flush_pending(self) -> None:
        """Send every held-back sync (called at offset commit, and on every empty poll: it costs nothing
        per partition when nothing is held back)."""
        if not self._pending:
            return
        for topic, partition in sorted(self._pending):
            state = self._states[(topic, partition)]
            if state.pending:
                state.pending = False
                self._emit(state, topic, partition, state.prev_upstream, state.prev_downstream)
        self._pending.clear()

    def _emit(self, state: _PartitionState, topic: str, partition: int, upstream: int, downstream: int) -> None:
        self._send(OffsetSync(topic, partition, upstream, downstream, state.last_sync))
        state.last_sync = (upstream, downstream)
        self.sent += 1
