"""Records for bench/vs_java_mm2.py: backlogs and paced traffic on the source cluster (each in a child process
of its own, so its client's CPU and memory are neither the replicator's nor the watcher's), and what arrives on
the target: high watermarks polled (no consumer: nothing to slow down), or records read for their latency.

Paced records carry their send time (time.time(), 8 bytes, big-endian double) at the start of the value; the
target's reader subtracts it from its own clock (one machine, one clock).
"""

from __future__ import annotations

import multiprocessing
import struct
import time
from collections.abc import Callable
from multiprocessing.synchronize import Event

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

SPAWN = multiprocessing.get_context("spawn")
POLL = 0.01  # the watermark poll interval, seconds (the resolution of every first/last-record time)
SEND_TIME = struct.Struct(">d")


def create_topic(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for fut in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        fut.result(60)


def _fill(bootstrap: str, topic: str, n: int, size: int, partitions: int) -> None:
    create_topic(bootstrap, topic, partitions)
    payload = bytes(range(256)) * (size // 256 + 1)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.size": 1_000_000,
                         "queue.buffering.max.kbytes": 1_048_576, "queue.buffering.max.messages": 1_000_000})
    for i in range(n):
        while True:
            try:
                producer.produce(topic, payload[:size], key=b"k%d" % (i % 1000), partition=i % partitions)
                break
            except BufferError:
                producer.poll(0.01)
        if i % 10000 == 0:
            producer.poll(0)
    assert producer.flush(300) == 0, "the backlog was not all acknowledged"


def fill(bootstrap: str, topic: str, n: int, size: int, partitions: int) -> None:
    """A new topic of `partitions` holding `n` records of `size` bytes (keyed, spread round-robin)."""
    filler = SPAWN.Process(target=_fill, args=(bootstrap, topic, n, size, partitions))
    filler.start()
    filler.join()
    assert filler.exitcode == 0, f"filling {topic} failed"


def _pace(bootstrap: str, topic: str, rate: float, size: int, partitions: int, stop: Event) -> None:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    pad = b"x" * max(0, size - SEND_TIME.size)
    began, sent = time.time(), 0
    while not stop.is_set():
        due = int((time.time() - began) * rate)
        while sent < due:
            producer.produce(topic, SEND_TIME.pack(time.time()) + pad, partition=sent % partitions)
            sent += 1
        producer.poll(0)
        time.sleep(0.0005)  # the pacing tick: a send every half millisecond at most
    producer.flush(30)


class PacedProducer:
    """Records at `rate` per second onto `topic` from a child process, until stop()."""

    def __init__(self, bootstrap: str, topic: str, rate: float, size: int, partitions: int) -> None:
        self._stop = SPAWN.Event()
        self._process = SPAWN.Process(target=_pace, args=(bootstrap, topic, rate, size, partitions, self._stop))
        self._process.start()

    def stop(self) -> None:
        self._stop.set()
        self._process.join(60)
        if self._process.is_alive():
            self._process.kill()


class Watermarks:
    """The sum of the high watermarks of `topic` (None while it does not exist)."""

    def __init__(self, bootstrap: str, topic: str, partitions: int) -> None:
        self.topic, self.partitions = topic, partitions
        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "vs-java-watch",
                                  "enable.auto.commit": False})

    def total(self) -> int | None:
        try:
            return sum(self.consumer.get_watermark_offsets(TopicPartition(self.topic, p), timeout=5, cached=False)[1]
                       for p in range(self.partitions))
        except KafkaException:
            return None  # not created yet (or not all partitions known yet)

    def close(self) -> None:
        self.consumer.close()


def wait_total(marks: Watermarks, want: int, deadline: float, tick: Callable[[], None]) -> float:
    """Poll until at least `want` records are on the topic; the perf_counter() time it was first seen. `tick` is
    called at every poll (it samples the replicator and raises if it died); TimeoutError past `deadline`."""
    while True:
        total = marks.total() or 0
        now = time.perf_counter()
        if total >= want:
            return now
        tick()
        if now > deadline:
            raise TimeoutError(f"{total} of {want} records on {marks.topic} at the deadline")
        time.sleep(POLL)  # the watermark poll interval


class LatencyReader:
    """Reads `topic` on the target from its start; keeps (send time, latency in ms) of every record."""

    def __init__(self, bootstrap: str, topic: str, partitions: int) -> None:
        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"vs-java-lat-{time.monotonic_ns()}",
                                  "enable.auto.commit": False, "fetch.wait.max.ms": 100})
        self.consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        self.seen: list[tuple[float, float]] = []

    def poll(self, seconds: float) -> None:
        for message in self.consumer.consume(10000, seconds):
            now = time.time()
            value = message.value()
            if message.error() is None and value is not None and len(value) >= SEND_TIME.size:
                sent = SEND_TIME.unpack_from(value)[0]
                self.seen.append((sent, (now - sent) * 1000))

    def close(self) -> None:
        self.consumer.close()
