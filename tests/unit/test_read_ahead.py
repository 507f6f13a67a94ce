"""Read-ahead stitching (connectors/mirror/read_ahead.py) over generated logs, gaps and arrival orders.

A partition's log is a generated set of offsets (gaps stand for compacted records and transaction markers,
which a consumer never returns); each session is simulated as a consumer assigned at an offset that reads the
log from the first offset at or after it, in fetches of generated sizes that may run past its range's end,
with its fetches arriving in a generated interleaving with the other sessions' and with the task's takes.
Kafka defines no read-ahead (one consumer reads a partition in order, KafkaConsumer's contract): the property
is that the task sees exactly what that one consumer would (order, no gap, no duplicate), plus the bounds.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from connectors.mirror.read_ahead import ReadAhead
from tests.hypothesis_profiles import examples

EXAMPLES = 10_000


@dataclass(frozen=True)
class Rec:
    """A consumed record: its offset and size."""

    at: int
    size: int

    def offset(self) -> int:
        return self.at

    def __len__(self) -> int:
        return self.size


class Log:
    """A generated partition log and simulated sessions reading it."""

    def __init__(self, offsets: list[int], size: int) -> None:
        self.offsets, self.size = offsets, size
        self.high = offsets[-1] + 1 if offsets else 0
        self.position: dict[int, int] = {}  # session -> index in offsets of its next record

    def assign(self, session: int, offset: int) -> None:
        """As librdkafka's assign(): whatever the session had fetched before is discarded."""
        self.position[session] = bisect_left(self.offsets, offset)

    def fetch(self, session: int, count: int) -> list[Rec]:
        at = self.position.get(session)
        if at is None:
            return []
        self.position[session] = at + count
        return [Rec(o, self.size) for o in self.offsets[at:at + count]]


def step(state: ReadAhead, log: Log, session: int, count: int) -> int:
    """`session` delivers its next `count` records; the caller reacts as read_ahead_sessions.py does.
    Returns 1 if the session passed its range's end (0 if not)."""
    reading = session in state.reading
    if reading:
        state.arrive(session, log.fetch(session, count))
    ended = reading and session not in state.reading
    if ended:
        log.position.pop(session, None)  # unassigned past its range's end
    for moved, offset in state.plan(log.high):
        log.assign(moved, offset)
    return int(ended)


def check_bounds(state: ReadAhead, sessions: int, range_bytes: int, fetch_max: int, size: int) -> None:
    assert sum(1 for r in state.ranges if r.end is not None) <= sessions
    ahead = sum(r.count for r in list(state.ranges)[1:]) * size
    assert ahead <= sessions * (range_bytes + fetch_max * size)


@settings(max_examples=examples(EXAMPLES), deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), sessions=st.integers(2, 8), size=st.integers(1, 50),
       range_records=st.integers(1, 40), gaps=st.lists(st.integers(0, 3), min_size=0, max_size=200),
       base=st.integers(0, 10**6), logical=st.booleans(), fetch_max=st.integers(1, 30))
def test_stitched_partition_is_the_log_in_order_once_within_the_bounds(
        seed: int, sessions: int, size: int, range_records: int, gaps: list[int], base: int,
        logical: bool, fetch_max: int) -> None:
    offsets, at = [], base
    for gap in gaps:  # a gap of g: g offsets no consumer returns (compacted, or transaction markers)
        at += gap
        offsets.append(at)
        at += 1
    log = Log(offsets, size)
    range_bytes = range_records * size
    state = ReadAhead(sessions, range_bytes, None if logical else base, head_limit=fetch_max * 2)
    log.assign(0, base)
    out: list[Rec] = []
    ended = 0
    rnd = random.Random(seed)  # the arrival order: which session's fetch lands next, and the task's takes
    for _ in range(rnd.randint(0, 200)):
        if rnd.random() < 0.5:
            ended += step(state, log, rnd.randrange(sessions), rnd.randint(1, fetch_max))
        else:
            out.extend(state.take(rnd.randint(1, 50)))
        check_bounds(state, sessions, range_bytes, fetch_max, size)
    for _ in range(4 * len(offsets) + 10):  # then every session in turn until the log is delivered
        if len(out) == len(offsets):
            break
        for session in range(sessions):
            if state.wants(session):
                ended += step(state, log, session, fetch_max)
        out.extend(state.take(10**6))
        check_bounds(state, sessions, range_bytes, fetch_max, size)
    assert [r.at for r in out] == offsets  # in order, no gap, no duplicate
    # waste: only what a session fetched past its range's end, at most one fetch per range it ended
    assert state.wasted_bytes <= ended * fetch_max * size
    assert state.read_bytes - state.wasted_bytes == len(offsets) * size


def test_a_partition_with_a_long_backlog_is_read_by_every_session_and_wastes_at_most_a_fetch_per_range() -> None:
    """A 10,000-record backlog, 4 sessions, ranges of 500 records, fetches of 50 arriving in turn."""
    offsets = list(range(10_000))
    log = Log(offsets, 100)
    state = ReadAhead(4, 500 * 100, 0, head_limit=1000)
    log.assign(0, 0)
    out: list[Rec] = []
    used: set[int] = set()
    ended = 0
    while len(out) < len(offsets):
        for session in range(4):
            if session in state.reading:
                used.add(session)
            ended += step(state, log, session, 50)
        out.extend(state.take(100))
    assert [r.at for r in out] == offsets
    assert used == {0, 1, 2, 3}
    assert ended <= 1 + len(offsets) // 500  # the first ranges are shorter (read_ahead.FIRST_RANGES)
    assert state.wasted_bytes <= ended * 50 * 100
    print(f"read {state.read_bytes} bytes, wasted {state.wasted_bytes} ({state.wasted_bytes / state.read_bytes:.1%})")


def test_a_caught_up_partition_is_followed_by_one_session() -> None:
    """No range is opened ahead while the head has read up to the high watermark: one session follows the
    tail; once the log grows past where the head has read, a range is opened ahead."""
    log = Log(list(range(150)), 10)
    state = ReadAhead(4, 100 * 10, 0)
    log.assign(0, 0)
    for _ in range(10):
        step(state, log, 0, 150)
        state.take(1000)
    assert list(state.reading) == [0] and state.wasted_bytes == 0
    assert state.ranges[0].end is None
    log.offsets.extend(range(150, 400))
    log.high = 400
    step(state, log, 0, 1)
    assert len(state.reading) > 1 and state.ranges[0].end is not None


def test_records_below_a_range_or_delivered_twice_are_dropped_as_waste() -> None:
    """A session sent back below its range (auto.offset.reset after an out-of-range offset) or repeating
    what it delivered: nothing below the range's start or its last record is handed on twice."""
    state = ReadAhead(2, 10 * 10, 0)
    state.arrive(0, [Rec(o, 10) for o in range(5)])
    assert [r.at for r in state.take(100)] == [0, 1, 2, 3, 4]
    moves = state.plan(100)
    assert moves == [(1, 5 + 5)]  # the head bounded at 10 (half a range past it), session 1 from 10
    state.arrive(1, [Rec(o, 10) for o in range(0, 14)])  # reset to the log's start: 0..9 are not its range
    state.arrive(0, [Rec(o, 10) for o in range(3, 11)])  # 3, 4 again, then 5..9, then 10: the head's end
    assert [r.at for r in state.take(100)] == list(range(5, 14))
    assert state.wasted_bytes == (10 + 2 + 1) * 10
