"""Acknowledgements of message runs (see `MessageRunTask`): one callback per run, not per record.

A run is produced in order to one target partition by one idempotent producer, with a delivery
callback on its first and on its last message only. The two offsets tell where the whole run
landed; if the last is less than `len - 1` past the first, records are missing, and the task
fails rather than commit past them. The producer runs with `enable.gapless.guarantee` (a failed
record in the middle of a run stops the producer, so the last callback fails too) and, as Connect's
source producers, without a delivery timeout.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pyconnect.api.records import MessageRun
from pyconnect.kafka.errors import error_text

Committable = list[tuple[Mapping[str, Any], Mapping[str, Any]]]
UNKNOWN = -2  # an acknowledged record's offset the broker did not give (a duplicate's acknowledgement)
OnRun = Callable[[MessageRun, int, int], None]  # run, first target offset, last target offset
OnFailure = Callable[[str], None]  # a readable description

# Producer settings the run protocol relies on (user settings may override the timeout), and a bound on
# the bytes a task has produced but not yet had acknowledged: librdkafka's default queue is 1 GB, so a
# slow or far target let one task hold GBs (the queued copies plus the consumed messages their runs
# keep); 32 MB, as Java's buffer.memory, is several round trips' worth even at 200 ms.
RUN_PRODUCER_DEFAULTS = {"enable.idempotence": "true", "enable.gapless.guarantee": "true",
                         "message.timeout.ms": "0", "queue.buffering.max.kbytes": "32768"}


def describe_run(run: MessageRun, reason: str) -> str:
    first, last = run.messages[0].offset(), run.messages[-1].offset()
    return (f"Kafka did not acknowledge records for topic {run.topic} partition {run.partition} "
            f"(source partition {dict(run.source_partition)}, offsets {first}..{last}): {reason}")


class _RunCallback:
    """The delivery callback of one run (given to its first and last message)."""

    __slots__ = ("run", "first", "owner")

    def __init__(self, run: MessageRun, owner: RunAcks) -> None:
        self.run, self.first, self.owner = run, -1, owner  # first: -1 not yet acknowledged

    def __call__(self, err: Any, msg: Any) -> None:
        # An exception escaping a delivery callback comes back out of the client's poll() as an unreadable
        # SystemError: fail the task with the real cause instead.
        try:
            if err is not None:
                self.owner.failed(self.run, error_text(err))
                return
            # A record acknowledged as a duplicate of an earlier send (an idempotent producer resending after
            # a broker restart) has no known offset: the run is delivered, where is unknown.
            offset = msg.offset()
            offset = UNKNOWN if offset is None or offset < 0 else offset
            if self.first == -1:
                self.first = offset
                if len(self.run.messages) > 1:
                    return  # the last message's callback completes the run
            self.owner.acked(self.run, self.first, offset)
        except Exception as exc:
            self.owner.failed(self.run, f"internal error handling the acknowledgement: {exc!r}")


class RunAcks:
    """Which source offsets are safe to commit, per source partition, for runs in flight.

    Callbacks run on the task thread (inside producer.poll), like `committable`."""

    def __init__(self, on_run: OnRun | None, on_failure: OnFailure) -> None:
        self.on_run, self.on_failure = on_run, on_failure
        self._acked: dict[int, tuple[Mapping[str, Any], Mapping[str, Any]]] = {}
        self._failed: set[int] = set()  # source partitions never committed past a failure
        self._in_flight = 0
        self._cut: list[tuple[_RunCallback, int]] = []

    def callback(self, run: MessageRun) -> _RunCallback:
        """Register a run before producing it; returns the callback for its first and last message."""
        self._in_flight += 1
        return _RunCallback(run, self)

    def acked(self, run: MessageRun, first: int, last: int) -> None:
        """The run is in Kafka at `first`..`last` of its target partition (UNKNOWN where a duplicate's
        acknowledgement gave no offset: its source offsets commit, but no position is reported, so no
        offset sync is written for it and translation falls back to an earlier sync: re-reads, never skips)."""
        self._in_flight -= 1
        key = id(run.source_partition)
        if key in self._failed:
            return
        if UNKNOWN in (first, last):
            self._acked[key] = (run.source_partition, {"offset": run.messages[-1].offset()})
            return
        if last - first < len(run.messages) - 1:
            self.failed(run, f"{len(run.messages)} records were sent but only {last - first + 1} offsets "
                             f"({first}..{last}) hold them: records are missing")
            return
        self._acked[key] = (run.source_partition, {"offset": run.messages[-1].offset()})
        if self.on_run is not None:
            self.on_run(run, first, last)

    def cut(self, callback: _RunCallback, produced: int) -> None:
        """Kafka refused message `produced` of the callback's run when it was produced: only the
        messages before it were sent, and the run's last callback will never come."""
        self._cut.append((callback, produced))

    def settle_cut(self, delivered: bool) -> None:
        """After the producer was flushed with nothing left (`delivered`, and no fatal error): the sent
        prefix of each cut run whose first message was acknowledged is in Kafka, in order (a failure in
        between would have been fatal, see module doc), so its offsets may be committed."""
        cut, self._cut = self._cut, []
        for callback, produced in cut:
            run = callback.run
            if delivered and produced > 0 and callback.first != -1:
                prefix = MessageRun(run.source_partition, run.topic, run.partition, run.messages[:produced])
                # Only the first message's position is known (another producer may have written inside
                # the prefix): its offsets commit, but no position is reported, as for a duplicate.
                self.acked(prefix, callback.first, UNKNOWN)

    def failed(self, run: MessageRun, reason: str) -> None:
        self._failed.add(id(run.source_partition))
        self.on_failure(describe_run(run, reason))

    def committable(self) -> Committable:
        acked, self._acked = self._acked, {}
        return list(acked.values())

    def in_flight(self) -> int:
        return self._in_flight
