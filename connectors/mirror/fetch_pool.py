"""Several fetch sessions for one MirrorSource task: its partitions split among a few consumers.

Why: librdkafka keeps ONE Fetch request in flight per broker connection, so one consumer moves at most
one fetch response per round trip to the source cluster, whatever its fetch sizes: at 100 ms RTT that is
~25 MB/s with Tansu's ~2.5 MB answers, and with Kafka's defaults (max.partition.fetch.bytes 1 MB) 1 MB a
partition per RTT. A task far from its source cluster therefore reads with several consumers (each its
own connection and fetch session), each owning a share of the partitions, and with larger per-partition
fetches (FETCH_DEFAULTS).

Invariants:
- with at most as many sessions as partitions, every assigned partition is read by exactly one consumer,
  from the position the task gives it, so its messages come out in offset order (runs of consecutive
  messages per partition, as the runner's run-based delivery and the offset syncs need); messages of
  different partitions may interleave;
- with more sessions than partitions (read-ahead: "auto" on a far link, fewer partitions than the round
  trip calls for sessions), the sessions are dealt evenly over the partitions (`deal`), each session
  reads one partition, and a partition with several reads them at staggered offset ranges
  (read_ahead_sessions.py, read_ahead.py), which hand its messages out in offset order, with no gap and
  no duplicate, exactly as one consumer would;
- `consume` waits only while no consumer has anything queued, and never longer than its timeout;
- each session's consumer has a group.id of its own (the task's, then `<group>-session-<n>`): with one
  group.id shared by several consumers of the same topic, Tansu 0.6.0 lost one record in the middle of a
  partition in 3 runs of 3 (tests/test_mirror_provenance.py::test_three_cluster_identity_mesh; 2 of 2
  passed with distinct groups); Kafka keys fetch sessions by connection, and the task commits no offsets
  to the group, so distinct groups cost nothing there;
- how many sessions a task opens is session_sizing.py's rule (`fetch.sessions`, or sized from the round trip);
- memory is bounded whatever the count: each of several sessions pre-fetches at most, and asks for at
  most, FETCH_BUDGET_KB / (2 x sessions) KB (16 MB at most each), so the task's fetch buffers stay
  within FETCH_BUDGET_KB (256 MB); one session keeps librdkafka's 64 MB pre-fetch and a 16 MB fetch;
  a read-ahead session pre-fetches at most READ_AHEAD_QUEUE_KB (4 MB) and a partition's ranges hold at
  most FETCH_BUDGET_KB / sessions of records each (read_ahead_sessions.range_bytes), so FETCH_BUDGET_KB
  bounds the ranges (at most one per session) and 4 MB a session the pre-fetch (64 MB with 16);
- a far task (more than one session) waits, before it reports RUNNING, until every session has its
  connection to its partitions' leader (`connect`, at most CONNECT_TIMEOUT), so its first fetches leave at
  once; a session that could not connect by then connects when it fetches (never fatal);
- a far task's session with a logical position among its partitions (a first start: BEGINNING/END) is
  assigned in `connect`, once its consumer knows the leader (clients.assign_with_leader), never before and
  never twice: assigned earlier, librdkafka waited for its 500 ms offset-query timer before asking for the
  offset; a session whose positions are all concrete (a restart from committed offsets) is assigned at once,
  as one consumer's would be; an assignment that fails in `connect` fails it (the task's start), so no
  partition is ever left unassigned.

What the sessions leave unchanged (so the runner's guarantees hold as with one consumer): records of a
partition are delivered in offset order, its offsets are committed only for records the target
acknowledged (the runner's run-based delivery), and the offset syncs map each delivered record exactly.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from connectors.mirror.read_ahead_sessions import (
    CONNECT_TIMEOUT,
    PartitionSessions,
    connect_session,
    range_bytes,
    read_ahead_conf,
)
from pyconnect.kafka.clients import assign, assign_with_leader, consume_available, watermarks

FETCH_BUDGET_KB = 262144  # a task's fetch buffers (pre-fetch queues and responses) with several sessions
WAIT_SLICE = 0.005  # how long one idle consumer is waited on before the others are looked at again
# Applied unless the user set them (source.consumer.* / consumer.*). A partition may bring 8 MB a fetch
# (Kafka honours it; librdkafka's 1 MB default caps a far partition at 1 MB per round trip), a fetch at
# most 16 MB; several sessions share FETCH_BUDGET_KB (session_fetch_kb). A session moves one fetch per
# round trip, so 8-16 MB queued is several round trips' worth even on Kafka.
FETCH_DEFAULTS = {"max.partition.fetch.bytes": "8388608", "fetch.max.bytes": "16777216"}


def session_fetch_kb(sessions: int) -> int:
    """KB each of several sessions may pre-fetch, and ask for in one fetch: FETCH_BUDGET_KB shared out."""
    return min(16384, FETCH_BUDGET_KB // (2 * sessions))


def fetch_defaults(user: Mapping[str, str], sessions: int = 2) -> dict[str, str]:
    """FETCH_DEFAULTS, made consistent with what the user set: a partition's fetch never above the user's
    fetch.max.bytes, a request's never below the user's max.partition.fetch.bytes; one session keeps
    librdkafka's pre-fetch queue (64 MB), several share FETCH_BUDGET_KB out."""
    out = dict(FETCH_DEFAULTS)
    if sessions > 1:
        share = session_fetch_kb(sessions)
        out["queued.max.messages.kbytes"] = str(share)
        out["fetch.max.bytes"] = str(share * 1024)
        out["max.partition.fetch.bytes"] = str(min(share * 1024, int(out["max.partition.fetch.bytes"])))
    cap = user.get("fetch.max.bytes")
    if cap is not None:
        out["max.partition.fetch.bytes"] = str(min(int(cap), int(out["max.partition.fetch.bytes"])))
    per_partition = user.get("max.partition.fetch.bytes")
    if per_partition is not None:
        out["fetch.max.bytes"] = str(max(int(per_partition), int(out["fetch.max.bytes"])))
    return out


def split(positions: Sequence[tuple[str, int, int]], sessions: int) -> list[list[tuple[str, int, int]]]:
    """The positions dealt round-robin to `sessions` consumers (every partition to exactly one)."""
    return [list(positions[i::sessions]) for i in range(sessions)]


def deal(sessions: int, partitions: int) -> list[int]:
    """Sessions per partition when there are more sessions than partitions: as even as can be, at least 1."""
    return [sessions // partitions + (1 if i < sessions % partitions else 0) for i in range(partitions)]


class _Plain:
    """One consumer reading whole partitions (each partition by this consumer alone). `defer`: a share with a
    logical position is assigned by `wait_connected`, once the leader is known (FetchPool.connect)."""

    def __init__(self, consumer: Any, share: Sequence[tuple[str, int, int]], defer: bool = False) -> None:
        self.consumer = consumer
        self._share = list(share)
        self._first = share[0][:2]
        self._deferred = defer and any(offset < 0 for _, _, offset in share)
        if not self._deferred:
            assign(consumer, share)

    def wait_connected(self, timeout: float) -> None:
        """Assigns a deferred share, then returns once the consumer has a connection to its first partition's
        leader, or after `timeout` in all."""
        deadline = time.monotonic() + timeout
        if self._deferred:
            assign_with_leader(self.consumer, self._share, timeout)
        connect_session(self.consumer, *self._first, max(0.0, deadline - time.monotonic()))

    def drain(self, max_records: int) -> list[Any]:
        return list(self.consumer.consume(max_records, 0))

    def wait(self, timeout: float, max_records: int) -> list[Any]:
        return consume_available(self.consumer, max_records, timeout)

    def end_offsets(self, topic: str, partition: int) -> tuple[int, int]:
        return watermarks(self.consumer, topic, partition)

    def close(self) -> None:
        self.consumer.close()


class _ReadAhead:
    """PartitionSessions under _Plain's interface."""

    def __init__(self, sessions: PartitionSessions) -> None:
        self.sessions = sessions

    def wait_connected(self, timeout: float) -> None:
        self.sessions.wait_connected(timeout)

    def drain(self, max_records: int) -> list[Any]:
        return self.sessions.drain(max_records)

    def wait(self, timeout: float, max_records: int) -> list[Any]:
        return self.sessions.wait(timeout, max_records)

    def end_offsets(self, _topic: str, _partition: int) -> tuple[int, int]:
        return self.sessions.end_offsets()

    def close(self) -> None:
        self.sessions.close()


Source = _Plain | _ReadAhead


class FetchPool:
    """A task's consumers, polled as one: `consume` returns what any of them has queued. With more sessions
    than partitions, a partition is read ahead by several sessions (read_ahead_sessions.py)."""

    def __init__(self, new_consumer: Callable[[int, Mapping[str, str]], Any],
                 positions: Sequence[tuple[str, int, int]], sessions: int) -> None:
        self.sources: list[Source] = []
        self._owner: dict[tuple[str, int], Source] = {}
        self._made = 0
        self._new_consumer = new_consumer
        self._defer = sessions > 1  # far: logical positions are assigned by connect(), once the leader is known
        self._connected = not self._defer
        try:
            if sessions <= len(positions):
                for share in split(positions, sessions):
                    self._add(_Plain(self._consumer({}), share, self._defer), share)
            else:
                self._read_ahead(positions, sessions)
        except Exception:
            self.close()
            raise
        self._next = 0

    def _consumer(self, conf: Mapping[str, str]) -> Any:
        self._made += 1
        return self._new_consumer(self._made - 1, conf)

    def _add(self, source: Source, share: Sequence[tuple[str, int, int]]) -> None:
        self.sources.append(source)
        for topic, partition, _ in share:
            self._owner[(topic, partition)] = source

    def _read_ahead(self, positions: Sequence[tuple[str, int, int]], sessions: int) -> None:
        size = range_bytes(FETCH_BUDGET_KB, sessions)
        for (topic, partition, offset), count in zip(positions, deal(sessions, len(positions)), strict=True):
            if count == 1:
                share = [(topic, partition, offset)]
                self._add(_Plain(self._consumer({}), share, self._defer), share)
                continue
            consumers: list[Any] = []
            try:
                consumers.extend(self._consumer(read_ahead_conf(size)) for _ in range(count))
                group = PartitionSessions(consumers, topic, partition, offset, size, defer=self._defer)
            except Exception:
                for consumer in consumers:
                    consumer.close()
                raise
            self._add(_ReadAhead(group), [(topic, partition, offset)])

    def connect(self, timeout: float = CONNECT_TIMEOUT) -> None:
        """Waits, at most `timeout` seconds, until every session has its connection to its partitions'
        leader, all at once: a far task calls it before it reports RUNNING, so its first fetches leave at
        once instead of ~5 round trips later (bootstrap, metadata, connection, versions). A session whose
        positions are logical (a first start: BEGINNING/END) is assigned here, as soon as its leader is known
        (clients.assign_with_leader): assigned before, it waited for librdkafka's 500 ms offset-query timer
        (at 50 ms a fresh copy's first record came 0.4 s later)."""
        self._connected = True
        errors: list[Exception] = []

        def connect_one(source: Source) -> None:
            try:
                source.wait_connected(timeout)
            except Exception as exc:  # noqa: BLE001 - raised below, on the task's thread (its start fails)
                errors.append(exc)
        threads = [threading.Thread(target=connect_one, args=(s,), name="fetch-session-connect", daemon=True)
                   for s in self.sources]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout + 1)  # wait_connected returns within timeout: never a thread left behind
        if errors:  # a deferred assignment that failed: never a partition silently left unread
            raise errors[0]

    def consume(self, max_records: int, timeout: float) -> list[Any]:
        """Up to `max_records` messages from the consumers in turn, waiting up to `timeout` for the first."""
        if not self._connected:  # several sessions: their deferred assignments are made by connect()
            self.connect()
        if len(self.sources) == 1:
            return self.sources[0].wait(timeout, max_records)
        deadline = time.monotonic() + timeout
        while True:
            out = self._drain(max_records)
            if out:
                return out
            left = deadline - time.monotonic()
            if left <= 0:
                return out
            out = self.sources[self._next].wait(min(left, WAIT_SLICE), max_records)
            if out:
                return out

    def _drain(self, max_records: int) -> list[Any]:
        """What the consumers have queued, starting with the next in turn (no waiting)."""
        out: list[Any] = []
        count = len(self.sources)
        for k in range(count):
            if len(out) >= max_records:
                break
            out.extend(self.sources[(self._next + k) % count].drain(max_records - len(out)))
        self._next = (self._next + 1) % count
        return out

    def end_offsets(self, topic: str, partition: int) -> tuple[int, int]:
        """The partition's (low, high) watermarks from its consumers' last fetch (-1 if not known yet);
        safe from another thread while the pool is open."""
        return self._owner[(topic, partition)].end_offsets(topic, partition)

    def close(self) -> None:
        for source in self.sources:
            source.close()
