"""The must-show for client error floods: the mirror clients of a cluster that is unreachable log a few
WARNING lines naming the cluster alias, the address and how many of librdkafka's lines each stands for, not
hundreds of identical ERROR lines; and the failure reason of a call to it names the alias and the address.

The clients are built as connectors/mirror builds them (MirrorConfig.client / admin), the source cluster at
a port nobody listens on, the target cluster a real broker (whose clients must log no trouble at all)."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator

import pytest

from connectors.mirror.config import SOURCE, MirrorConfig
from pyconnect.kafka.client_log import FOLD_INTERVAL_S, LOGGER, set_fold_interval
from pyconnect.kafka.clients import new_consumer, new_producer
from tests.harness.brokers import Broker, free_port

COUNTED = re.compile(r"\[(\d+) times?\b")


class Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def warnings() -> Iterator[Warnings]:
    """librdkafka's WARNING lines, whatever level an earlier test in this process left on its logger."""
    handler, level, disabled = Warnings(), LOGGER.level, logging.root.manager.disable
    LOGGER.addHandler(handler)
    LOGGER.setLevel(logging.WARNING)
    logging.disable(logging.NOTSET)
    yield handler
    LOGGER.removeHandler(handler)
    LOGGER.setLevel(level)
    logging.disable(disabled)


def unreachable_source(target: Broker, seconds: float) -> tuple[str, str]:
    """Poll a mirror's source consumer, source admin and target producer for `seconds` with the source
    cluster "A" unreachable; the source address and the reason a call to A failed with."""
    source = f"127.0.0.1:{free_port()}"
    cfg = MirrorConfig(SOURCE, {"name": "badsrc", "source.cluster.alias": "A", "target.cluster.alias": "B",
                                "source.cluster.bootstrap.servers": source,
                                "target.cluster.bootstrap.servers": target.bootstrap})
    consumer = new_consumer({**cfg.client("source", "consumer"), "client.id": "A->B|MirrorSourceConnector|0"})
    producer = new_producer({"acks": "all", **cfg.client("target", "producer")})
    admin = cfg.admin("source")
    deadline = time.monotonic() + seconds
    try:
        admin.topic_configs("anything", timeout=2)
        reason = "answered"
    except TimeoutError as exc:
        reason = str(exc)
    try:
        while time.monotonic() < deadline:  # the scenario's length, not a wait for a condition
            consumer.poll(0.1)
            producer.poll(0.1)
            admin.client.poll(0.1)
    finally:
        consumer.close()
        producer.flush(0)
    return source, reason


def check(lines: list[str], source: str, target: Broker, at_most: int) -> list[int]:
    """The counts of the WARNING lines about A, after checking each names alias, address and count."""
    assert not [line for line in lines if target.bootstrap in line or "cluster B" in line], lines
    about_a = [line for line in lines if source in line]
    assert 1 <= len(about_a) <= at_most, about_a
    assert len(about_a) == len(lines), f"other lines: {lines}"
    for line in about_a:
        assert line.startswith(f"cluster A ({source}): ") and COUNTED.search(line), line
    return [int(COUNTED.search(line).group(1)) for line in about_a]  # type: ignore[union-attr]


def test_an_unreachable_cluster_logs_a_few_counted_warnings_naming_alias_and_address(
        broker: Broker, warnings: Warnings) -> None:
    previous = set_fold_interval(5.0)
    try:
        source, reason = unreachable_source(broker, 15.0)
    finally:
        set_fold_interval(previous)
    assert reason == f"no answer from cluster A ({source}) within 2s"
    counts = check(warnings.lines, source, broker, at_most=4)  # at 0 s, then at most once per 5 s
    print(f"{len(counts)} warning lines stand for {sum(counts)} librdkafka lines: {counts}")
    assert sum(counts) > 10 * len(counts), "librdkafka did not repeat itself: nothing was folded"


@pytest.mark.slow
def test_a_minute_unreachable_logs_at_most_two_warnings_at_the_default_interval(
        broker: Broker, warnings: Warnings) -> None:
    assert FOLD_INTERVAL_S == 60.0
    source, _ = unreachable_source(broker, 60.0)
    counts = check(warnings.lines, source, broker, at_most=2)
    print(f"{len(counts)} warning lines stand for {sum(counts)} librdkafka lines: {counts}")
