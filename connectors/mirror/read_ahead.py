"""Read-ahead: ONE partition read by several fetch sessions at staggered offsets, stitched back in order.

Why: a session moves one fetch answer per round trip (fetch_pool.py), and Tansu answers ~2.5 MB whatever is
asked, so one far partition read by one session is capped at ~2.5 MB per round trip. When the round trip
calls for more sessions than the task has partitions, a partition's extra sessions read ranges of its log
ahead of the one being delivered, and this module stitches the ranges back together.

This module is pure bookkeeping (no Kafka): the caller (read_ahead_sessions.py) drives the consumers, hands
each session's messages to `arrive`, applies the assignments `plan` returns, and hands `take`'s messages on.

The layout: a partition's log from the next offset to deliver is cut into contiguous ranges
`[start, end)`, `ranges[i].end == ranges[i + 1].start`; the last range is open (`end` None). The first range
(the head) is the one being delivered. Every bounded range is read by the session it was given to (from its
start), or was read to its end; the open last range is read by one session (it follows the tail of the log)
or by none (it is waiting for data or for a session). A range ends at the first offset >= its end that its
session sees: with compaction or transaction markers offsets are not contiguous, and the first message past
the end proves that no offset below it is still to come (a session reads its partition in offset order).

Invariants (checked over generated logs, gaps and arrival orders by tests/unit/test_read_ahead.py):
- order, no gap, no duplicate: `take` returns the partition's messages in strictly increasing offset
  order, each exactly once, with no message of the log between the start and the last one returned left
  out: a range's messages are handed out only while it is the head, and the head is dropped only once its
  session saw an offset >= its end (everything below that offset has arrived) or it was emptied;
- a message below what its range has already received (`next`) or below its start, or at or past a bounded
  range's end, is dropped and counted as waste (`wasted_bytes`), as is anything a session without a range
  delivers (stale data of its previous range): it is a byte fetched twice or outside its range;
- bounded waste: a session stops at the first offset >= its range's end; what it fetched beyond that (the
  rest of the fetch answer holding the end, and the fetch in flight when the caller noticed) is the waste:
  at most about two fetch answers per range, so at most ~2 answers / `range_bytes` of the bytes read;
- bounded memory: at most `sessions` bounded ranges exist at a time, and a range is given at most
  `range_bytes` of records (its end is set from the mean record size seen so far), so the buffered
  messages stay under `sessions` x `range_bytes` plus one batch per session; the head is only read
  further while fewer than `head_limit` of its messages wait to be taken;
- the tail: a range is opened ahead only when the high watermark is past its start (`plan`), so a
  caught-up partition is followed by one session, as without read-ahead; a range whose end is beyond the
  high watermark is read up to it and ends when the log grows past its end.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

FIRST_RANGES = 1  # ranges opened before they get their full size (range_records)


class Record(Protocol):
    """What a consumed message offers here (confluent_kafka.Message does)."""

    def offset(self) -> int | None: ...

    def __len__(self) -> int: ...


def _offset(message: Record) -> int:
    offset = message.offset()
    assert offset is not None  # records (not consumer errors, which the caller keeps out) have one
    return offset


@dataclass
class Range:
    """Offsets [start, end) of one partition (end None: open), the session reading it and what it received."""

    start: int | None  # None: the first range of a partition whose position is logical (beginning/end)
    end: int | None
    session: int | None
    next: int | None = None  # the offset after the last message received (None: none yet)
    done: bool = False  # its session saw an offset >= end
    messages: deque[list[Any]] = field(default_factory=deque)  # batches as they arrived, in offset order
    count: int = 0  # messages held


class ReadAhead:
    """One partition's ranges and sessions (0..sessions-1); session 0 starts on the first range."""

    def __init__(self, sessions: int, range_bytes: int, start: int | None = None, head_limit: int = 10000) -> None:
        self.sessions = sessions
        self.range_bytes = range_bytes
        self.head_limit = head_limit
        self.ranges: deque[Range] = deque([Range(start, None, 0)])
        self.reading: dict[int, Range] = {0: self.ranges[0]}
        self.idle: list[int] = list(range(1, sessions))
        self.read_bytes = 0  # bytes of the messages that arrived (kept or not)
        self.wasted_bytes = 0  # of which dropped: past a range's end, received twice, or stale
        self._kept_bytes = 0
        self._kept_count = 0
        self._opened = 0  # ranges opened ahead so far

    def wants(self, session: int) -> bool:
        """Whether `session`'s messages should be read now: it reads a range that is not the head, or the
        head while fewer than head_limit of its messages wait (memory: the runner takes them in batches)."""
        current = self.reading.get(session)
        if current is None:
            return True  # stale messages: dropped, so the consumer's queue does not hold them
        return current is not self.ranges[0] or current.count < self.head_limit

    def arrive(self, session: int, messages: Sequence[Record]) -> None:
        """Messages `session` consumed, in its (increasing offset) order; kept in its range or counted as
        waste. Whole batches at once: only the batch holding a range's end is cut."""
        if not messages:
            return
        total = sum(map(len, messages))
        self.read_bytes += total
        current = self.reading.get(session)
        if current is None:
            self.wasted_bytes += total
            return
        # below what the range holds, or below its start (a session whose offset was out of range and that
        # auto.offset.reset sent back to the log's start): dropped, as waste
        floor = current.next if current.next is not None else current.start
        low = 0 if floor is None else bisect_left(messages, floor, key=_offset)
        high = len(messages)
        if current.end is not None and _offset(messages[-1]) >= current.end:
            high = max(low, bisect_left(messages, current.end, key=_offset))
            current.done = True  # everything below the first offset >= end has arrived: the range is complete
            del self.reading[session]
            self.idle.append(session)
        kept = messages[low:high]
        if not kept:
            self.wasted_bytes += total
            return
        kept_bytes = total if len(kept) == len(messages) else sum(map(len, kept))
        self.wasted_bytes += total - kept_bytes
        if current.start is None:
            current.start = _offset(kept[0])
        current.messages.append(list(kept))
        current.count += len(kept)
        current.next = _offset(kept[-1]) + 1
        self._kept_bytes += kept_bytes
        self._kept_count += len(kept)

    def take(self, max_records: int) -> list[Any]:
        """Up to `max_records` messages in offset order, from the head on (dropping completed ranges)."""
        out: list[Any] = []
        while len(out) < max_records:
            head = self.ranges[0]
            while head.messages and len(out) < max_records:
                batch = head.messages[0]
                room = max_records - len(out)
                if len(batch) <= room:
                    out.extend(head.messages.popleft())
                else:
                    out.extend(batch[:room])
                    head.messages[0] = batch[room:]
            head.count = sum(map(len, head.messages))
            if head.messages or not head.done or len(self.ranges) == 1:
                break
            self.ranges.popleft()
        return out

    def range_records(self) -> int | None:
        """Records the next range is given (None before any record): range_bytes at the mean size seen so
        far, the first one half of it: the head is delivered at one session's rate while the others read
        ahead, so a short first range gets the runner delivering sooner (a quarter, then a half, was no
        faster measurably and wasted more: every range costs about two fetch answers)."""
        if not self._kept_count:
            return None
        share = self.range_bytes >> max(0, FIRST_RANGES - self._opened)
        return max(1, share * self._kept_count // max(1, self._kept_bytes))

    def plan(self, high: int) -> list[tuple[int, int]]:
        """(session, offset) pairs to assign, given the partition's high watermark (-1: not known)."""
        moves: list[tuple[int, int]] = []
        head = self.ranges[0]
        if head.session is None and self.idle:  # an open range waiting for a session became the head
            moves.append(self._give(head, self.idle.pop(0)))
        while self.idle and self._bounded() < self.sessions:
            move = self._open_ahead(high)
            if move is None:
                break
            moves.append(move)
        return moves

    def _give(self, target: Range, session: int) -> tuple[int, int]:
        self._opened += 1
        target.session = session
        self.reading[session] = target
        assert target.start is not None
        return session, target.start

    def _bounded(self) -> int:
        return sum(1 for r in self.ranges if r.end is not None)

    def _open_ahead(self, high: int) -> tuple[int, int] | None:
        """Give an idle session the range after the open last one (bounding that one), if the log holds a
        whole range past it; None if not (or before any record size is known)."""
        size = self.range_records()
        last = self.ranges[-1]
        if size is None or last.start is None:
            return None
        if last.session is None:
            if last is self.ranges[0] or high <= last.start:
                return None  # the head is given a session first (plan); the tail waits for data
            last.end = last.start + size
            self.ranges.append(Range(last.end, None, None))
            return self._give(last, self.idle.pop(0))
        split = (last.next if last.next is not None else last.start) + size
        if high <= split:
            return None
        last.end = split
        ahead = Range(split, split + size, None)
        self.ranges.extend([ahead, Range(split + size, None, None)])
        return self._give(ahead, self.idle.pop(0))
