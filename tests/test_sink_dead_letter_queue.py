"""A sink fed 10,000 records of which 100 are malformed JSON. With `errors.tolerance=all` and a
dead letter queue the 9,900 good records are delivered, the 100 bad ones are in the DLQ byte for byte with
Connect's `__connect.errors.*` context headers, and the task stays RUNNING. With `errors.tolerance=none` the
task fails on the first bad record, its topic, partition and offset in the trace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from confluent_kafka import Producer

from tests.harness.connectors import all_running, status
from tests.harness.kafka_io import create_topic, read_messages
from tests.harness.sinks import file_sink, group_offsets, lines, sink_worker_extra
from tests.harness.workers import wait_for

JSON = "org.apache.kafka.connect.json.JsonConverter"
TOTAL, PARTITIONS = 10_000, 4


def _bad(i: int) -> bool:
    return i % 100 == 37


def _fill(bootstrap: str, topic: str) -> None:
    create_topic(bootstrap, topic, PARTITIONS)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(TOTAL):
        value = b'{"n": %d, "oops"' % i if _bad(i) else b'{"n": %d}' % i
        while True:
            try:
                producer.produce(topic, value, key=b"k%d" % i, partition=i % PARTITIONS, headers=[("h", b"%d" % i)])
                break
            except BufferError:
                producer.poll(0.05)
    assert producer.flush(60) == 0


def test_malformed_records_go_to_the_dead_letter_queue(cluster_factory: Any, broker: Any, unique: str,
                                                      tmp_path: Path) -> None:
    topic, dlq = f"dirty-{unique}", f"dlq-{unique}"
    _fill(broker.bootstrap, topic)
    (w,) = cluster_factory(extra=sink_worker_extra(broker)).start(1)
    out = tmp_path / "good.txt"
    body = file_sink("json-sink", out, topic, tasks=2, **{
        "value.converter": JSON, "value.converter.schemas.enable": "false", "errors.tolerance": "all",
        "errors.deadletterqueue.topic.name": dlq, "errors.deadletterqueue.topic.replication.factor": "1",
        "errors.deadletterqueue.context.headers.enable": "true", "errors.log.enable": "true"})
    r = w.request("POST", "/connectors", body)
    assert r.status_code == 201, r.text
    wait_for(lambda: len(lines(out)) >= TOTAL - 100, 120, "every good record in the file")
    good = sorted(int(line[len("{n="):-1]) for line in lines(out))
    assert good == [i for i in range(TOTAL) if not _bad(i)]
    dead = read_messages(broker.bootstrap, dlq, expect=100)
    assert len(dead) == 100
    assert sorted(int(m.key()[1:]) for m in dead) == [i for i in range(TOTAL) if _bad(i)]
    for m in dead:
        i = int(m.key()[1:])
        assert m.value() == b'{"n": %d, "oops"' % i, "the original bytes"
        headers = dict(m.headers())
        assert headers["h"] == b"%d" % i, "the record's own headers come first"
        assert headers["__connect.errors.topic"] == topic.encode()
        assert headers["__connect.errors.partition"] == str(i % PARTITIONS).encode()
        assert headers["__connect.errors.offset"] == str(i // PARTITIONS).encode()
        assert headers["__connect.errors.connector.name"] == b"json-sink"
        assert headers["__connect.errors.stage"] == b"VALUE_CONVERTER"
        assert headers["__connect.errors.class.name"] == JSON.encode()
        assert headers["__connect.errors.exception.class.name"] == b"org.apache.kafka.connect.errors.DataException"
        assert b"Converting byte[] to Kafka Connect data failed due to serialization error" in \
            headers["__connect.errors.exception.message"]
    assert all_running(w, "json-sink", 2), status(w, "json-sink")
    ends = {p: TOTAL // PARTITIONS for p in range(PARTITIONS)}
    wait_for(lambda: group_offsets(broker.bootstrap, "connect-json-sink", topic, PARTITIONS) == ends, 30,
             "the group's offsets past the bad records too")


def test_without_tolerance_the_task_fails_on_the_first_bad_record(cluster_factory: Any, broker: Any,
                                                                  unique: str, tmp_path: Path) -> None:
    topic = f"dirty-{unique}"
    create_topic(broker.bootstrap, topic, 1)
    producer = Producer({"bootstrap.servers": broker.bootstrap})
    for value in (b'{"n": 0}', b'{"n": 1}', b'{"n": ', b'{"n": 3}'):
        producer.produce(topic, value, partition=0)
    assert producer.flush(30) == 0
    (w,) = cluster_factory(extra=sink_worker_extra(broker)).start(1)
    out = tmp_path / "good.txt"
    body = file_sink("strict", out, topic, **{"value.converter": JSON, "value.converter.schemas.enable": "false"})
    assert w.request("POST", "/connectors", body).status_code == 201
    failed = wait_for(lambda: (lambda s: s if s.get("tasks") and s["tasks"][0]["state"] == "FAILED" else None)(
        status(w, "strict")), 90, "the task FAILED")
    trace = failed["tasks"][0]["trace"]
    assert "Tolerance exceeded in error handler" in trace, trace
    assert "Converting byte[] to Kafka Connect data failed due to serialization error" in trace, trace
    assert f"topic={topic}, partition=0, offset=2" in trace, trace
    assert failed["connector"]["state"] == "RUNNING"
    assert group_offsets(broker.bootstrap, "connect-strict", topic, 1).get(0, 0) <= 2, "nothing past the bad record"
