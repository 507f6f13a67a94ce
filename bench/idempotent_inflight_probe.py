"""Why an idempotent librdkafka producer moves about one batch per partition per round trip to a far broker.

    python bench/idempotent_inflight_probe.py [--rtt 100] [--records 20000] [--partitions 1]

One Tansu broker behind tests/harness/wan_proxy.py (RTT/2 each way). For each producer setting below, a fresh
topic, `--records` records of 1 KB produced as fast as the producer takes them, and librdkafka's own protocol
log (`debug=protocol`) read back: how many ProduceRequests were on the wire at once at most, how many were sent,
their mean size, and the rate. The producer's start-up (connection, InitProducerId) is not timed.

What it shows (confluent-kafka 2.16 / librdkafka 2.16, see docs/cross-dc.md "Producing across the link"):
- idempotent: at most ONE ProduceRequest per partition in flight, whatever `max.in.flight` (5) allows;
- idempotent with `batch.num.messages=4`: two. librdkafka's rd_kafka_toppar_producer_serve (rdkafka_broker.c)
  allows another request for a partition only while 5 (the broker's de-duplication window, in requests) minus
  the partition's in-flight MESSAGE count (rktp_msgs_inflight) is positive: a batch of 5 or more records
  closes the window until it is acknowledged (librdkafka pull request 4989, open, reports the same);
- not idempotent: as many as `max.in.flight` allows, so Tansu answers pipelined Produce requests at once
  (the limit is the client's, not the broker's);
- a bigger `batch.size` (and `message.max.bytes`) is the only per-partition lever left with idempotence: bytes
  per round trip grow with the batch, still one request at a time.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from confluent_kafka import Producer  # noqa: E402

from tests.harness.kafka_io import create_topic  # noqa: E402
from tests.harness.wan_proxy import start_far_tansu  # noqa: E402

SETTINGS: list[dict[str, str]] = [
    {"enable.idempotence": "true"},  # what the runtime's run producer uses (run_acks.RUN_PRODUCER_DEFAULTS)
    {"enable.idempotence": "true", "batch.num.messages": "4"},
    {"enable.idempotence": "true", "batch.size": "4000000", "message.max.bytes": "5000000"},
    {"enable.idempotence": "false", "max.in.flight": "5"},
    {"enable.idempotence": "false"},  # librdkafka's max.in.flight default: 1,000,000
]
TINY_BATCH_RECORDS = 400
SENT = re.compile(r"Sent ProduceRequest \(v\d+, (\d+) bytes")
RECEIVED = "Received ProduceResponse"


class Wire(logging.Handler):
    """Counts ProduceRequests on the wire from librdkafka's protocol debug log."""

    def __init__(self) -> None:
        super().__init__()
        self.on_wire = self.most = self.sent = self.bytes = 0

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if sent := SENT.search(message):
            self.on_wire += 1
            self.sent += 1
            self.bytes += int(sent.group(1))
            self.most = max(self.most, self.on_wire)
        elif RECEIVED in message:
            self.on_wire -= 1


def produce(bootstrap: str, topic: str, records: int, partitions: int, setting: dict[str, str]) -> str:
    """One producer with `setting`: a line with its rate and what went over the wire."""
    wire, log = Wire(), logging.getLogger(f"probe-{topic}")
    log.addHandler(wire)
    log.setLevel(logging.DEBUG)
    log.propagate = False
    producer = Producer({"bootstrap.servers": bootstrap, "debug": "protocol", "logger": log, **setting})
    producer.list_topics(topic, timeout=10)
    producer.produce(topic, b"warm-up", partition=0)  # connection and InitProducerId: not timed
    assert producer.flush(30) == 0, "the warm-up record was not acknowledged"
    wire.sent = wire.bytes = wire.most = 0
    value = os.urandom(1000)
    began = time.perf_counter()
    for i in range(records):
        while True:
            try:
                producer.produce(topic, value, partition=i % partitions)
                break
            except BufferError:
                producer.poll(0.005)
    left = producer.flush(120)
    took = time.perf_counter() - began
    producer.poll(0.1)  # the last responses' log lines
    assert left == 0, f"{left} records not acknowledged"
    shown = ", ".join(f"{k}={v}" for k, v in setting.items())
    return (f"{shown:70s} {records * 1000 / took / 1e6:6.1f} MB/s  {wire.sent:4d} requests, "
            f"mean {wire.bytes / max(1, wire.sent) / 1e3:6.0f} KB, at most {wire.most} on the wire")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rtt", type=int, default=100)
    ap.add_argument("--records", type=int, default=20_000)
    ap.add_argument("--partitions", type=int, default=1)
    args = ap.parse_args()
    far = start_far_tansu("inflight-probe", 0)
    try:
        print(f"{args.records:,} records of 1 KB to {args.partitions} partition(s), RTT {args.rtt} ms")
        for i, setting in enumerate(SETTINGS):
            topic = f"probe{i}"
            far.proxy.set_delay(0)
            create_topic(far.bootstrap, topic, args.partitions)
            far.proxy.set_delay(args.rtt / 2)
            # 4-record batches at one or two per round trip: a few hundred records show the window
            records = TINY_BATCH_RECORDS if "batch.num.messages" in setting else args.records
            print(produce(far.bootstrap, topic, records, args.partitions, setting), flush=True)
    finally:
        far.stop()


if __name__ == "__main__":
    main()
