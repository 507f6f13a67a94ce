"""An index of offset syncs that translates upstream offsets exactly.

The source task emits a sync at every upstream gap and downstream discontinuity (see
offset_sync_writer), so between two consecutive syncs S_i = (U_i -> D_i) and S_i+1 both offsets
advance together: any upstream offset u with U_i <= u < U_i+1 was replicated at D_i + (u - U_i).
For an offset past the newest sync we only know what that sync says, so the answer there is
conservative (at most one record before the true position, like MM2): never a skipped record.

When the upstream offsets rewind (a task restarted from its committed offset and re-sent records),
the newer run's syncs replace the older run's from that offset on. The index keeps up to
`max_per_partition` syncs per partition (oldest dropped): bounded, and far more precise than MM2's
64 exponentially spaced samples.
"""

from __future__ import annotations

import bisect
import threading

from connectors.mirror.formats import OffsetSync


class OffsetSyncStore:
    def __init__(self, max_per_partition: int = 100_000) -> None:
        self._max = max_per_partition
        self._lock = threading.Lock()
        self._up: dict[tuple[str, int], list[int]] = {}
        self._down: dict[tuple[str, int], list[int]] = {}

    def add(self, sync: OffsetSync) -> None:
        key = (sync.topic, sync.partition)
        with self._lock:
            ups = self._up.setdefault(key, [])
            downs = self._down.setdefault(key, [])
            if ups and sync.upstream_offset <= ups[-1]:
                cut = bisect.bisect_left(ups, sync.upstream_offset)  # a newer run supersedes from here on
                del ups[cut:], downs[cut:]
            ups.append(sync.upstream_offset)
            downs.append(sync.downstream_offset)
            if len(ups) > self._max:
                del ups[: len(ups) - self._max], downs[: len(downs) - self._max]

    def translate(self, topic: str, partition: int, upstream: int) -> int | None:
        """Downstream offset for a consumer position `upstream` (the next record to read), or None when
        no sync covers it (nothing is emitted then)."""
        key = (topic, partition)
        with self._lock:
            ups = self._up.get(key)
            if not ups:
                return None
            i = bisect.bisect_right(ups, upstream) - 1
            if i < 0:
                return None
            u, d = ups[i], self._down[key][i]
            if i + 1 < len(ups) or upstream == u:
                return d + (upstream - u)  # inside a contiguous run: exact
            return d + 1  # past the newest sync: conservative, never skips a record

    def partitions(self) -> list[tuple[str, int]]:
        with self._lock:
            return list(self._up)

    def size(self, topic: str, partition: int) -> int:
        with self._lock:
            return len(self._up.get((topic, partition), ()))
