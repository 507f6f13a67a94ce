"""REST under load: 50 concurrent clients call status, config, list, tasks and pause/resume on
both workers of a cluster for DURATION seconds while it replicates A -> B with a MirrorSourceConnector.

No answer is 5xx; a 409 only as documented (docs/guides/rest-api.md: no leader known, or a conflicting rebalance),
counted and printed; every request is answered within 30 s; the connectors end RUNNING; every record lands.
Latency per endpoint (p50/p95/p99/max) is printed, and replication throughput in a window under load next
to a baseline window of the same length without it, in the same run.

The offered load is a steady rate of records produced (and counted on arrival) by a separate process
(harness/traffic.py), so the 50 client threads of this process slow neither. The pause/resume clients act on
a second connector (a SequenceSourceConnector on the workers' cluster), so that the throughput figure
measures what the REST load costs the mirror and not time spent paused. Latencies are measured by the client
threads of this process: on a busy 2-core machine they include this process's own GIL contention.

The default suite runs REPLIKAFKA_REST_LOAD_SECONDS (default 15) per window; `-m slow` runs the issue's 60 s."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pyconnect.environment import env_value
from rest.forwarding import CONFLICT, NO_LEADER
from tests.harness.brokers import Broker, start_broker
from tests.harness.connectors import all_running, sequence_connector
from tests.harness.kafka_io import create_topic, fetched_ends, read_to_end
from tests.harness.mirror import mirror_source
from tests.harness.rest_load import LoadReport, run_load
from tests.harness.traffic import Sample, Traffic
from tests.harness.workers import wait_for

CLIENTS, PAUSERS, PARTITIONS = 50, 3, 4
RATE_ENV = env_value("REST_LOAD_RATE")
DOCUMENTED_409 = {NO_LEADER, CONFLICT}


def _window(samples: list[Sample], start: float, end: float) -> tuple[float, int]:
    """Records/s arriving between the samples nearest `start` and `end`, and the largest lag seen between."""
    inside = [s for s in samples if start - 0.3 <= s.at <= end + 0.3]
    first, last = inside[0], inside[-1]
    return (last.arrived - first.arrived) / (last.at - first.at), max(s.produced - s.arrived for s in inside)


def _check_lossless(bootstrap: str, topic: str, sent: list[int]) -> int:
    """Every `<p>:<seq>` sent is on the target; returns the duplicates."""
    records = read_to_end(bootstrap, topic, timeout=120 + sum(sent) / 1000)  # ~19k records/s read here at best
    seen: dict[int, set[int]] = {p: set() for p in range(PARTITIONS)}
    for _part, _o, _k, value in records:
        p, seq = (value or b"").decode().split(":")
        seen[int(p)].add(int(seq))
    for p in range(PARTITIONS):
        assert seen[p] == set(range(sent[p])), f"partition {p}: lost {len(set(range(sent[p])) - seen[p])}"
    return len(records) - sum(sent)


def _check_sequence(bootstrap: str, topic: str) -> int:
    """The paused/resumed sequence connector skipped nothing: its values are 0..max without a gap."""
    values = {int((v or b"").decode().split(":")[1]) for _p, _o, _k, v in read_to_end(bootstrap, topic)}
    assert values and values == set(range(max(values) + 1)), "the paused/resumed connector skipped records"
    return len(values)


def _assert_answers(report: LoadReport) -> None:
    unanswered = [o for o in report.outcomes if o.status == 0]
    assert not unanswered, f"{len(unanswered)} request(s) unanswered, e.g. {unanswered[:3]}"
    server_errors = [o for o in report.outcomes if o.status >= 500]
    assert not server_errors, f"{len(server_errors)} 5xx answer(s), e.g. {server_errors[:3]}"
    conflicts = [o for o in report.outcomes if o.status == 409]
    for o in conflicts:
        print(f"409 {o.endpoint}: {o.message}")
    undocumented = [o for o in conflicts if not any(m in o.message for m in DOCUMENTED_409)]
    assert not undocumented, f"undocumented 409s: {undocumented[:3]}"
    other = [o for o in report.outcomes if o.status >= 400 and o.status != 409]
    assert not other, f"{len(other)} other error(s), e.g. {other[:3]}"


def _rest_under_load(broker: Broker, broker_b: Broker, cluster_factory: Any, unique: str, tmp_path: Path,
                     seconds: float, rate: float) -> None:
    topic, side_topic = f"rl-{unique}", f"rl-side-{unique}"
    create_topic(broker.bootstrap, topic, PARTITIONS)
    cluster = cluster_factory(on=broker_b)
    w0, w1 = cluster.start(2)
    mirror = {"name": "mirror", "config": mirror_source(broker, broker_b, {"topics": topic, "tasks.max": "2"})}
    assert w0.request("POST", "/connectors", mirror).status_code == 201
    assert w1.request("POST", "/connectors", sequence_connector("side", side_topic, 1, 0, 50)).status_code == 201
    wait_for(lambda: all_running(w0, "mirror", 2) and all_running(w0, "side", 1), 90, "both connectors RUNNING")
    traffic = Traffic(tmp_path, {"source": broker.bootstrap, "target": broker_b.bootstrap, "source_topic": topic,
                                 "target_topic": f"A.{topic}", "partitions": PARTITIONS, "rate": rate}).start()
    try:
        wait_for(lambda: (s := traffic.latest()) and s.arrived > rate and s.produced - s.arrived < rate, 90,
                 "replication keeping up")
        base_start = time.monotonic()
        time.sleep(seconds)  # the baseline window itself: nothing to poll for
        load_start = time.monotonic()
        report = run_load([w0.url, w1.url], ["mirror", "side"], "side", CLIENTS, PAUSERS, seconds)
        load_end = time.monotonic()
        time.sleep(0.5)  # one more progress sample past the window
        samples = traffic.samples()
    finally:
        sent = traffic.stop() if traffic.process and traffic.process.poll() is None else None
        traffic.kill()
    assert sent is not None, "the traffic process died"
    base_rate, base_lag = _window(samples, base_start, load_start)
    load_rate, load_lag = _window(samples, load_start, load_end)
    print(report.table())
    print(f"{len(report.outcomes)} requests in {seconds:.0f}s from {CLIENTS} clients "
          f"({len(report.outcomes) / seconds:.0f} req/s)")
    print(f"replication at {rate:.0f} rec/s offered: baseline {base_rate:.0f} rec/s (max lag {base_lag}), "
          f"under load {load_rate:.0f} rec/s (max lag {load_lag}), ratio {load_rate / base_rate:.2f}")
    _assert_answers(report)
    wait_for(lambda: all_running(w0, "mirror", 2) and all_running(w1, "side", 1), 60, "both connectors RUNNING")
    # The offered rate may exceed what the mirror carries (it does on Tansu here): the backlog drains at about
    # the baseline rate, so the wait for it scales with its size.
    backlog = sum(sent) - samples[-1].arrived
    # Polled by the target's end offsets: re-reading a topic of 250k one-record batches each time took longer
    # than a read's 30 s on Tansu, so the old wait could not see the last records arrive.
    wait_for(lambda: sum(fetched_ends(broker_b.bootstrap, f"A.{topic}").values()) >= sum(sent),
             120 + 2 * backlog / base_rate, "every record", interval=2)
    duplicates = _check_lossless(broker_b.bootstrap, f"A.{topic}", sent)
    side = _check_sequence(broker_b.bootstrap, side_topic)
    print(f"{sum(sent)} records mirrored, 0 lost, {duplicates} duplicate(s); paused/resumed connector: {side} "
          f"records, no gap")


SECONDS = float(env_value("REST_LOAD_SECONDS", "15"))


@pytest.fixture
def load_clusters() -> Iterator[tuple[Broker, Broker]]:
    """Two clusters of this test's own (fresh Tansu processes, or the external ones): by the time it runs, the
    session's brokers hold what every earlier test left on them, and this test measures a rate."""
    a, b = start_broker("A-load", 0), start_broker("B-load", 1)
    yield a, b
    a.stop()
    b.stop()


def test_rest_under_load(load_clusters: tuple[Broker, Broker], cluster_factory: Any, unique: str,
                         tmp_path: Path) -> None:
    """The default suite's version offers 500 rec/s, which the mirror carries even while a full CI run shares
    the machine (at 2,000 rec/s, above what it carries on Tansu here, the baseline never settled in CI)."""
    _rest_under_load(*load_clusters, cluster_factory, unique, tmp_path, SECONDS, float(RATE_ENV or 500))


@pytest.mark.slow
@pytest.mark.timeout(1200)  # two 60 s windows, then the backlog of an offered rate above capacity drains
def test_rest_under_load_sixty_seconds(load_clusters: tuple[Broker, Broker], cluster_factory: Any, unique: str,
                                       tmp_path: Path) -> None:
    _rest_under_load(*load_clusters, cluster_factory, unique, tmp_path,
                     float(env_value("REST_LOAD_SECONDS", "60")), float(RATE_ENV or 2000))
