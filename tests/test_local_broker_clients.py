"""`replikafka local-broker` prints every client setting a user's own clients need, and docs/brokers.md lists the
same ones.

A consumer group that subscribe()s with default settings except the printed ones reads records within a few
seconds (with default settings Tansu holds its JoinGroup: 23 s to the first record, measured); and the printed
settings blocks equal the example output in docs/brokers.md, read from both places.
"""

from __future__ import annotations

import os
import re
import signal
import time

from confluent_kafka import Consumer, Producer

from tests.harness.kafka_io import create_topic
from tests.harness.workers import REPO
from tests.test_broker_cli import _brokers_listening_on, _Output, _sections, _start

FIRST_RECORD_WITHIN_S = 10.0  # measured 2.2 s; 23 s with default settings (the test then fails)


def _docs_sections() -> list[dict[str, str]]:
    """The settings blocks of the example output in docs/brokers.md (indented 4 more, as a code block)."""
    text = (REPO / "docs" / "brokers.md").read_text()
    example = text.split("It prints:", 1)[1].split("Ctrl-C stops it.", 1)[0]
    return _sections([line.removeprefix("    ") for line in example.splitlines()])


def _first_record_after(bootstrap: str, producing: dict[str, str], consuming: dict[str, str], topic: str) -> float:
    """Seconds from subscribe() to the first record a group consumer reads, producing one record every poll
    (the consumer starts at the end: only records written after its assignment reach it)."""
    create_topic(bootstrap, topic, 1)
    producer = Producer({"bootstrap.servers": bootstrap, **producing})
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"group-{topic}", **consuming})
    try:
        consumer.subscribe([topic])
        started = time.monotonic()
        while time.monotonic() - started < FIRST_RECORD_WITHIN_S:
            producer.produce(topic, b"v")
            producer.poll(0)
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                return time.monotonic() - started
        raise AssertionError(f"the group consumer read nothing within {FIRST_RECORD_WITHIN_S} s")
    finally:
        consumer.close()
        producer.flush(10)


def test_a_group_consumer_with_the_printed_settings_reads_within_seconds_and_the_docs_list_them() -> None:
    proc = _start("--port", "0", "--cluster-id", "clients")
    out = _Output(proc)
    found: re.Match[str] | None = None
    try:
        out.wait_for("Ctrl-C stops it.", proc, 20)
        text = "".join(out.lines)
        found = re.search(r"^bootstrap\.servers=(\S+)$", text, re.M)
        assert found, text
        printed = _sections(out.lines)
        assert printed == _docs_sections(), "docs/brokers.md lists other settings than the command prints"
        _files, producing, consuming, group = printed
        assert "max.poll.interval.ms" in group, text
        took = _first_record_after(found.group(1), producing, {**consuming, **group}, "clients")
        print(f"first record {took:.1f} s after subscribe()")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        port = int(found.group(1).rsplit(":", 1)[1]) if found else 0
        for pid in _brokers_listening_on(port) if port else []:
            os.kill(pid, signal.SIGKILL)
