"""Folding of librdkafka's repeated lines (pyconnect/kafka/log_folding.py, client_log.py): the folder's
invariants over any timing, with an injected clock, and librdkafka-shaped lines through a client's log."""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyconnect.kafka.client_log import LOGGER, ClientLog
from pyconnect.kafka.cluster_labels import WORKER_CLUSTER, alias_label, label_cluster
from pyconnect.kafka.log_folding import LogFolder, Report
from tests.harness.clock import FakeClock
from tests.hypothesis_profiles import examples

INTERVAL = 5.0


events = st.lists(st.tuples(st.floats(0, 3 * INTERVAL, allow_nan=False), st.sampled_from("abc")), max_size=200)


@settings(max_examples=examples(2_000))
@given(events)
def test_each_key_is_reported_first_at_once_then_at_most_once_per_interval_with_every_occurrence_counted(
        steps: list[tuple[float, str]]) -> None:
    clock = FakeClock()
    folder = LogFolder(INTERVAL, clock.monotonic)
    reports: dict[str, list[tuple[float, Report]]] = {}
    offered: Counter[str] = Counter()
    for delta, key in steps:
        clock.advance(delta)
        offered[key] += 1
        report = folder.offer(key)
        if report is not None:
            reports.setdefault(key, []).append((clock.monotonic(), report))
        assert (report is not None and report.first) == (offered[key] == 1)
    clock.advance(INTERVAL + 1)  # one more occurrence of each key closes its open window
    for key in offered:
        final = folder.offer(key)
        assert final is not None
        reports[key].append((clock.monotonic(), final))
    for key, made in reports.items():
        times = [at for at, _ in made]
        assert all(b - a >= INTERVAL for a, b in zip(times, times[1:], strict=False)), "two reports within an interval"
        assert sum(r.count for _, r in made) == offered[key] + 1, "an occurrence lost or counted twice"
        assert all(r.seconds == b - a for (a, _), (b, r) in zip(made, made[1:], strict=False))


def test_memory_is_bounded_by_forgetting_the_key_seen_longest_ago() -> None:
    folder = LogFolder(INTERVAL, FakeClock().monotonic, max_keys=2)
    assert folder.offer("a") and folder.offer("b")
    assert folder.offer("a") is None  # "a" is now the most recent
    assert folder.offer("c") is not None  # forgets "b"
    assert folder.offer("a") is None
    report = folder.offer("b")
    assert report is not None and report.first


class Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def at(self, level: int) -> list[str]:
        return [r.getMessage() for r in self.records if r.levelno == level]


@pytest.fixture
def captured() -> Iterator[Captured]:
    handler, level = Captured(), LOGGER.level
    LOGGER.addHandler(handler)
    LOGGER.setLevel(logging.DEBUG)
    yield handler
    LOGGER.removeHandler(handler)
    LOGGER.setLevel(level)


def refused(port: int, after_ms: int, broker: str = "bootstrap") -> tuple[str, str, str, str]:
    """The arguments librdkafka gives its logger for one refused connection."""
    where = f"127.0.0.1:{port}/{broker}"
    return ("%s [%s] %s", "FAIL", "rdkafka#consumer-1",
            f"[thrd:{where}]: {where}: Connect to ipv4#127.0.0.1:{port} failed: Connection refused "
            f"(after {after_ms}ms in state CONNECT)")


def test_a_flood_of_refused_connections_becomes_a_few_warnings_naming_alias_address_and_count(
        captured: Captured) -> None:
    clock = FakeClock()
    folder = LogFolder(INTERVAL, clock.monotonic)
    label_cluster("127.0.0.1:19001", alias_label("A"))
    client = ClientLog("127.0.0.1:19001", folder)
    for i in range(1500):  # 15 s of a line every 10 ms, as a consumer of a cluster that is down logs them
        clock.advance(0.01)
        client.log(logging.ERROR, *refused(19001, i % 3))
    warnings = captured.at(logging.WARNING)
    assert 3 <= len(warnings) <= 4, warnings
    for line in warnings:
        assert line.startswith("cluster A (127.0.0.1:19001): Connect to ipv4#127.0.0.1:19001 failed: "
                               "Connection refused ["), line
    counts = [int(re.search(r"\[(\d+) times?\b", line).group(1)) for line in warnings]  # type: ignore[union-attr]
    assert counts[0] == 1 and all(c >= 400 for c in counts[1:]), counts
    assert len(captured.at(logging.DEBUG)) == 1500, "each line stays available at DEBUG"
    assert not captured.at(logging.ERROR)


def test_lines_name_the_worker_cluster_or_the_broker_the_line_names(captured: Captured) -> None:
    folder = LogFolder(INTERVAL, FakeClock().monotonic)
    label_cluster("127.0.0.1:19002", WORKER_CLUSTER)
    ClientLog("127.0.0.1:19002", folder).log(logging.ERROR, *refused(19003, 0, broker="3"))
    ClientLog("127.0.0.1:19004", folder).log(logging.WARNING, "%s [%s] %s", "ERROR", "rdkafka#producer-2",
                                             "1/1 brokers are down")
    assert captured.at(logging.WARNING)[0].startswith("the worker's cluster (127.0.0.1:19003): Connect to ")
    assert captured.at(logging.WARNING)[1].startswith("the cluster (127.0.0.1:19004): 1/1 brokers are down [1 time")


def test_routine_lines_pass_unchanged_and_the_known_config_warning_is_dropped(captured: Captured) -> None:
    client = ClientLog("127.0.0.1:19005", LogFolder(INTERVAL, FakeClock().monotonic))
    client.log(logging.DEBUG, "%s [%s] %s", "SEND", "rdkafka#producer-1", "Sent ProduceRequest (v7, 1000 bytes)")
    client.log(logging.WARNING, "%s [%s] %s", "CONFWARN", "rdkafka#producer-1",
               "[thrd:app]: Configuration property enable.gapless.guarantee is experimental")
    assert [r.getMessage() for r in captured.records] == [
        "SEND [rdkafka#producer-1] Sent ProduceRequest (v7, 1000 bytes)"]
