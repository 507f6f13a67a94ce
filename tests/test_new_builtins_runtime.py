"""The new built-in converters and transforms inside a real worker: a FileStreamSink reads 8-byte
big-endian longs with LongConverter (Kafka's LongSerializer layout) and turns each into a date with
TimestampConverter$Value."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from confluent_kafka import Producer

from tests.harness.connectors import all_running
from tests.harness.kafka_io import create_topic
from tests.harness.sinks import file_sink, lines, sink_worker_extra
from tests.harness.workers import wait_for

DAY_MS = 86_400_000


def test_long_converter_and_timestamp_converter_in_a_file_sink(cluster_factory: Any, broker: Any, unique: str,
                                                               tmp_path: Path) -> None:
    """Five longs (day n plus some milliseconds) land in the file as `1970-01-0<n+1>`: the converter
    reads Kafka's bytes as INT64, the transform sees a unix timestamp and writes the pattern's text."""
    topic, count = f"longs-{unique}", 5
    create_topic(broker.bootstrap, topic, 1)
    producer = Producer({"bootstrap.servers": broker.bootstrap})
    for n in range(count):
        producer.produce(topic, struct.pack(">q", n * DAY_MS + 1234), key=str(n).encode())
    assert producer.flush(30) == 0
    (w,) = cluster_factory(extra=sink_worker_extra(broker)).start(1)
    out, name = tmp_path / "dates.txt", f"dates-{unique}"
    body = file_sink(name, out, topic, **{
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.converters.LongConverter",
        "transforms": "day", "transforms.day.type": "org.apache.kafka.connect.transforms.TimestampConverter$Value",
        "transforms.day.target.type": "string", "transforms.day.format": "yyyy-MM-dd"})
    r = w.request("POST", "/connectors", body)
    assert r.status_code == 201, r.text
    wait_for(lambda: all_running(w, name, 1), 60, "connector and task RUNNING")
    wait_for(lambda: len(lines(out)) >= count, 90, "every record in the file")
    assert lines(out) == [f"1970-01-0{n + 1}" for n in range(count)]
