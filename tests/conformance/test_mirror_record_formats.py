"""Ported from Kafka's OffsetSyncTest, CheckpointTest and HeartbeatTest (serde), with the bytes each
record has on the wire (compat-spec §C.4): a Java reader and ours read each other's records."""

from __future__ import annotations

import pytest

from connectors.mirror.formats import CONTIGUOUS_SINCE, Checkpoint, Heartbeat, OffsetSync


@pytest.mark.kafka("OffsetSyncTest.testSerde")
def test_offset_sync_serde() -> None:
    sync = OffsetSync("topic-1", 2, 3, 4)
    assert OffsetSync.decode(sync.key(), sync.value()) == sync
    assert sync.key() == b"\x00\x07topic-1" + b"\x00\x00\x00\x02"
    assert sync.value() == (3).to_bytes(8, "big") + (4).to_bytes(8, "big"), "no version header"


def test_offset_sync_link_travels_in_a_header_only() -> None:
    """Our link leaves Java's key and value bytes as they are; a reader without headers sees no link."""
    linked = OffsetSync("topic-1", 2, 30, 40, since=(3, 4))
    assert (linked.key(), linked.value()) == (OffsetSync("topic-1", 2, 30, 40).key(),
                                              OffsetSync("topic-1", 2, 30, 40).value())
    assert linked.headers() == [(CONTIGUOUS_SINCE, (3).to_bytes(8, "big") + (4).to_bytes(8, "big"))]
    assert OffsetSync.decode(linked.key(), linked.value(), linked.headers()).since == (3, 4)
    assert OffsetSync.decode(linked.key(), linked.value()).since is None
    assert OffsetSync.decode(linked.key(), linked.value(), [(CONTIGUOUS_SINCE, b"short")]).since is None


@pytest.mark.kafka("CheckpointTest.testSerde")
def test_checkpoint_serde() -> None:
    cp = Checkpoint("group-1", "topic-2", 3, 4, 5, "metadata-6")
    assert Checkpoint.decode(cp.key(), cp.value()) == cp
    assert cp.value()[:2] == b"\x00\x00", "version 0 first"
    assert cp.value()[-12:] == b"\x00\x0ametadata-6"


@pytest.mark.kafka("HeartbeatTest.testSerde")
def test_heartbeat_serde() -> None:
    hb = Heartbeat("source-1", "target-2", 1234567890)
    assert Heartbeat.decode(hb.key(), hb.value()) == hb
    assert hb.value() == b"\x00\x00" + (1234567890).to_bytes(8, "big")
