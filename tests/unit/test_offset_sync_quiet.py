"""The offset-sync writer's quiet rule (offset_sync_writer, invariant Q) on a fake clock, after any traffic.

A partition whose last record was copied at t, then quiet, has that record's mapping synced by
t + QUIET_S + one poll when its bucket holds a token: in its first quiet stretch (no quiet sync sent
before), and when 100 records or 20 s passed since its previous sync. Traffic is fed as the task feeds
it: each poll hands every partition's records over in one or more runs (a fetch's chunks), then looks at
the quiet checks; idle polls only look. The DR case (a burst copied as one run per partition, synced
0, 101, 202, 303 and then nothing for 20 s) is the first example below.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from connectors.mirror.formats import OffsetSync
from connectors.mirror.offset_sync_writer import EARN_INTERVAL_S, EARN_PER_RECORD, QUIET_S, OffsetSyncWriter
from tests.harness.messages import FakeMessage
from tests.hypothesis_profiles import examples

EXAMPLES = 1_000
SHIFT = 7  # the remote partitions hold 7 other records first: translation is not the identity
EPS = 1e-6

# One poll of traffic: idle seconds before it, the records each partition gets in it, in how many runs.
STEP = st.tuples(
    st.one_of(st.just(0.0), st.floats(0.0, 3.0), st.floats(15.0, 30.0)),
    st.lists(st.integers(0, 400), min_size=1, max_size=8),
    st.integers(1, 4),
)


class _Clock:
    """Whole polls since the start, so that times compare exactly."""

    def __init__(self, poll: float) -> None:
        self.poll, self.ticks = poll, 0

    def __call__(self) -> float:
        return 1000.0 + self.ticks * self.poll


@dataclass
class _Trace:
    copies: dict[int, list[tuple[float, int]]] = field(default_factory=lambda: defaultdict(list))  # (when, last)
    syncs: dict[int, list[tuple[float, OffsetSync, bool]]] = field(default_factory=lambda: defaultdict(list))


def _chunks(count: int, runs: int) -> list[int]:
    """`count` records as at most `runs` non-empty runs of near-equal size."""
    runs = max(1, min(runs, count))
    return [count // runs + (1 if i < count % runs else 0) for i in range(runs)] if count else []


def _replay(steps: list[tuple[float, list[int], int]], poll: float, max_lag: int) -> _Trace:
    clock = _Clock(poll)
    sent: list[OffsetSync] = []
    writer = OffsetSyncWriter(sent.append, max_lag, clock)
    trace = _Trace()
    following: dict[int, int] = defaultdict(int)  # partition -> next upstream offset

    def collect(quiet: bool) -> None:
        for s in sent:
            trace.syncs[s.partition].append((clock(), s, quiet))
        sent.clear()

    def look(polls: int) -> None:
        for _ in range(polls):
            clock.ticks += 1
            writer.flush_quiet()
            collect(True)

    for idle, counts, runs in steps:
        look(math.ceil(idle / poll))
        clock.ticks += 1
        for p, count in enumerate(counts):
            for size in _chunks(count, runs):
                first = following[p]
                writer.record_run("t", p, [FakeMessage("t", p, o) for o in range(first, first + size)],
                                  first + SHIFT, first + SHIFT + size - 1)
                following[p] += size
            if count:
                trace.copies[p].append((clock(), following[p] - 1))
        collect(False)
        writer.flush_quiet()
        collect(True)
    look(math.ceil(QUIET_S / poll) + 2)
    return trace


def _holds_a_token(syncs: list[tuple[float, OffsetSync, bool]], copied_at: float, last: int) -> bool:
    """Invariant Q's condition, from what was sent by the time `last` was copied."""
    before = [(when, s, quiet) for when, s, quiet in syncs if when <= copied_at + EPS]
    first_stretch = not any(quiet for _, _, quiet in before)
    when, previous, _ = before[-1]  # a partition's first record is always synced at once
    return (first_stretch or last - previous.upstream_offset >= round(1 / EARN_PER_RECORD)
            or copied_at + QUIET_S - when >= EARN_INTERVAL_S)


def _late_quiet_syncs(trace: _Trace, poll: float) -> list[str]:
    """Every quiet stretch whose bucket held a token and whose last position was not synced in time."""
    late = []
    for p, copies in trace.copies.items():
        syncs = trace.syncs[p]
        for i, (copied_at, last) in enumerate(copies):
            deadline = copied_at + QUIET_S + poll
            if i + 1 < len(copies) and copies[i + 1][0] <= deadline + EPS:
                continue  # not quiet for long enough
            if not _holds_a_token(syncs, copied_at, last):
                continue
            synced = [when for when, s, _ in syncs if (s.upstream_offset, s.downstream_offset) == (last, last + SHIFT)]
            if not synced or synced[0] > deadline + EPS:
                at = f"{synced[0] - copied_at:.2f} s" if synced else "never"
                late.append(f"partition {p}: offset {last} copied at +{copied_at - 1000:.2f} s, synced {at} later")
    return late


@settings(max_examples=examples(EXAMPLES), deadline=None, suppress_health_check=list(HealthCheck))
@example(steps=[(0.0, [334, 333, 333], 1)], poll=0.1, max_lag=100)  # the DR burst: 1,000 records, 3 partitions
@example(steps=[(0.0, [150] * 8, 4), (0.5, [120] * 8, 2)], poll=0.05, max_lag=100)  # chunked, quiet together
@given(steps=st.lists(STEP, min_size=1, max_size=6), poll=st.sampled_from([0.05, 0.1, 0.2, 0.5]),
       max_lag=st.sampled_from([100, 250, 1000]))
def test_a_quiet_partition_holding_a_token_is_synced_within_quiet_s_and_one_poll(
        steps: list[tuple[float, list[int], int]], poll: float, max_lag: int) -> None:
    """Invariant Q over generated traffic: bursts, runs split into chunks, idle stretches, partitions
    going quiet together."""
    trace = _replay(steps, poll, max_lag)
    late = _late_quiet_syncs(trace, poll)
    assert not late, f"{len(late)} quiet position(s) synced late:\n" + "\n".join(late[:10])


def test_a_thousand_partitions_going_quiet_together_are_all_synced_at_the_first_look() -> None:
    """Every partition gets a burst of 250 records in the same poll, then none gets any: each one's last
    position is synced by the first look at least QUIET_S later, and by nothing earlier than QUIET_S."""
    poll = 0.1
    trace = _replay([(0.0, [250] * 1000, 3)], poll, 100)
    quiet = [(when, s) for p in range(1000) for when, s, q in trace.syncs[p] if q]
    assert len(quiet) == 1000 and {s.upstream_offset for _, s in quiet} == {249}
    copied_at = trace.copies[0][0][0]
    assert all(copied_at + QUIET_S - EPS <= when <= copied_at + QUIET_S + poll + EPS for when, _ in quiet)
