"""The offset-sync writer's cost bound and its quiet-partition exactness, over generated traffic.

offset_sync_writer states invariant C: for gap-free traffic, the syncs sent for a partition from its first
record on number at most BURST + EARN_PER_RECORD * n + t / EARN_INTERVAL_S <= BURST + max(0.02 * n, t / 10),
n the records copied and t the seconds since.
Traffic here is what users run: light and spread over many partitions, bursts, idle stretches, with the
task polling (and looking for quiet partitions) every few hundred milliseconds. Also checked: a
partition quiet for QUIET_S gets its newest mapping synced within EARN_INTERVAL_S more (the fail-over case),
and translation of every position behind the newest sync stays exact (the chain of `since` links).
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from connectors.mirror.formats import OffsetSync
from connectors.mirror.offset_sync_store import OffsetSyncStore
from connectors.mirror.offset_sync_writer import (
    BURST,
    EARN_INTERVAL_S,
    EARN_PER_RECORD,
    QUIET_S,
    OffsetSyncWriter,
)
from tests.harness.messages import FakeMessage
from tests.hypothesis_profiles import examples

EXAMPLES = 1_000


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# A segment of one partition's traffic: (records per second, seconds), a burst (records, 0), idle (0, seconds).
SEGMENT = st.one_of(
    st.tuples(st.sampled_from([0.2, 1.0, 5.0, 20.0, 100.0]), st.floats(0.5, 15.0)),  # steady, light to busy
    st.tuples(st.integers(1, 300).map(float), st.just(0.0)),  # a burst
    st.tuples(st.just(0.0), st.floats(0.1, 25.0)),  # idle
)


def _schedule(segments: list[tuple[float, float]], rnd: random.Random, start: float) -> list[float]:
    """Arrival times of one partition's records."""
    times, t = [], start
    for rate, seconds in segments:
        if seconds == 0.0:
            times += [t] * int(rate)
        elif rate > 0:
            count = max(1, int(rate * seconds))
            times += sorted(t + rnd.uniform(0, seconds) for _ in range(count))
        t += seconds
    return times


def _replay(arrivals: dict[int, list[float]], poll: float, max_lag: int, tail: float
            ) -> tuple[dict[int, list[tuple[float, OffsetSync]]], list[float]]:
    """Feed every partition's records to one writer as a task would: polled in runs, flush_quiet every poll."""
    clock = _Clock()
    sent: list[OffsetSync] = []
    writer = OffsetSyncWriter(sent.append, max_lag, clock)
    syncs: dict[int, list[tuple[float, OffsetSync]]] = {p: [] for p in arrivals}
    events = sorted((t, p) for p, times in arrivals.items() for t in times)
    end = (events[-1][0] if events else clock.now) + tail
    nxt = {p: 0 for p in arrivals}
    i, t = 0, min((e[0] for e in events), default=clock.now)
    polls = []
    while t <= end:
        polls.append(t)
        clock.now = t
        run: dict[int, int] = {}
        while i < len(events) and events[i][0] <= t:
            run[events[i][1]] = run.get(events[i][1], 0) + 1
            i += 1
        for p, count in sorted(run.items()):
            first = nxt[p]
            writer.record_run("t", p, [FakeMessage("t", p, o) for o in range(first, first + count)],
                              first + 7, first + 7 + count - 1)  # the remote partition starts at 7
            nxt[p] += count
        writer.flush_quiet()
        for s in sent:
            syncs[s.partition].append((t, s))
        sent.clear()
        t += poll
    return syncs, polls


@settings(max_examples=examples(EXAMPLES), deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), partitions=st.integers(1, 4),
       segments=st.lists(SEGMENT, min_size=1, max_size=4), poll=st.sampled_from([0.05, 0.2, 0.5]),
       max_lag=st.sampled_from([100, 250, 1000]))
def test_syncs_stay_within_the_budget_and_quiet_positions_are_exact(
        seed: int, partitions: int, segments: list[tuple[float, float]], poll: float, max_lag: int) -> None:
    """Invariant C at every poll, for every partition; then, QUIET_S + EARN_INTERVAL_S after the last record,
    every partition's newest record is synced, and every copied position translates with no re-read."""
    rnd = random.Random(seed)
    arrivals = {p: _schedule(rnd.sample(segments, len(segments)), rnd, 1000.0 + rnd.uniform(0, 5))
                for p in range(partitions)}
    arrivals = {p: times for p, times in arrivals.items() if times}
    syncs, polls = _replay(arrivals, poll, max_lag, QUIET_S + EARN_INTERVAL_S + poll)
    for p, times in arrivals.items():
        sent_at = [when for when, _ in syncs[p]]
        start = polls[bisect_left(polls, times[0])]  # the poll that copied its first record: the bucket starts full
        for t in polls[bisect_left(polls, times[0]):]:
            n, k = bisect_right(times, t), bisect_right(sent_at, t)
            bound = BURST + EARN_PER_RECORD * n + (t - start) / EARN_INTERVAL_S
            assert k <= bound + 1e-6, f"partition {p}: {k} syncs by {t:.2f} after {n} records > {bound:.2f}"
            assert bound <= BURST + max(0.02 * n, (t - start) / 10) + 1e-9
        last = syncs[p][-1][1]
        assert (last.upstream_offset, last.downstream_offset) == (len(times) - 1, 7 + len(times) - 1), "tail not synced"
        store = OffsetSyncStore()
        for _, s in syncs[p]:
            store.add(s)
        store.start()
        for g in range(len(times) + 1):
            assert store.translate("t", p, g) == 7 + g, f"partition {p}: position {g} is not exact"


def test_light_traffic_over_many_partitions_costs_at_most_two_hundredths_per_record() -> None:
    """The issue's case in miniature, on the fake clock: 200 partitions, 1,000 records/s spread evenly, 40 s,
    polls every 100 ms. The mandatory syncs alone (one per partition, one per offset.lag.max + 1 records)
    are 0.015 per record; quiet syncs never fire (no partition is quiet for a second)."""
    arrivals = {p: [1000.0 + p / 1000.0 + k * 0.2 for k in range(200)] for p in range(200)}
    syncs, _ = _replay(arrivals, 0.1, 100, 0.0)
    total = sum(len(v) for v in syncs.values())
    assert total / 40_000 <= 0.02, total
    assert total == 200 * 2, total  # the first record and record 101 of each partition


def test_a_stopped_producer_gets_an_exact_sync_one_quiet_second_later() -> None:
    """A partition's producers stop: its newest mapping is synced QUIET_S later, not before."""
    clock = _Clock()
    sent: list[OffsetSync] = []
    writer = OffsetSyncWriter(sent.append, 100, clock)
    writer.record_run("t", 0, [FakeMessage("t", 0, o) for o in range(10)], 0, 9)
    assert [(s.upstream_offset, s.downstream_offset) for s in sent] == [(0, 0)]
    clock.now += QUIET_S - 0.01
    writer.flush_quiet()
    assert len(sent) == 1
    clock.now += 0.02
    writer.flush_quiet()
    assert [(s.upstream_offset, s.downstream_offset) for s in sent] == [(0, 0), (9, 9)]
    assert sent[1].since == (0, 0)
