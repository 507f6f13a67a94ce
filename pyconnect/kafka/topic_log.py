"""A compacted topic read from its start on a background thread, with read-to-end (Connect's
KafkaBasedLog): the base of the worker's internal stores (pyconnect.storage) and of what the MM2
connectors read whole (offset syncs, checkpoints, heartbeats)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any

from pyconnect.kafka.clients import (
    OFFSET_BEGINNING,
    assign,
    consume_available,
    end_offsets,
    new_consumer,
    new_producer,
    positions,
    produce,
)
from pyconnect.kafka.errors import error_text, is_partition_eof
from pyconnect.logging_context import context_thread

log = logging.getLogger(__name__)

RecordCallback = Callable[[bytes | None, bytes | None, int, int], None]
# Headers as the client hands them out: a list of (name, value) pairs, or None.
HeadersCallback = Callable[[bytes | None, bytes | None, Any], None]
# Read-to-end requests waiting for the reader, with the end offsets they wait for.
_Pending = tuple[list[Future[None]], dict[int, int]]
# How long an idle reader waits in the client before it looks at its stop flag and new requests again.
_IDLE_POLL_S = 0.2


class KafkaLog:
    """A Log over a real Kafka topic."""

    def __init__(self, topic: str, partitions: int, producer_conf: Mapping[str, str],
                 consumer_conf: Mapping[str, str]) -> None:
        self.topic = topic
        self.partitions = partitions
        # murmur2 on the key like Java's default partitioner, so keys land where Connect puts them.
        self._producer = new_producer({"partitioner": "murmur2_random", "acks": "all",
                                       "enable.idempotence": "true", **producer_conf})
        self._consumer = new_consumer(consumer_conf)
        self._on_record: RecordCallback | None = None
        self._on_headers: HeadersCallback | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._requests: list[Future[None]] = []
        self._lock = threading.Lock()

    def start(self, on_record: RecordCallback, timeout: float = 60.0) -> None:
        self._on_record = on_record
        assign(self._consumer, [(self.topic, p, OFFSET_BEGINNING) for p in range(self.partitions)])
        # In the starting thread's scope: a record the reader logs belongs to the worker that reads.
        self._thread = context_thread(self._run, f"log-{self.topic}")
        self._thread.start()
        self.read_to_end(timeout)

    def start_with_headers(self, on_record: HeadersCallback, timeout: float = 60.0) -> None:
        """As `start`, handing the callback each record's key, value and headers (offset syncs carry one)."""
        self._on_headers = on_record
        self.start(lambda _k, _v, _p, _o: None, timeout)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop reading and flush pending writes, within `timeout` seconds in all: with the cluster gone the
        writes are given up (logged) rather than waited for."""
        deadline = time.monotonic() + timeout
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(max(0.0, deadline - time.monotonic()))
        remaining = self._producer.flush(max(0.0, deadline - time.monotonic()))
        if remaining:
            log.warning("%d write(s) to %s not acknowledged when it stopped", remaining, self.topic)
        if self._thread is None or not self._thread.is_alive():
            self._consumer.close()  # else the reader is stuck in a call on it: left to the process's exit

    def send(self, key: bytes, value: bytes | None, partition: int | None = None) -> Future[None]:
        fut: Future[None] = Future()

        def on_delivery(err: object | None, _msg: object) -> None:
            if err is not None:
                fut.set_exception(RuntimeError(f"write to {self.topic} failed: {error_text(err)}"))
            else:
                fut.set_result(None)

        produce(self._producer, self.topic, value, key=key, partition=partition, on_delivery=on_delivery)
        self._producer.poll(0)
        return fut

    def flush(self, timeout: float = 30.0) -> None:
        remaining = self._producer.flush(timeout)
        if remaining:
            raise TimeoutError(f"{remaining} write(s) to {self.topic} not acknowledged within {timeout:.1f}s")

    def read_to_end(self, timeout: float = 30.0) -> None:
        fut: Future[None] = Future()
        with self._lock:
            self._requests.append(fut)
        try:
            fut.result(timeout)
        except TimeoutError:
            raise TimeoutError(f"could not read {self.topic} to its end within {timeout}s") from None

    # reader thread ---------------------------------------------------------------------------

    def _run(self) -> None:
        position = dict.fromkeys(range(self.partitions), 0)
        pending: list[_Pending] = []
        while not self._stopping.is_set():
            pending += self._look_up_new()
            if pending:  # a caught-up reader answers at once, before it waits in a poll
                pending = self._answer(pending, position)
            try:
                self._poll_once(0.05 if pending else _IDLE_POLL_S)
            except Exception:
                log.exception("error while reading %s", self.topic)
                time.sleep(0.5)
            if pending:
                pending = self._answer(pending, position)
        for futs, _ in pending:
            for fut in futs:
                fut.set_exception(RuntimeError(f"log {self.topic} stopped"))

    def _look_up_new(self) -> list[_Pending]:
        """One end-offset lookup answers every request that arrived before it, as Connect's KafkaBasedLog
        batches its readToEnd callbacks: a lookup per request queued 50 concurrent REST status reads past
        their 10 s timeout. (The lookup is the reader's: a ListOffsets on this consumer from another thread
        while the reader polls it hangs in the client.)"""
        with self._lock:
            new, self._requests = self._requests, []
        if not new:
            return []
        try:
            return [(new, end_offsets(self._consumer, self.topic, range(self.partitions)))]
        except Exception as exc:  # broker unreachable: the callers see it
            for fut in new:
                fut.set_exception(exc)
            return []

    def _answer(self, pending: list[_Pending], position: dict[int, int]) -> list[_Pending]:
        """Resolve the requests whose end offsets the reader has reached; the rest stay pending."""
        # The consumer's position: past every record handed out (all applied by now, on this thread) and past
        # the transaction markers and compaction gaps that no record reports.
        for p, pos in positions(self._consumer, self.topic, range(self.partitions)).items():
            position[p] = max(position[p], pos)
        still = []
        for futs, ends in pending:
            if all(position[p] >= end for p, end in ends.items()):
                for fut in futs:
                    fut.set_result(None)
            else:
                still.append((futs, ends))
        return still

    def _poll_once(self, timeout: float) -> None:
        """Hand the records that arrive within `timeout` to the callback. The reader's position is not kept
        here: `_answer` reads it from the consumer after the callbacks ran, markers and gaps included."""
        self._producer.poll(0)
        # Returns as soon as a record is there: a batch consume waits out its timeout unless 500 arrive.
        messages = consume_available(self._consumer, 500, timeout)
        callback = self._on_record
        for msg in messages:
            err = msg.error()
            if err is not None:
                if not is_partition_eof(err):
                    log.warning("error reading %s: %s", self.topic, error_text(err))
                continue
            if callback is not None:
                partition, offset = msg.partition() or 0, msg.offset() or 0
                try:
                    if self._on_headers is not None:
                        self._on_headers(msg.key(), msg.value(), msg.headers())
                        continue
                    callback(msg.key(), msg.value(), partition, offset)
                except Exception:
                    log.exception("store callback failed on %s-%d@%d", self.topic, partition, offset)
