"""Replication traffic measured outside the test process: `python -m tests.harness.traffic <json>` produces
`<p>:<seq>` records at a steady rate to a source topic and counts what reaches the target topic, appending
`<monotonic time> <produced> <arrived>` lines to a progress file every 0.2 s until SIGTERM.

It runs as its own process so that what the test process does meanwhile (50 REST client threads) slows
neither the offered load nor the count. CLOCK_MONOTONIC is system-wide on Linux, so the test compares these
times with its own.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from confluent_kafka import Consumer, Producer, TopicPartition


def _count_arrivals(spec: dict[str, Any], stop: threading.Event, arrived: list[int]) -> None:
    consumer = Consumer({"bootstrap.servers": spec["target"], "group.id": f"count-{time.monotonic_ns()}",
                         "enable.auto.commit": False, "fetch.wait.max.ms": 50})
    parts = [TopicPartition(spec["target_topic"], p, 0) for p in range(spec["partitions"])]
    consumer.assign(parts)
    try:
        while not stop.is_set():
            arrived[0] += sum(1 for m in consumer.consume(5000, 0.1) if m.error() is None)
    finally:
        consumer.close()


def main(spec: dict[str, Any]) -> None:
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    arrived = [0]
    counter = threading.Thread(target=_count_arrivals, args=(spec, stop, arrived), daemon=True)
    counter.start()
    producer = Producer({"bootstrap.servers": spec["source"], "linger.ms": 5, "enable.idempotence": True})
    partitions, rate, topic = spec["partitions"], float(spec["rate"]), spec["source_topic"]
    sent = [0] * partitions
    start = last = time.monotonic()
    with open(spec["progress"], "a", buffering=1) as out:
        while not stop.is_set():
            due = int((time.monotonic() - start) * rate) - sum(sent)
            for _ in range(max(0, due)):
                p = sum(sent) % partitions
                producer.produce(topic, f"{p}:{sent[p]}".encode(), partition=p)
                sent[p] += 1
            producer.poll(0.02)
            if time.monotonic() - last >= 0.2:
                last = time.monotonic()
                out.write(f"{last:.3f} {sum(sent)} {arrived[0]}\n")
        assert producer.flush(120) == 0
        out.write(f"sent {' '.join(map(str, sent))}\n")
    counter.join(5)


@dataclass
class Sample:
    at: float
    produced: int
    arrived: int


class Traffic:
    """The traffic process of one test: start it, read its progress, stop it (which flushes the producer)."""

    def __init__(self, directory: Path, spec: dict[str, Any]) -> None:
        self.progress = directory / "traffic.progress"
        self.spec = {**spec, "progress": str(self.progress)}
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Traffic:
        from tests.harness.workers import REPO

        self.process = subprocess.Popen([sys.executable, "-m", "tests.harness.traffic", orjson.dumps(self.spec)],
                                        cwd=REPO)
        return self

    def samples(self) -> list[Sample]:
        if not self.progress.exists():
            return []
        rows = [line.split() for line in self.progress.read_text().splitlines() if line and line[0].isdigit()]
        return [Sample(float(a), int(p), int(c)) for a, p, c in rows]

    def latest(self) -> Sample | None:
        assert self.process is not None and self.process.poll() is None, "the traffic process died"
        samples = self.samples()
        return samples[-1] if samples else None

    def stop(self) -> list[int]:
        """Stop producing; the records sent per partition."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        self.process.wait(180)
        lines = [line for line in self.progress.read_text().splitlines() if line.startswith("sent ")]
        assert lines, f"traffic process ended without its totals (exit {self.process.returncode})"
        return [int(n) for n in lines[-1].split()[1:]]

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


if __name__ == "__main__":
    main(orjson.loads(sys.argv[1]))
