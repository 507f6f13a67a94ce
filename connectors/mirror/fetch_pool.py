"""Several fetch sessions for one MirrorSource task: its partitions split among a few consumers.

Why: librdkafka keeps ONE Fetch request in flight per broker connection, so one consumer moves at most
one fetch response per round trip to the source cluster, whatever its fetch sizes: at 100 ms RTT that is
~40 MB/s with Tansu's ~4 MB answers, and with Kafka's defaults (max.partition.fetch.bytes 1 MB) 1 MB a
partition per RTT. A task far from its source cluster therefore reads with several consumers (each its
own connection and fetch session), each owning a share of the partitions, and with larger per-partition
fetches (FETCH_DEFAULTS).

Invariants:
- every assigned partition is read by exactly one consumer, from the position the task gives it, so
  its messages come out in offset order (runs of consecutive messages per partition, as the runner's
  run-based delivery and the offset syncs need); messages of different partitions may interleave;
- `consume` waits only while no consumer has anything queued, and never longer than its timeout;
- each session's consumer has a group.id of its own (the task's, then `<group>-session-<n>`): with one
  group.id shared by several consumers of the same topic, Tansu 0.6.0 lost one record in the middle of a
  partition in 3 runs of 3 (tests/test_mirror_provenance.py::test_three_cluster_identity_mesh; 2 of 2
  passed with distinct groups); Kafka keys fetch sessions by connection, and the task commits no offsets
  to the group, so distinct groups cost nothing there;
- the number of sessions is `fetch.sessions` if set, else AUTO_SESSIONS (1: the task's single consumer,
  as before), never more than the task's partitions.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pyconnect.kafka.clients import assign, consume_available, watermarks

AUTO_SESSIONS = 1  # sessions are opt-in (fetch.sessions): see docs/cross-dc.md for why not automatic yet
WAIT_SLICE = 0.005  # how long one idle consumer is waited on before the others are looked at again
# Applied unless the user set them (source.consumer.* / consumer.*). A partition may bring 8 MB a fetch
# (Kafka honours it; librdkafka's 1 MB default caps a far partition at 1 MB per round trip), a fetch at
# most 16 MB, and each session pre-fetches at most 16 MB: a task's fetch buffers stay within
# AUTO_SESSIONS x (16 + 16) MB (librdkafka's defaults would allow 4 x (64 + 50) MB). A session moves one
# fetch per round trip, so 16 MB queued is several round trips' worth even on Kafka.
FETCH_DEFAULTS = {"max.partition.fetch.bytes": "8388608", "fetch.max.bytes": "16777216",
                  "queued.max.messages.kbytes": "16384"}


def fetch_defaults(user: Mapping[str, str], sessions: int = 2) -> dict[str, str]:
    """FETCH_DEFAULTS, made consistent with what the user set: a partition's fetch never above the user's
    fetch.max.bytes, a request's never below the user's max.partition.fetch.bytes; one session keeps
    librdkafka's pre-fetch queue (64 MB), several share it out."""
    out = dict(FETCH_DEFAULTS)
    if sessions == 1:
        del out["queued.max.messages.kbytes"]
    cap = user.get("fetch.max.bytes")
    if cap is not None:
        out["max.partition.fetch.bytes"] = str(min(int(cap), int(out["max.partition.fetch.bytes"])))
    per_partition = user.get("max.partition.fetch.bytes")
    if per_partition is not None:
        out["fetch.max.bytes"] = str(max(int(per_partition), int(out["fetch.max.bytes"])))
    return out


def session_count(configured: int | None, partitions: int) -> int:
    """How many consumers read `partitions` partitions (at least one, at most one per partition)."""
    wanted = configured if configured is not None else AUTO_SESSIONS
    return max(1, min(wanted, partitions))


def split(positions: Sequence[tuple[str, int, int]], sessions: int) -> list[list[tuple[str, int, int]]]:
    """The positions dealt round-robin to `sessions` consumers (every partition to exactly one)."""
    return [list(positions[i::sessions]) for i in range(sessions)]


class FetchPool:
    """A task's consumers, polled as one: `consume` returns what any of them has queued."""

    def __init__(self, new_consumer: Callable[[int], Any], positions: Sequence[tuple[str, int, int]],
                 sessions: int) -> None:
        self.consumers: list[Any] = []
        self._owner: dict[tuple[str, int], Any] = {}
        try:
            for index, share in enumerate(split(positions, sessions)):
                consumer = new_consumer(index)
                self.consumers.append(consumer)
                assign(consumer, share)
                for topic, partition, _ in share:
                    self._owner[(topic, partition)] = consumer
        except Exception:
            self.close()
            raise
        self._next = 0

    def consume(self, max_records: int, timeout: float) -> list[Any]:
        """Up to `max_records` messages from the consumers in turn, waiting up to `timeout` for the first."""
        if len(self.consumers) == 1:
            return consume_available(self.consumers[0], max_records, timeout)
        deadline = time.monotonic() + timeout
        while True:
            out = self._drain(max_records)
            if out:
                return out
            left = deadline - time.monotonic()
            if left <= 0:
                return out
            first = self.consumers[self._next].poll(min(left, WAIT_SLICE))
            if first is not None:
                rest = self._drain(max_records - 1)
                return [first, *rest]  # `first` precedes anything its consumer had queued since

    def _drain(self, max_records: int) -> list[Any]:
        """What the consumers have queued, starting with the next in turn (no waiting)."""
        out: list[Any] = []
        count = len(self.consumers)
        for k in range(count):
            if len(out) >= max_records:
                break
            out.extend(self.consumers[(self._next + k) % count].consume(max_records - len(out), 0))
        self._next = (self._next + 1) % count
        return out

    def end_offsets(self, topic: str, partition: int) -> tuple[int, int]:
        """The partition's (low, high) watermarks from its consumer's last fetch (-1 if not known yet);
        safe from another thread while the pool is open."""
        return watermarks(self._owner[(topic, partition)], topic, partition)

    def close(self) -> None:
        for consumer in self.consumers:
            consumer.close()
