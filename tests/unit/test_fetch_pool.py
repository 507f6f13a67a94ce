"""How a MirrorSource task splits its partitions among fetch sessions, and the fetch defaults it applies
(connectors/mirror/fetch_pool.py; reading through the sessions is tests/test_wan.py, on real brokers)."""

from __future__ import annotations

import pytest

from connectors.mirror.config import SOURCE, MirrorConfig
from connectors.mirror.fetch_pool import AUTO_SESSIONS, fetch_defaults, session_count, split
from pyconnect.api.config import ConfigException


def test_every_partition_goes_to_exactly_one_session() -> None:
    positions = [("t", p, 10 * p) for p in range(7)]
    shares = split(positions, 3)
    assert len(shares) == 3
    assert sorted(p for share in shares for p in share) == sorted(positions)


@pytest.mark.parametrize(("configured", "partitions", "expected"), [
    (None, 1, 1), (None, 4, min(4, AUTO_SESSIONS)), (None, 25, AUTO_SESSIONS), (None, 0, 1), (2, 25, 2), (8, 3, 3),
    (1, 25, 1)])
def test_session_count_is_automatic_or_configured_and_never_above_the_partitions(
        configured: int | None, partitions: int, expected: int) -> None:
    assert session_count(configured, partitions) == expected


def test_fetch_defaults_stay_within_a_fetch_max_bytes_the_user_set() -> None:
    assert fetch_defaults({})["max.partition.fetch.bytes"] == "8388608"
    assert "queued.max.messages.kbytes" not in fetch_defaults({}, 1)
    assert fetch_defaults({"fetch.max.bytes": "1048576"})["max.partition.fetch.bytes"] == "1048576"
    assert fetch_defaults({"max.partition.fetch.bytes": "33554432"})["fetch.max.bytes"] == "33554432"


def base() -> dict[str, str]:
    return {"source.cluster.alias": "A", "target.cluster.alias": "B", "source.cluster.bootstrap.servers": "a:9092",
            "target.cluster.bootstrap.servers": "b:9092"}


def test_fetch_sessions_key_is_validated_and_read() -> None:
    assert MirrorConfig(SOURCE, base())["fetch.sessions"] is None
    assert MirrorConfig(SOURCE, {**base(), "fetch.sessions": "2"})["fetch.sessions"] == 2
    with pytest.raises(ConfigException):
        MirrorConfig(SOURCE, {**base(), "fetch.sessions": "0"})
