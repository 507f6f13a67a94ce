"""Apache Kafka in the test bed (pyconnect.testing.kafka_jvm): a single-node KRaft cluster as a local JVM, for
4.x and 3.9, serving PLAINTEXT, SSL and SASL_SSL/SCRAM-SHA-512 clients, and keeping every acknowledged
record through a kill -9 and a restart on the same log directory.

Every client here is confluent-kafka (librdkafka), as the product's own clients are.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]

from pyconnect.testing.kafka_jvm import KafkaBroker, start_kafka_jvm
from pyconnect.testing.tls import CertificateAuthority
from tests.harness.acked_writer import AckedWriter

QUIET = {"log_level": "0"}  # the failing logins below are expected: keep librdkafka's retries off stderr


@pytest.fixture(scope="module", params=["4", "3.9"])
def kafka(request: pytest.FixtureRequest) -> Iterator[KafkaBroker]:
    node = start_kafka_jvm(f"testbed-{request.param}", secure=True, version=request.param)
    yield node
    node.stop()


def create_topic(settings: dict[str, str], topic: str, partitions: int) -> None:
    admin = AdminClient(dict(settings))  # held until the futures resolve: a collected client fails them
    for future in admin.create_topics([NewTopic(topic, partitions, 1)], operation_timeout=30).values():
        future.result(30)


def read_to_end(settings: dict[str, str], topic: str, partitions: int, timeout: float = 60.0) -> list[bytes]:
    """Every value of `topic`, read with assign() up to each partition's end offset (Kafka's ListOffsets)."""
    consumer = Consumer({**settings, "group.id": f"testbed-{time.monotonic_ns()}", "enable.auto.commit": False})
    tps = [TopicPartition(topic, p, 0) for p in range(partitions)]
    ends = {tp.partition: consumer.get_watermark_offsets(tp, timeout=10)[1] for tp in tps}
    consumer.assign(tps)
    values: list[bytes] = []
    position = dict.fromkeys(ends, 0)
    deadline = time.monotonic() + timeout
    try:
        while any(position[p] < end for p, end in ends.items()):
            assert time.monotonic() < deadline, f"read {len(values)} records of {topic}; positions {position}"
            for message in consumer.consume(1000, 0.5):
                if message.error() is None:
                    values.append(message.value() or b"")
                    position[message.partition() or 0] = (message.offset() or 0) + 1
    finally:
        consumer.close()
    return values


def round_trip(settings: dict[str, str], topic: str, count: int = 200) -> list[bytes]:
    """Create `topic`, write `count` acknowledged records (acks=all) and read them back, all on `settings`."""
    create_topic(settings, topic, 3)
    producer = Producer({**settings, "acks": "all"})
    for i in range(count):
        producer.produce(topic, f"v{i}".encode(), key=f"k{i}".encode())
    assert producer.flush(30) == 0
    return read_to_end(settings, topic, 3)


@pytest.mark.parametrize("protocol", ["PLAINTEXT", "SSL", "SASL_SSL"])
def test_a_client_writes_and_reads_over_each_listener(kafka: KafkaBroker, protocol: str, unique: str) -> None:
    """Each listener serves a full round trip: create a topic, produce with acks=all, read it all back. The SSL
    clients verify the broker's certificate against the test CA (and its host name, librdkafka's default)."""
    values = round_trip(kafka.client_settings(protocol), f"{protocol.lower()}-{unique}")
    assert sorted(values) == sorted(f"v{i}".encode() for i in range(200))


def first_error(settings: dict[str, str], timeout: float = 20.0) -> KafkaError:
    """The first error a client of `settings` reports (librdkafka's error callback) while it connects."""
    errors: list[KafkaError] = []
    producer = Producer({**settings, "error_cb": errors.append, **QUIET})
    deadline = time.monotonic() + timeout
    while not errors:
        assert time.monotonic() < deadline, f"no error within {timeout} s: the client was let in"
        producer.poll(0.2)
    return errors[0]


def test_a_client_trusting_another_ca_is_refused(kafka: KafkaBroker, tmp_path: Path) -> None:
    """The SSL listener's trust is real: a client whose CA did not sign the broker's certificate fails the
    handshake on certificate verification."""
    stranger = CertificateAuthority(tmp_path, name="another CA")
    error = first_error({**kafka.client_settings("SSL"), "ssl.ca.location": str(stranger.ca_path)})
    assert "certificate verify failed" in error.str(), error


def test_a_wrong_scram_password_is_refused(kafka: KafkaBroker) -> None:
    """SASL_SSL authenticates: with a wrong password the SCRAM-SHA-512 login fails with an authentication
    error (the right one is what the round-trip test logs in with)."""
    error = first_error({**kafka.client_settings("SASL_SSL"), "sasl.password": "not-the-password"})
    assert error.code() == KafkaError._AUTHENTICATION, error


class PacedWriter(AckedWriter):
    """An idempotent producer (acks=all) writing `total` records with at most WINDOW of them unanswered, so
    that the stream lasts long enough for a kill to land inside it; it counts what the broker acknowledged."""

    WINDOW = 1000

    def __init__(self, settings: dict[str, str], topic: str, total: int) -> None:
        super().__init__(settings, topic)
        self.total = total

    def run(self) -> None:
        for i in range(self.total):
            while self.produced - len(self.acked) - len(self.failed) >= self.WINDOW:
                self.producer.poll(0.05)  # unanswered records fail after message.timeout.ms: this ends
            self.producer.produce(self.topic, f"{i}".encode(), key=f"k{i % 50}".encode(), on_delivery=self.report)
            self.produced += 1
            self.producer.poll(0)
        self.unflushed = self.producer.flush(120)


def test_a_kill_9_mid_stream_loses_no_acknowledged_record(kafka: KafkaBroker, unique: str) -> None:
    """kill -9 the broker while an idempotent producer (acks=all) is writing, restart it on the same log
    directory without formatting while the producer goes on, and finish: every record the broker acknowledged
    is there, once."""
    total, topic = 6000, f"kill-{unique}"
    settings = kafka.client_settings()
    create_topic(settings, topic, 3)
    writer = PacedWriter(settings, topic, total)
    writer.start()
    deadline = time.monotonic() + 30
    while len(writer.acked) < total // 6:
        assert time.monotonic() < deadline and writer.is_alive(), f"only {len(writer.acked)} records acknowledged"
        time.sleep(0.005)  # the poll interval of a wait under a deadline
    kafka.kill()
    at_kill = f"{len(writer.acked)} acknowledged and {writer.produced} produced at the kill"
    assert writer.produced < total, f"the kill did not land mid-stream: {at_kill}"
    kafka.restart()
    writer.join(150)
    assert writer.unflushed == 0, f"{writer.unflushed} records unacknowledged 120 s after the restart ({at_kill})"
    counts = Counter(read_to_end(settings, topic, 3))
    lost = [v for v in writer.acked if v not in counts]
    duplicated = {v: n for v, n in counts.items() if n > 1}
    summary = (f"written (acknowledged) {len(writer.acked)}, failed {len(writer.failed)} {writer.failed[:3]}, "
               f"lost {len(lost)} {lost[:5]}, duplicated {len(duplicated)}, read {sum(counts.values())}; {at_kill}; "
               f"restart took {kafka.started_in:.1f} s")
    assert not lost and not duplicated and not writer.failed and len(writer.acked) == total, summary
