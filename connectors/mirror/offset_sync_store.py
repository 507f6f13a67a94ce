"""Offset syncs of one offset-syncs topic, indexed to translate consumer positions downstream.

A consumer position g on a source partition (the next record the group would read) translates to
the downstream offset from which a consumer of the remote partition sees every record at or after
g. Translation may start early (re-reads) but never late (skips). Per partition, the store keeps
syncs S_0..S_n, S_i = (U_i -> D_i), with these invariants:

A. U_0 < U_1 < ... < U_n, and each S_i is a sync read from the topic: the writer of S_i copied
   upstream record U_i to D_i (or later, where another producer interleaved unseen: a lower bound).
B. reach[i] is set when a later sync named S_i as the one it continues (`OffsetSync.since`, a header
   only our writer sets, see offset_sync_writer): reach[i] is that sync's downstream offset R. One
   writer then copied the records after U_i one by one, upstream U_i + k to D_i + k (or later), up
   to a gap just before the record it copied to R. So for a position g past U_i, the first record
   at or after g is at least at min(D_i + (g - U_i), R): equality when nothing else writes the remote
   partition. reach[i] outlives the sync at R being removed by C: it still describes the records the
   older run copied. Syncs without the header (Java MM2's writer merges syncs it could not send;
   compaction removes syncs) never set it.
C. The newest run wins: a sync whose upstream offset is at or below the newest stored one was
   written by a restarted writer re-copying from there. It removes the stored syncs at or above its
   offset; the older ones stay true of the records they describe. (A zombie writer that keeps copying
   after its successor started breaks this; exactly-once fencing is what rules it out.)
D. Nothing translates before `start()` (the first read of the topic to its end), as in Kafka's
   OffsetSyncStore. Then, with S_i the newest sync at or below g:
   - no sync for the partition: None; every sync above g: -1 (too old to translate, as Java);
   - g == U_i: D_i, exact;
   - reach[i] set: min(D_i + (g - U_i), reach[i]), exact by B (this is where MM2 rounds down);
   - otherwise Java's conservative D_i + 1 (later records land after D_i);
   - either way capped at D_i+1 when there is a next sync: it holds a record at or after g.
   So translation never passes the true position, and is exact after a linked sync.
E. At most `max_per_partition` syncs per partition; the oldest go first.
F. Backwards (`reverse`, for active/active fail-over, origin_translation): a downstream position g (the next
   remote record a consumer would read) gives an upstream offset r such that every upstream record the
   consumer has not read (no copy of it below g) is at or after r. It rests on every sync being an exact
   mapping (our writer syncs only exact positions; Java's syncs record metadata) and on each run copying
   in upstream order from a committed offset: if U has a copy at D < g, every upstream record up to U has
   one below D, so all were read. With S_i the sync of the highest upstream offset whose downstream
   offset is below g:
   - none (every sync at or after g): 0, since nothing is known to have been read (exact when the first
     sync is of the partition's first record, as for a flow that started with the topic);
   - reach[i] set: U_i + (min(g, R) - D_i), the linked run's records below g having all been read;
   - otherwise U_i + 1;
   - capped at U_{i+1} when there is a next sync.
"""

from __future__ import annotations

import bisect
import threading
from dataclasses import dataclass, field

from connectors.mirror.formats import OffsetSync


@dataclass(slots=True)
class _Syncs:
    ups: list[int] = field(default_factory=list)
    downs: list[int] = field(default_factory=list)
    reach: list[int | None] = field(default_factory=list)  # invariant B
    ordered: bool = True  # downs ascend with ups (false only when a late sync broke the order)

    def cut(self, at: int) -> None:
        del self.ups[at:], self.downs[at:], self.reach[at:]

    def drop_oldest(self, count: int) -> None:
        del self.ups[:count], self.downs[:count], self.reach[:count]


class OffsetSyncStore:
    def __init__(self, max_per_partition: int = 100_000) -> None:
        self._max = max_per_partition
        self._lock = threading.Lock()
        self._syncs: dict[tuple[str, int], _Syncs] = {}
        self._started = False

    def start(self) -> None:
        """The topic has been read to its end once: translation may begin (invariant D)."""
        self._started = True

    def add(self, sync: OffsetSync) -> None:
        key = (sync.topic, sync.partition)
        with self._lock:
            s = self._syncs.get(key)
            if s is None:
                s = self._syncs[key] = _Syncs()
            if s.ups and sync.upstream_offset <= s.ups[-1]:
                s.cut(bisect.bisect_left(s.ups, sync.upstream_offset))  # invariant C
            if s.ups and sync.since == (s.ups[-1], s.downs[-1]):
                s.reach[-1] = sync.downstream_offset
            s.ordered = s.ordered and (not s.downs or sync.downstream_offset > s.downs[-1])
            s.ups.append(sync.upstream_offset)
            s.downs.append(sync.downstream_offset)
            s.reach.append(None)
            if len(s.ups) > self._max:
                s.drop_oldest(len(s.ups) - self._max)

    def _known(self, topic: str, partition: int) -> _Syncs | None:
        """The partition's syncs once translation may begin (invariant D); the caller holds the lock."""
        s = self._syncs.get((topic, partition)) if self._started else None
        return s if s is not None and s.ups else None

    def translate(self, topic: str, partition: int, upstream: int) -> int | None:
        """Downstream offset for consumer position `upstream`: None when nothing is known (not
        started, or no sync for the partition), -1 when every sync is newer than the position."""
        with self._lock:
            s = self._known(topic, partition)
            if s is None:
                return None
            i = bisect.bisect_right(s.ups, upstream) - 1
            if i < 0:
                return -1
            u, d, reach = s.ups[i], s.downs[i], s.reach[i]
            if upstream == u:
                return d
            answer = d + 1 if reach is None else min(d + (upstream - u), reach)
            return answer if i + 1 == len(s.ups) else min(answer, s.downs[i + 1])

    def reverse(self, topic: str, partition: int, downstream: int) -> int | None:
        """Upstream offset from which a consumer at remote position `downstream` has read nothing
        (invariant F): None when nothing is known (not started, or no sync for the partition)."""
        with self._lock:
            s = self._known(topic, partition)
            if s is None:
                return None
            if s.ordered:
                i = bisect.bisect_left(s.downs, downstream) - 1
            else:
                i = next((j for j in range(len(s.ups) - 1, -1, -1) if s.downs[j] < downstream), -1)
            if i < 0:
                return 0
            u, d, reach = s.ups[i], s.downs[i], s.reach[i]
            answer = u + 1 if reach is None else u + (min(downstream, reach) - d)
            return answer if i + 1 == len(s.ups) else min(answer, s.ups[i + 1])

    def partitions(self) -> list[tuple[str, int]]:
        with self._lock:
            return list(self._syncs)

    def size(self, topic: str, partition: int) -> int:
        with self._lock:
            s = self._syncs.get((topic, partition))
            return 0 if s is None else len(s.ups)
