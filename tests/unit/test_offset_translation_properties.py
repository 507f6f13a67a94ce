"""Property tests of offset translation over generated replication histories.

A history is built by replaying real writers over a simulated source partition and remote partition:
upstream gaps (aborted transactions, compaction), writer runs that restart from an earlier committed
offset (duplicates downstream), other producers' records in the remote partition, runs that die
without sending their held-back sync, a finished run's last syncs arriving after its successor's
first ones, Java MM2's writer (merged, header-less syncs) mixed with ours, and compaction of the
offset-syncs topic. The store is fed the resulting sync stream, then every consumer position is
translated and checked against the remote partition as it really is:

- never skips: every source record at or after position g has a copy at or after translate(g);
- exact with our own syncs: where one of our writers ran alone from position g on, translate(g)
  re-reads nothing;
- backwards, never skips either (offset_sync_store, invariant F): for every remote position g, every source
  record with no copy below g is at or after reverse(g).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from connectors.mirror.formats import OffsetSync
from connectors.mirror.offset_sync_store import OffsetSyncStore
from connectors.mirror.offset_sync_writer import OffsetSyncWriter
from tests.harness.messages import at
from tests.hypothesis_profiles import examples

EXAMPLES = 10_000


class _JavaWriter:
    """Java MM2's OffsetSyncWriter as it behaves on the wire: syncs on the first record, upstream
    skips, downstream truncation and offset.lag.max; one pending and one delayed sync per partition,
    a pending sync that cannot be sent at once is replaced by the next (merged)."""

    def __init__(self, out: list[OffsetSync], max_lag: int, rnd: random.Random) -> None:
        self.out, self.max_lag, self.rnd = out, max_lag, rnd
        self.last_sync_down, self.prev_up, self.prev_down = -1, -1, -1
        self.pending: tuple[int, int] | None = None
        self.delayed: tuple[int, int] | None = None

    def record(self, up: int, down: int) -> None:
        if (self.last_sync_down < 0 or down - (self.last_sync_down + 1) >= self.max_lag
                or up - self.prev_up != 1 or down < self.prev_down):
            self.last_sync_down = down
            self.pending, self.delayed = (up, down), None
        else:
            self.delayed = (up, down)
        self.prev_up, self.prev_down = up, down
        if self.rnd.random() < 0.6:
            self.fire()

    def commit(self) -> None:
        if self.delayed is not None:
            self.pending, self.delayed = self.delayed, None
        self.fire()

    def fire(self) -> None:
        if self.pending is not None:
            self.out.append(OffsetSync("t", 0, *self.pending))
            self.pending = None


@dataclass
class History:
    source: list[int]
    remote: list[int | None] = field(default_factory=list)  # upstream offset copied there, None: foreign
    syncs: list[OffsetSync] = field(default_factory=list)
    exact_from: int | None = None  # positions >= this one must translate with no re-read


def _source(rnd: random.Random, size: int) -> list[int]:
    offsets, offset = [], rnd.randint(0, 5)
    for _ in range(size):
        offsets.append(offset)
        roll = rnd.random()
        offset += 1 if roll < 0.75 else 2 if roll < 0.88 else rnd.randint(3, 25)  # markers, aborted runs
    return offsets


def _copy_run(h: History, rnd: random.Random, start: int, end: int, own: bool, max_lag: int,
              foreign: float, interleave: bool, flush_at_end: bool) -> list[OffsetSync]:
    """One writer run copying source[start:end]; returns the syncs it sent, in order. A run that
    dies (flush_at_end false) never sends its held-back sync."""
    sent: list[OffsetSync] = []
    writer = OffsetSyncWriter(sent.append, max_lag)
    java = _JavaWriter(sent, max_lag, rnd)
    i = start
    while i < end:
        while rnd.random() < foreign:
            h.remote.append(None)
        batch = h.source[i:min(end, i + rnd.randint(1, 6))]
        positions = []
        for up in batch:
            if interleave and positions and rnd.random() < foreign:
                h.remote.append(None)  # another producer's record inside our batch, unseen by the writer
            positions.append(len(h.remote))
            h.remote.append(up)
        if not own:
            for up, down in zip(batch, positions, strict=True):
                java.record(up, down)
            if rnd.random() < 0.3:
                java.commit()
        elif rnd.random() < 0.5:
            writer.record_run("t", 0, [at(u) for u in batch], positions[0], positions[-1])
        else:
            for up, down in zip(batch, positions, strict=True):
                writer.record("t", 0, up, down)
        if own and rnd.random() < 0.2:
            writer.flush_pending()  # an offset commit, or an empty poll
        i += len(batch)
    if flush_at_end:
        writer.flush_pending()
        java.commit()
    return sent


def _history(rnd: random.Random, runs: int, java_share: float, foreign: float, interleave: bool,
             late_tail: bool, die: bool) -> History:
    h = History(_source(rnd, rnd.randint(1, 80)))
    committed, last_run_syncs = 0, 0  # index of the next record after the committed source offset
    all_own_and_flushed = not interleave and not late_tail
    for run in range(runs):
        final = run == runs - 1
        start = committed  # a run (re)starts from the last committed source offset
        end = len(h.source) if final else rnd.randint(start, len(h.source))
        own = rnd.random() >= java_share
        flush = final or not (die and rnd.random() < 0.5)
        all_own_and_flushed = all_own_and_flushed and own and flush
        sent = _copy_run(h, rnd, start, end, own, rnd.randint(0, 6), foreign, interleave, flush)
        if late_tail and last_run_syncs and sent:
            k = rnd.randint(0, min(3, last_run_syncs))  # the previous run's last syncs arrive late
            tail = h.syncs[len(h.syncs) - k:] if k else []
            del h.syncs[len(h.syncs) - k:]
            j = rnd.randint(0, len(sent))
            sent = sent[:j] + tail + sent[j:]
        h.syncs += sent
        last_run_syncs = len(sent)
        if not (die and rnd.random() < 0.5):
            committed = rnd.randint(start, end)  # offsets are committed behind the copy
        if final and own and not interleave and not late_tail and start < len(h.source):
            h.exact_from = h.source[start]
    if all_own_and_flushed:
        h.exact_from = h.source[0]  # restarts included: the older runs' links survive the cut (invariant B)
    return h


def _check(h: History, store: OffsetSyncStore) -> None:
    max_copy: dict[int, int] = {}
    for pos, up in enumerate(h.remote):
        if up is not None:
            max_copy[up] = pos
    suffix_min, best = {}, len(h.remote)
    for up in reversed(h.source):
        best = min(best, max_copy[up])
        suffix_min[up] = best
    for g in range(h.source[0] - 2, h.source[-1] + 3):
        t = store.translate("t", 0, g)
        if t is None or t < 0:
            assert h.exact_from is None or g < h.exact_from or not h.syncs, (g, t)
            continue
        first = next((u for u in h.source if u >= g), None)
        bound = len(h.remote) if first is None else suffix_min[first]
        assert t <= bound, f"position {g} translated to {t}, past {bound}: a record would be skipped"
        if h.exact_from is not None and g >= h.exact_from:
            reread = [p for p in range(t, len(h.remote)) if _before(h.remote[p], g)]
            assert not reread, f"position {g} -> {t} re-reads remote offsets {reread[:5]}"


def _check_reverse(h: History, store: OffsetSyncStore) -> None:
    read: set[int] = set()
    for g in range(len(h.remote) + 2):
        if g > 0 and g <= len(h.remote) and h.remote[g - 1] is not None:
            read.add(h.remote[g - 1])  # type: ignore[arg-type]
        r = store.reverse("t", 0, g)
        if r is None or r < 0:
            continue
        unread = next((u for u in h.source if u not in read), h.source[-1] + 1)
        assert r <= unread, f"remote position {g} reversed to {r}, past unread source record {unread}"


def _before(up: int | None, g: int) -> bool:
    return up is not None and up < g


def _store(syncs: list[OffsetSync], compact: float, rnd: random.Random) -> OffsetSyncStore:
    store = OffsetSyncStore()
    for i, sync in enumerate(syncs):
        if i == len(syncs) - 1 or rnd.random() >= compact:  # compaction keeps the newest per key
            store.add(sync)
    store.start()
    return store


SETTINGS = settings(max_examples=examples(EXAMPLES), deadline=None, suppress_health_check=list(HealthCheck))


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), runs=st.integers(1, 4), java_share=st.sampled_from([0.0, 0.5, 1.0]),
       foreign=st.sampled_from([0.0, 0.1, 0.3]), interleave=st.booleans(), late_tail=st.booleans(),
       die=st.booleans(), compact=st.sampled_from([0.0, 0.3, 0.8]))
def test_translation_never_passes_the_true_position(seed: int, runs: int, java_share: float, foreign: float,
                                                     interleave: bool, late_tail: bool, die: bool,
                                                     compact: float) -> None:
    """Any sync stream: ours, Java's, mixed, compacted, arriving out of copy order."""
    rnd = random.Random(seed)
    h = _history(rnd, runs, java_share, foreign, interleave, late_tail, die)
    if compact:
        h.exact_from = None  # compaction removes the syncs exactness rests on; never skipping still holds
    store = _store(h.syncs, compact, rnd)
    _check(h, store)
    _check_reverse(h, store)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), runs=st.integers(1, 4), foreign=st.sampled_from([0.0, 0.1, 0.3]),
       die=st.booleans())
def test_translation_is_exact_with_own_syncs(seed: int, runs: int, foreign: float, die: bool) -> None:
    """Our writers only, restarts and other producers included: every position translates with no
    re-read, from the first record on when no run died before sending its held-back sync, else from
    the newest run's start on (and still never skips below it)."""
    rnd = random.Random(seed)
    h = _history(rnd, runs, 0.0, foreign, False, False, die)
    # exact_from is None only when the newest run had nothing left to copy (about 1 stream in 10)
    store = _store(h.syncs, 0.0, rnd)
    _check(h, store)
    _check_reverse(h, store)
