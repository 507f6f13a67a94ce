"""A broker killed -9 and restarted on its own log directory while a MirrorSourceConnector copies A -> B under
traffic, on two Apache Kafka 4.x clusters (pyconnect.testing.kafka_jvm; Tansu loses acknowledged writes across a
restart, so this could not be shown there).

The source broker (A) is killed in one case, the target (B, which is also the worker's own cluster) in the other;
each at-least-once and with exactly-once source support (KIP-618: records and offsets in one transaction).
The ground truth is what the broker acknowledged to an idempotent producer with acks=all
(tests/harness/acked_writer): none of it may be missing on B, and with exactly-once no copy may appear twice
to a read_committed consumer (Kafka serves the aborted-transaction lists itself here).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from pyconnect.testing.kafka_jvm import KafkaBroker
from tests.harness.acked_writer import AckedWriter
from tests.harness.connectors import all_running
from tests.harness.kafka_io import create_topic, read_to_end
from tests.harness.kafka_pair import kafka_pair
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, wait_for

EOS = {"exactly.once.source.support": "enabled"}
PARTITIONS, TASKS = 3, 2


def copies(bootstrap: str, topic: str) -> Counter[bytes]:
    """How often each value is in `topic`, as a read_committed consumer sees it (librdkafka's default isolation,
    which Apache Kafka serves with real aborted-transaction lists)."""
    return Counter(value or b"" for _p, _o, _k, value in read_to_end(bootstrap, topic))


def holds_all(bootstrap: str, topic: str, values: list[bytes]) -> Counter[bytes]:
    """The copies of `topic` once every one of `values` is among them; else an empty (falsy) Counter, for polling."""
    seen = copies(bootstrap, topic)
    return seen if all(v in seen for v in values) else Counter()


@pytest.fixture(scope="module")
def clusters() -> Iterator[tuple[KafkaBroker, KafkaBroker]]:
    with kafka_pair("restart") as pair:
        yield pair


def _acked_beyond(writer: AckedWriter, count: int) -> bool:
    return len(writer.acked) > count


def _kills(victim: KafkaBroker, writer: AckedWriter, times: int) -> tuple[str, list[float]]:
    """kill -9 and restart `victim` `times` times, each once 1000 more records were acknowledged; returns what was
    acknowledged and written at the first kill, and the seconds each restart took."""
    at_kill, restarts = "", []
    for _ in range(times):
        began = time.monotonic()
        victim.kill()
        at_kill = at_kill or f"{len(writer.acked)} acknowledged, {writer.produced} written at the first kill"
        victim.restart()
        restarts.append(round(time.monotonic() - began, 1))
        wait_for(partial(_acked_beyond, writer, len(writer.acked) + 1000), 120,
                 "1000 more records acknowledged after the restart")
    return at_kill, restarts


def _kill_mid_stream(clusters: tuple[KafkaBroker, KafkaBroker], victim_side: str, exactly_once: bool,
                     directory: Path, unique: str, kills: int = 1) -> None:
    a, b = clusters
    topic = f"orders-{unique}"
    create_topic(a.bootstrap, topic, PARTITIONS)
    cluster = Cluster(b, directory, f"restart-{unique}", EOS if exactly_once else {})
    writer = AckedWriter(a.client_settings(), topic)
    try:
        (w,) = cluster.start(1)
        config = mirror_source(a, b, {"topics": topic, "tasks.max": str(TASKS)})
        if exactly_once:
            config["source.consumer.isolation.level"] = "read_committed"
        assert w.request("POST", "/connectors", {"name": "ms", "config": config}).status_code == 201
        wait_for(lambda: all_running(w, "ms", TASKS), 60, "the mirror's tasks RUNNING")
        writer.start()
        wait_for(lambda: len(copies(b.bootstrap, f"A.{topic}")) > 1000, 60, "copies on B")
        victim = a if victim_side == "source" else b
        began = time.monotonic()
        at_kill, restarts = _kills(victim, writer, kills)
        writer.stop()
        assert writer.unflushed == 0 and not writer.failed, (writer.unflushed, writer.failed[:3], at_kill)
        seen: Counter[bytes] = wait_for(lambda: holds_all(b.bootstrap, f"A.{topic}", writer.acked), 180,
                                        "every acknowledged record on B", 1.0)
        caught_up = time.monotonic() - began
        wait_for(lambda: all_running(w, "ms", TASKS), 60, "the tasks RUNNING without an operator")
    finally:
        writer.stop()
        cluster.close()
    lost = [v for v in writer.acked if v not in seen]
    duplicated = sum(n - 1 for n in seen.values())
    mode = "exactly-once" if exactly_once else "at-least-once"
    print(f"\n{victim_side.upper()} BROKER kill -9 x{kills} ({mode}, Kafka {victim.version}): written (acknowledged) "
          f"{len(writer.acked)}, lost {len(lost)}, duplicated {duplicated}; {at_kill}; broker back in {restarts} s, "
          f"every record on B {caught_up:.1f} s after the first kill")
    assert not lost, f"lost {len(lost)}: {lost[:5]}"
    if exactly_once:
        assert duplicated == 0, f"{duplicated} duplicates: {[v for v, n in seen.items() if n > 1][:5]}"


@pytest.mark.parametrize("exactly_once", [False, True], ids=["at-least-once", "exactly-once"])
def test_source_broker_killed_mid_stream(clusters: tuple[KafkaBroker, KafkaBroker], exactly_once: bool,
                                         tmp_path: Path, unique: str) -> None:
    """A (the source) is killed -9 while the mirror copies and the producer writes; it restarts on the same log:
    the mirror resumes from its committed offsets, every acknowledged record reaches B (once, with exactly-once)."""
    _kill_mid_stream(clusters, "source", exactly_once, tmp_path, unique)


@pytest.mark.parametrize("exactly_once", [False, True], ids=["at-least-once", "exactly-once"])
def test_target_broker_killed_mid_stream(clusters: tuple[KafkaBroker, KafkaBroker], exactly_once: bool,
                                         tmp_path: Path, unique: str) -> None:
    """B (the target, and the worker's own cluster: configs, offsets, status, membership) is killed -9 mid-copy
    and restarts on the same log: the worker rejoins, the tasks resume, every acknowledged record is on B (once,
    with exactly-once: open transactions of the killed broker end aborted, never half-visible)."""
    _kill_mid_stream(clusters, "target", exactly_once, tmp_path, unique)


@pytest.mark.slow
@pytest.mark.parametrize("side", ["source", "target"])
def test_three_broker_kills_exactly_once(clusters: tuple[KafkaBroker, KafkaBroker], side: str, tmp_path: Path,
                                         unique: str) -> None:
    """The longer version: the same broker killed -9 three times under traffic, exactly-once: 0 lost, 0 duplicates."""
    _kill_mid_stream(clusters, side, True, tmp_path, unique, kills=3)
