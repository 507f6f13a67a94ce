"""Decides when to emit offset syncs and writes them (MM2's OffsetSyncWriter, made exact and cheap).

A sync (upstream U -> downstream D) is sent at once for the first record of a partition in this
task's life, at every upstream gap (U != previous U + 1), at every downstream discontinuity
(D != previous D + 1: duplicates after a restart, another producer, a new remote partition) and
once `offset.lag.max` records passed since the last sync, as MM2 does. Otherwise the newest mapping
is held back. A held-back sync goes out when its partition has been quiet for `QUIET_S` (the
position producers stopped at, which is where a fail-over group sits), within the partition's sync
budget, or at the task's final commit (`flush_pending`).

Every sync but a partition's first in this writer's life names the previous one it sent for that
partition (`OffsetSync.since`): between the two, this writer copied every upstream record one by
one and both offsets advanced together, because any break would have been synced. That promise is
what lets the checkpoint side translate exactly between the two (offset_sync_store, invariant B),
so holding syncs back costs no exactness anywhere behind the newest sync: only positions after it
re-read, at most `offset.lag.max` records, until the partition goes quiet.

Every sync is an exact mapping: upstream record U is at downstream offset D. Where a run's per-record
downstream offsets are not known (another producer's records landed inside it), only its first and
last records are synced and the last names no predecessor. Exactness is what lets translation run
backwards too (a downstream position to the upstream records not yet read, offset_sync_store F), where
a lower bound would skip.

Cost invariant (the budget; offset syncs cross the WAN to the source cluster in MM2's placement):
  C. Each partition has a bucket of at most BURST tokens, full at its first record. Every sync spends
     one token; a held-back sync waits for a whole token. Between two looks at the bucket (a sync, a
     quiet check) it earns the larger of EARN_PER_RECORD per record copied and one token per
     EARN_INTERVAL_S. For gap-free traffic the mandatory syncs (the first; one per `offset.lag.max` + 1
     records, which from 100 up earns more than it spends) never find the bucket empty, so over any
     stretch of n records and t seconds the syncs sent number at most
         BURST + EARN_PER_RECORD * n + t / EARN_INTERVAL_S  <=  BURST + max(0.02 * n, t / 10):
     about one per 50 records under traffic, one per 10 s when it is light, MM2's rate (KAFKA-18125).
     Syncs forced by gaps and discontinuities (transaction markers, compaction, restarts, another
     producer) are sent whatever the budget, as MM2's are, and spend nothing; as the bucket never goes
     below zero, a quiet partition's held-back sync goes out at most QUIET_S + EARN_INTERVAL_S after its
     last record, and at once (QUIET_S) when the bucket holds a token, as it does for the first quiet
     stretch after a partition's start and after 20 s or 100 records since its previous sync.

Quiet invariant (what exact fail-over right after a burst rests on; the cost bound C holds either way):
  Q. For gap-free traffic with `offset.lag.max` >= 100, a partition whose last record was copied at t has
     that record's mapping synced by t + QUIET_S + one poll when its bucket holds a token: always in its
     first quiet stretch (no quiet sync sent before), and when 100 records or 20 s passed since its
     previous sync. Two things make it hold:
     - A run's records are credited to the bucket in order, each step sync paid by the records up to it,
       exactly as `record` would one by one. Crediting a whole run before its steps overflowed
       the capped bucket at the first step and left the later steps to drain it: a burst of 334 records
       copied as one run synced 0, 101, 202 and 303 with an empty bucket, and 333 went out 20 s later,
       so a group committed at the end re-read 30 records when it failed over.
     - The task looks at the due quiet checks (`flush_quiet`, a heap: one comparison when none is due)
       after every poll, after every slice of an idle poll (poll_wait.SLICE) and at every offset commit,
       so a check is never later than one poll, whatever the other partitions do.
"""

from __future__ import annotations

import heapq
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from connectors.mirror.formats import OffsetSync

log = logging.getLogger(__name__)

Send = Callable[[OffsetSync], None]

QUIET_S = 1.0  # a partition with no record for this long has a position worth making exact
EARN_PER_RECORD = 0.01  # the budget: half of one sync per 50 records copied, plus ...
EARN_INTERVAL_S = 20.0  # ... half of one per 10 s: together at most max(0.02 * n, t / 10) (invariant C)
BURST = 2.0  # tokens a partition starts with and may save up
_WHOLE = 1.0 - 1e-9  # a token, less the rounding of the refills' sums


class _PartitionState:
    __slots__ = ("last_sync", "prev_upstream", "prev_downstream", "pending", "records", "refilled_at",
                 "refilled_records", "tokens", "version")

    def __init__(self, now: float) -> None:
        self.last_sync: tuple[int, int] | None = None  # (upstream, downstream) of the last sync sent
        self.prev_upstream = -1
        self.prev_downstream = -1
        self.pending = False  # prev_* is a mapping not sent yet
        self.records = 0  # copied in this writer's life
        self.refilled_at = now  # the bucket's last refill: when, and at how many records
        self.refilled_records = 0
        self.tokens = BURST
        self.version = 0  # bumped by each held-back record: a queued quiet check of an older version is stale

    @property
    def last_sync_downstream(self) -> int:
        return -1 if self.last_sync is None else self.last_sync[1]

    def refill(self, now: float) -> None:
        """Add the larger of the two allowances earned since the last refill (invariant C)."""
        earned = max(EARN_PER_RECORD * (self.records - self.refilled_records),
                     (now - self.refilled_at) / EARN_INTERVAL_S)
        self.tokens = min(BURST, self.tokens + earned)
        self.refilled_at, self.refilled_records = now, self.records

    def token_at(self) -> float:
        """When the bucket holds a whole token again by time alone (later than its last refill)."""
        return self.refilled_at + max(1e-3, (1.0 - self.tokens) * EARN_INTERVAL_S)

class OffsetSyncWriter:
    def __init__(self, send: Send, max_lag: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._send = send
        self._max_lag = max_lag
        self._clock = clock
        self._states: dict[tuple[str, int], _PartitionState] = {}
        self._pending: set[tuple[str, int]] = set()  # partitions holding a sync back: flushes touch only these
        self._due: list[tuple[float, int, tuple[str, int]]] = []  # (when, version, partition): quiet checks
        self.sent = 0

    def _state(self, topic: str, partition: int, now: float) -> _PartitionState:
        state = self._states.get((topic, partition))
        if state is None:
            state = self._states[(topic, partition)] = _PartitionState(now)
        return state

    def record(self, topic: str, partition: int, upstream: int, downstream: int) -> None:
        """Called for each acknowledged record, in produce order per partition."""
        self._record(topic, partition, upstream, downstream, self._clock())

    def _record(self, topic: str, partition: int, upstream: int, downstream: int, now: float) -> None:
        state = self._state(topic, partition, now)
        budgeted = state.last_sync is None or downstream - (state.last_sync_downstream + 1) >= self._max_lag
        forced = upstream != state.prev_upstream + 1 or downstream != state.prev_downstream + 1
        state.prev_upstream, state.prev_downstream = upstream, downstream
        state.records += 1
        if budgeted or forced:
            state.pending = False
            self._emit(state, topic, partition, upstream, downstream, now, spend=budgeted or not forced)
        else:
            self._hold(state, (topic, partition), now)

    def _hold(self, state: _PartitionState, key: tuple[str, int], now: float) -> None:
        state.pending = True
        state.version += 1
        self._pending.add(key)
        heapq.heappush(self._due, (now + QUIET_S, state.version, key))

    def record_run(self, topic: str, partition: int, messages: Sequence[Any], first_down: int, last_down: int) -> None:
        """Called for each acknowledged run of consumer messages (in produce order per partition) that
        landed at `first_down`..`last_down`; emits exactly the syncs `record` would for each message."""
        now = self._clock()
        n = len(messages)
        first_up, last_up = messages[0].offset(), messages[-1].offset()
        if last_up - first_up == n - 1 and last_down - first_down == n - 1:
            # Both sides advance together: only the first record and the offset.lag.max steps matter.
            self._record(topic, partition, first_up, first_down, now)
            state = self._states[(topic, partition)]
            before = state.records - 1  # copied before this run
            step = self._max_lag + 1
            due = state.last_sync_downstream + step
            while due <= last_down:
                state.records = before + (due - first_down) + 1  # credited up to this step only (invariant Q)
                self._emit(state, topic, partition, first_up + (due - first_down), due, now)
                due += step
            state.records = before + n
            state.prev_upstream, state.prev_downstream = last_up, last_down
            if state.last_sync_downstream == last_down:
                state.pending = False
            elif not state.pending:  # a held first record already queued this run's quiet check (same `now`)
                self._hold(state, (topic, partition), now)
            return
        if last_down - first_down == n - 1:
            # Upstream gaps (transaction markers, compaction), nothing else in between downstream: every
            # message's position first_down + i is exact, and `record` syncs each gap.
            for i, m in enumerate(messages):
                self._record(topic, partition, m.offset(), first_down + i, now)
            return
        # Another producer's records landed inside the run: only the first and last positions are known.
        # Only those two are synced, and the last names no predecessor (the stretch between is not
        # contiguous), so every sync is an exact mapping (module doc) and nothing is claimed in between.
        self._record(topic, partition, first_up, first_down, now)
        state = self._states[(topic, partition)]
        state.records += n - 1
        if state.pending:
            state.pending = False
            self._emit(state, topic, partition, first_up, first_down, now, spend=False)
        state.last_sync = None
        state.prev_upstream, state.prev_downstream = last_up, last_down
        self._emit(state, topic, partition, last_up, last_down, now, spend=False)

    def flush_quiet(self) -> None:
        """Send the held-back syncs of partitions quiet for QUIET_S whose budget allows one (invariant C);
        the others are looked at again when their token is due. Call it often (every poll): it costs
        one comparison when nothing is due."""
        due = self._due
        if not due:
            return
        now = self._clock()
        while due and due[0][0] <= now:
            _, version, key = heapq.heappop(due)
            state = self._states[key]
            if version != state.version or not state.pending:
                continue  # newer records came (a newer check is queued), or the sync went out
            state.refill(now)
            if state.tokens < _WHOLE:
                heapq.heappush(due, (state.token_at(), version, key))
                continue
            state.pending = False
            self._pending.discard(key)
            self._emit(state, key[0], key[1], state.prev_upstream, state.prev_downstream, now)

    def flush_pending(self) -> None:
        """Send every held-back sync, whatever the budget (the task's final commit; a stop is rare)."""
        if not self._pending:
            return
        now = self._clock()
        for topic, partition in sorted(self._pending):
            state = self._states[(topic, partition)]
            if state.pending:
                state.pending = False
                self._emit(state, topic, partition, state.prev_upstream, state.prev_downstream, now)
        self._pending.clear()

    def _emit(self, state: _PartitionState, topic: str, partition: int, upstream: int, downstream: int,
              now: float, spend: bool = True) -> None:
        """Send one sync; `spend` False for those forced by a gap or a discontinuity, which are outside the
        budget (invariant C) and must not delay the quiet partition's next sync."""
        self._send(OffsetSync(topic, partition, upstream, downstream, state.last_sync))
        state.last_sync = (upstream, downstream)
        if spend:
            state.refill(now)
            state.tokens = max(0.0, state.tokens - 1.0)
        self.sent += 1
