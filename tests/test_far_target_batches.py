"""A MirrorSource task writing to a far target: a raised `batch.size` reaches the wire, records land in order.

librdkafka's idempotent producer keeps one ProduceRequest per partition on the wire (bench/
idempotent_inflight_probe.py; docs/cross-dc.md "Producing across the link"), so a far partition moves one
batch per round trip and the batch size is the lever. librdkafka cuts every batch at `message.max.bytes`
(1,000,000 unless set), where Kafka's Java producer sends a batch larger than `max.request.size` alone in
its request (clients/.../producer/internals/RecordAccumulator.java, drainBatchesForOneNode: "a single batch
size is larger than the request size ... we will still eventually send this batch in a single request").
The runner therefore fits `message.max.bytes` to a raised `batch.size` (pyconnect/kafka/config.py,
fit_request_to_batch) unless the user set it.

The target sits behind tests/harness/wan_proxy.py (50 ms each way), so the one-request window makes records
pile up and each batch fill to its limit; the real MirrorSourceTask under the real SourceTaskRunner copies a
backlog, and librdkafka's protocol log (debug=protocol, through Python logging) gives each ProduceRequest's size.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Producer

from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic, read_partitions
from tests.harness.wan_proxy import FarBroker, start_far_tansu

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from mirror_source_bench import mirror_task  # noqa: E402

RECORDS, SIZE, ONE_WAY_MS, BATCH = 8_000, 1000, 50, 4_000_000
SENT = re.compile(r"Sent ProduceRequest \(v\d+, (\d+) bytes")


@pytest.fixture
def far_target() -> Iterator[FarBroker]:
    far = start_far_tansu("far-target", 0)
    yield far
    far.stop()


class Requests(logging.Handler):
    """The sizes of the ProduceRequests librdkafka logs as sent (the runtime routes its log to Python logging)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.sizes: list[int] = []

    def emit(self, record: logging.LogRecord) -> None:
        if sent := SENT.search(record.getMessage()):
            self.sizes.append(int(sent.group(1)))


def fill(bootstrap: str, topic: str) -> None:
    """RECORDS distinct records (their index first) in one partition."""
    create_topic(bootstrap, topic, 1)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(RECORDS):
        producer.produce(topic, i.to_bytes(4, "big") + bytes(SIZE - 4), key=b"k%d" % i, partition=0)
        if i % 1000 == 0:
            producer.poll(0)
    assert producer.flush(60) == 0


def copy(source: Broker, far: FarBroker, topic: str, producer: dict[str, str]) -> list[int]:
    """Copy `topic` to the far target with these producer settings; the sizes of the requests sent."""
    fill(source.bootstrap, topic)
    far.proxy.set_delay(ONE_WAY_MS)
    # On librdkafka's own logger (pyconnect/kafka/clients.py), whatever an earlier test in this process left on
    # the root logger or on this one's level: its debug lines reach the handler only at DEBUG.
    requests, log = Requests(), logging.getLogger("librdkafka")
    level, disabled = log.level, logging.root.manager.disable
    log.addHandler(requests)
    log.setLevel(logging.DEBUG)
    logging.disable(logging.NOTSET)
    try:
        mirror_task(source.bootstrap, far.bootstrap, topic, RECORDS, 1, consumer={},
                    producer={"debug": "protocol", **producer})
    finally:
        log.removeHandler(requests)
        log.setLevel(level)
        logging.disable(disabled)
        far.proxy.set_delay(0)
    return [s for s in requests.sizes if s > 10_000]  # the data requests, not the warm-up's


def test_a_raised_batch_size_reaches_the_wire(broker: Broker, far_target: FarBroker, unique: str) -> None:
    sizes = copy(broker, far_target, f"big{unique}", {"batch.size": str(BATCH)})
    print(f"batch.size {BATCH}: {len(sizes)} requests, largest {max(sizes):,} bytes")
    assert max(sizes) > 2 * 1_000_000, "batches were cut at librdkafka's default message.max.bytes"
    copied = read_partitions(far_target.bootstrap, f"A.big{unique}", RECORDS)[0]
    assert [int.from_bytes(r[2][:4], "big") for r in copied] == list(range(RECORDS)), "records out of order"


def test_a_request_limit_the_user_set_is_kept(broker: Broker, far_target: FarBroker, unique: str,
                                              caplog: pytest.LogCaptureFixture) -> None:
    sizes = copy(broker, far_target, f"capped{unique}",
                 {"batch.size": str(BATCH), "message.max.bytes": "1000000"})
    assert max(sizes) <= 1_000_000 + 1024
    assert "batch.size 4000000 is above message.max.bytes (max.request.size) 1000000" in caplog.text
