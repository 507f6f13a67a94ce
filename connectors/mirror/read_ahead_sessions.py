"""The consumers of one partition read ahead (read_ahead.py's bookkeeping, applied to real consumers).

Each session is a consumer of its own (fetch_pool.py: its own connection and fetch session) that is
assigned only this partition, at the start of the range read_ahead.ReadAhead gives it, and unassigned as
soon as it passed its range's end (so it stops fetching: what it fetched past the end is waste).

Invariants, beyond read_ahead.py's:
- a session is (re)assigned with `assign()`, which in librdkafka replaces the assignment and discards
  every message of the previous one still queued or in flight (its fetch version is bumped), so a session
  delivers only messages of its current range, from the range's start, in offset order;
- only the session reading the head is waited on (`wait`): the head is what the task delivers next;
- a session's consumer queue is kept small (READ_AHEAD_QUEUE_KB): its messages are moved into its range
  promptly, so the range (bounded) holds them, not librdkafka (unbounded past the range's end). librdkafka
  fetches again while its queue is under that size: with 4 MB and Tansu's ~2.5 MB answers, one answer
  waits to be drained while the next is in flight, and what a session holds past its range's end when the
  task notices is at most about two answers (6 MB queues wasted 10-19% of the bytes read, 4 MB 7-11%).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

from connectors.mirror.read_ahead import ReadAhead
from pyconnect.kafka.clients import assign, assign_with_leader, broker_watermarks, watermarks

log = logging.getLogger(__name__)
READ_AHEAD_QUEUE_KB = 4096  # a read-ahead session's pre-fetch queue: under two Tansu answers (see the docstring)
MAX_RANGE_BYTES = 32 << 20
WAIT_SLICE = 0.01  # seconds the head's session is waited on before the others are drained again
CONNECT_TIMEOUT = 5.0  # seconds a read-ahead session's first connection may take in the background


def connect_session(consumer: Any, topic: str, partition: int, timeout: float = CONNECT_TIMEOUT) -> None:
    """Opens `consumer`'s connection to the leader of `topic`-`partition` now (one ListOffsets, whose answer is
    not used: Tansu's is wrong for multi-record batches), waiting at most `timeout`. Never fatal: a session that
    cannot connect now connects when it fetches."""
    try:
        broker_watermarks(consumer, topic, partition, timeout)
    except Exception as exc:  # noqa: BLE001 - a warm-up that failed is never fatal: the fetch retries
        log.debug("fetch session could not reach %s-%d yet: %s", topic, partition, exc)


def range_bytes(budget_kb: int, sessions: int) -> int:
    """Bytes of records a range is given: the fetch budget shared by the task's sessions, 32 MB at most."""
    return min(MAX_RANGE_BYTES, budget_kb * 1024 // max(1, sessions))


def read_ahead_conf(range_size: int) -> dict[str, str]:
    """Consumer settings of a read-ahead session: a small pre-fetch queue, and (honoured by Kafka, not by
    Tansu) fetches of at most a quarter range, so what a session fetches past its range's end stays small."""
    fetch = str(max(1 << 20, range_size // 4))
    return {"queued.max.messages.kbytes": str(READ_AHEAD_QUEUE_KB), "max.partition.fetch.bytes": fetch,
            "fetch.max.bytes": fetch}


class PartitionSessions:
    """Several consumers reading one partition ahead of each other, delivering it in offset order."""

    def __init__(self, consumers: Sequence[Any], topic: str, partition: int, position: int, range_size: int,
                 batch: int = 10000, defer: bool = False) -> None:
        """`defer`: a logical `position` (BEGINNING/END) is assigned by the head's connecting thread once its
        leader is known (clients.assign_with_leader), not here."""
        self.consumers = list(consumers)
        self.topic, self.partition, self.batch = topic, partition, batch
        self.state = ReadAhead(len(self.consumers), range_size, position if position >= 0 else None, batch)
        head = [(topic, partition, position)]
        if defer and position < 0:
            self._connect(head)
        else:
            assign(self.consumers[0], head)
            self._connect()

    def _connect(self, head: list[tuple[str, int, int]] | None = None) -> None:
        """Open the sessions' connections to the partition's leader now, in the background and all at once
        (one ListOffsets each; its answer is not used: Tansu's is wrong for multi-record batches): an idle
        session's first fetch otherwise waits for bootstrap, metadata, connection and version requests, ~5
        round trips (1 s at 200 ms), when its first range is opened; the head's (already assigned, or assigned
        here first if `head` is given) fetches as soon as its connection is up anyway. A session that cannot
        connect now connects when it fetches. `close` waits for these threads before closing the consumers;
        `wait_connected` waits for them."""
        self._errors: list[Exception] = []
        self._connecting = [threading.Thread(target=self._connect_one, args=(session, head if session == 0 else None),
                                             name="read-ahead-connect", daemon=True)
                            for session in range(len(self.consumers))]
        for thread in self._connecting:
            thread.start()

    def _connect_one(self, session: int, assignment: list[tuple[str, int, int]] | None) -> None:
        """Connects one session, after assigning it `assignment` once its leader is known (if given); both
        within CONNECT_TIMEOUT."""
        deadline = time.monotonic() + CONNECT_TIMEOUT
        if assignment is not None:
            try:
                assign_with_leader(self.consumers[session], assignment, CONNECT_TIMEOUT)
            except Exception as exc:  # noqa: BLE001 - raised by wait_connected, on the task's thread
                self._errors.append(exc)
                return
        connect_session(self.consumers[session], self.topic, self.partition, max(0.0, deadline - time.monotonic()))

    def wait_connected(self, timeout: float) -> None:
        """Waits at most `timeout` seconds for the connections `_connect` opens."""
        deadline = time.monotonic() + timeout
        for thread in self._connecting:
            thread.join(max(0.0, deadline - time.monotonic()))
        if self._errors:  # the head's deferred assignment failed: the task's start fails, never a silent stall
            raise self._errors[0]

    def drain(self, max_records: int) -> list[Any]:
        """What the sessions have queued, moved into their ranges, and up to `max_records` of the head's."""
        errors: list[Any] = []
        for session, consumer in enumerate(self.consumers):
            if self.state.wants(session):
                errors.extend(self._arrive(session, consumer.consume(self.batch, 0)))
        self._replan()
        return [*errors, *self.state.take(max_records)]

    def wait(self, timeout: float, max_records: int) -> list[Any]:
        """Up to `max_records` messages, waiting up to `timeout` for the head's session in slices of
        WAIT_SLICE, the other sessions drained between them (a session whose queue is full stops fetching)."""
        deadline = time.monotonic() + timeout
        while True:
            errors: list[Any] = []
            head = self.state.ranges[0].session
            waiting = head is not None and self.state.wants(head)
            if head is not None and waiting:
                first = self.consumers[head].poll(max(0.0, min(WAIT_SLICE, deadline - time.monotonic())))
                if first is not None:
                    errors = self._arrive(head, [first])
            out = [*errors, *self.drain(max_records)]
            if out or not waiting or time.monotonic() >= deadline:
                return out

    def _arrive(self, session: int, messages: list[Any]) -> list[Any]:
        """Hands `session`'s records to the ranges (unassigning it once past its range); returns the
        consumer errors among `messages` (not records: the task logs them)."""
        if not messages:
            return []
        was_reading = session in self.state.reading
        self.state.arrive(session, [m for m in messages if m.error() is None])
        if was_reading and session not in self.state.reading:
            self.consumers[session].unassign()  # past its range's end: stop fetching
            log.debug("session %d of %s-%d passed its range's end", session, self.topic, self.partition)
        return [m for m in messages if m.error() is not None]

    def _replan(self) -> None:
        for session, offset in self.state.plan(self.end_offsets()[1]):
            assign(self.consumers[session], [(self.topic, self.partition, offset)])
            log.debug("session %d reads %s-%d from %d", session, self.topic, self.partition, offset)

    def end_offsets(self) -> tuple[int, int]:
        """(low, high) watermarks: the highest any session's last fetch saw (-1 if not known yet)."""
        seen = [watermarks(c, self.topic, self.partition) for c in self.consumers]
        return max(s[0] for s in seen), max(s[1] for s in seen)

    def close(self) -> None:
        state = self.state
        if state.read_bytes:
            log.info("read-ahead of %s-%d with %d sessions: %.1f MB read, %.1f MB (%.1f%%) past range ends "
                     "or read twice", self.topic, self.partition, len(self.consumers), state.read_bytes / 1e6,
                     state.wasted_bytes / 1e6, 100 * state.wasted_bytes / state.read_bytes)
        for thread in self._connecting:
            thread.join(CONNECT_TIMEOUT + 1)  # a consumer is not closed under a request of another thread
        for consumer in self.consumers:
            consumer.close()
