"""How a MirrorSource task splits its partitions among fetch sessions, and the fetch defaults it applies
(connectors/mirror/fetch_pool.py and session_sizing.py; reading through the sessions is tests/test_wan.py,
on real brokers)."""

from __future__ import annotations

import pytest

from connectors.mirror.config import SOURCE, MirrorConfig
from connectors.mirror.fetch_pool import FETCH_BUDGET_KB, deal, fetch_defaults, split
from connectors.mirror.read_ahead_sessions import range_bytes, read_ahead_conf
from connectors.mirror.session_sizing import LAN_RTT, MAX_SESSIONS, auto_sessions, session_count
from pyconnect.api.config import ConfigException


def test_every_partition_goes_to_exactly_one_session() -> None:
    positions = [("t", p, 10 * p) for p in range(7)]
    shares = split(positions, 3)
    assert len(shares) == 3
    assert sorted(p for share in shares for p in share) == sorted(positions)


@pytest.mark.parametrize(("configured", "partitions", "rtt", "expected"), [
    (None, 1, 0.2, 16), (None, 1, 0.005, 1), (None, 1, 0.1, 8), (None, 4, 0.2, 16), (None, 4, 0.0005, 1),
    (None, 4, None, 1), (None, 0, 0.1, 1), (2, 25, 0.0, 2), (8, 3, 0.2, 3), (1, 25, 0.2, 1), (None, 4, 0.1, 8),
    (None, 25, 0.05, 4), (None, 25, 0.2, 16)])
def test_session_count_is_configured_or_sized_from_the_round_trip_and_auto_may_read_ahead(
        configured: int | None, partitions: int, rtt: float | None, expected: int) -> None:
    assert session_count(configured, partitions, rtt) == expected


def test_auto_sessions_keep_one_on_a_lan_and_grow_with_the_round_trip_within_the_bound() -> None:
    """The sizing rule (session_sizing.py): 1 below LAN_RTT, then one per 12.5 ms, 2..MAX_SESSIONS, whatever the
    partitions (more sessions than partitions read a partition ahead)."""
    assert auto_sessions(LAN_RTT * 0.99, 64) == 1
    assert auto_sessions(LAN_RTT, 64) == 2
    assert [auto_sessions(ms / 1000, 64) for ms in (20, 25, 26, 50, 51, 100, 150, 200, 1000)] == [
        2, 2, 3, 4, 5, 8, 12, 16, 16]
    counts = [auto_sessions(ms / 1000, 64) for ms in range(0, 1000)]
    assert counts == sorted(counts) and max(counts) == MAX_SESSIONS
    assert all(auto_sessions(ms / 1000, parts) == auto_sessions(ms / 1000, 64)
               for ms in range(0, 400, 7) for parts in range(1, 12))
    assert auto_sessions(0.2, 0) == 1


@pytest.mark.parametrize(("sessions", "partitions"), [(8, 1), (8, 3), (4, 4), (5, 2), (8, 7)])
def test_read_ahead_deals_the_sessions_evenly_over_the_partitions(sessions: int, partitions: int) -> None:
    counts = deal(sessions, partitions)
    assert sum(counts) == sessions and max(counts) - min(counts) <= 1 and min(counts) >= 1


@pytest.mark.parametrize("sessions", range(2, MAX_SESSIONS + 1))
def test_read_ahead_ranges_stay_within_the_fetch_budget(sessions: int) -> None:
    size = range_bytes(FETCH_BUDGET_KB, sessions)
    assert sessions * size <= FETCH_BUDGET_KB * 1024 and size >= 8 << 20
    conf = read_ahead_conf(size)
    assert int(conf["max.partition.fetch.bytes"]) <= size // 4
    assert sessions * int(conf["queued.max.messages.kbytes"]) <= FETCH_BUDGET_KB  # librdkafka's pre-fetch


@pytest.mark.parametrize("sessions", range(2, MAX_SESSIONS + 1))
def test_fetch_buffers_of_several_sessions_stay_within_the_budget(sessions: int) -> None:
    conf = fetch_defaults({}, sessions)
    per_session_kb = int(conf["queued.max.messages.kbytes"]) + int(conf["fetch.max.bytes"]) // 1024
    assert sessions * per_session_kb <= FETCH_BUDGET_KB
    assert int(conf["max.partition.fetch.bytes"]) <= int(conf["fetch.max.bytes"])


def test_fetch_defaults_stay_within_a_fetch_max_bytes_the_user_set() -> None:
    assert fetch_defaults({})["max.partition.fetch.bytes"] == "8388608"
    assert "queued.max.messages.kbytes" not in fetch_defaults({}, 1)
    assert fetch_defaults({"fetch.max.bytes": "1048576"})["max.partition.fetch.bytes"] == "1048576"
    assert fetch_defaults({"max.partition.fetch.bytes": "33554432"})["fetch.max.bytes"] == "33554432"


def base() -> dict[str, str]:
    return {"source.cluster.alias": "A", "target.cluster.alias": "B", "source.cluster.bootstrap.servers": "a:9092",
            "target.cluster.bootstrap.servers": "b:9092"}


def test_fetch_sessions_key_is_auto_by_default_validated_and_read() -> None:
    assert MirrorConfig(SOURCE, base())["fetch.sessions"] == "auto"
    assert MirrorConfig(SOURCE, {**base(), "fetch.sessions": "2"})["fetch.sessions"] == "2"
    for bad in ("0", "-1", "two", "1.5"):
        with pytest.raises(ConfigException, match="auto"):
            MirrorConfig(SOURCE, {**base(), "fetch.sessions": bad})
