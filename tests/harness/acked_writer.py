"""A steady idempotent producer (acks=all) that keeps going through broker faults and remembers exactly which
records the broker acknowledged: the ground truth of "0 acknowledged records lost"."""

from __future__ import annotations

import threading
import time

from confluent_kafka import KafkaError, Message, Producer


class AckedWriter(threading.Thread):
    """Writes values `0`, `1`, ... to `topic` at about `rate` records/s (round-robin over the partitions by
    key) until `stop()`; `acked` holds every value the broker acknowledged, `failed` every delivery error.
    librdkafka retries through a broker restart (message timeout 120 s), so a kill shows up as a pause."""

    def __init__(self, settings: dict[str, str], topic: str, rate: float = 500) -> None:
        super().__init__(daemon=True)
        self.producer = Producer({**settings, "acks": "all", "enable.idempotence": True, "linger.ms": 5,
                                  "message.timeout.ms": 120_000, "log_level": "0"})
        self.topic, self.rate = topic, rate
        self.produced = 0
        self.acked: list[bytes] = []
        self.failed: list[str] = []
        self.unflushed = -1
        self._stop_event = threading.Event()

    def report(self, err: KafkaError | None, message: Message) -> None:
        if err is None:
            self.acked.append(message.value() or b"")
        else:
            self.failed.append(str(err))

    def run(self) -> None:
        began = time.monotonic()
        while not self._stop_event.is_set():
            due = int((time.monotonic() - began) * self.rate) - self.produced
            for _ in range(max(0, min(due, 1000))):
                self.producer.produce(self.topic, str(self.produced).encode(), key=str(self.produced % 60).encode(),
                                      on_delivery=self.report)
                self.produced += 1
            self.producer.poll(0.02)
        self.unflushed = self.producer.flush(150)

    def stop(self, timeout: float = 160.0) -> None:
        """Stop writing and wait until every record is acknowledged or has failed."""
        self._stop_event.set()
        self.join(timeout)

