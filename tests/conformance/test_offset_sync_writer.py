"""Ported from Kafka's OffsetSyncWriterTest.

Java queues a sync as `pending` and sends it when an in-flight slot is free (merging syncs it could
not send); ours sends every due sync at once and never merges. Held-back ("delayed") syncs are
promoted and sent on commit in both.
"""

from __future__ import annotations

import pytest

from connectors.mirror.formats import OffsetSync
from connectors.mirror.offset_sync_writer import OffsetSyncWriter


def writer(max_lag: int) -> tuple[OffsetSyncWriter, list[OffsetSync]]:
    sent: list[OffsetSync] = []
    return OffsetSyncWriter(sent.append, max_lag), sent


def pairs(sent: list[OffsetSync]) -> list[tuple[int, int]]:
    return [(s.upstream_offset, s.downstream_offset) for s in sent]


@pytest.mark.kafka("OffsetSyncWriterTest.testMaybeQueueOffsetSyncs")
def test_maybe_queue_offset_syncs() -> None:
    w, sent = writer(max_lag=2)
    w.record("topic", 0, 0, 1)
    assert pairs(sent) == [(0, 1)], "the first sync is due at once, not delayed"
    w.record("topic", 0, 1, 2)
    assert pairs(sent) == [(0, 1)], "the next one is delayed (held back)"
    w.flush_pending()
    assert pairs(sent) == [(0, 1), (1, 2)]


@pytest.mark.kafka("OffsetSyncWriterTest.testFirePendingOffsetSyncs")
def test_fire_pending_offset_syncs() -> None:
    w, sent = writer(max_lag=1)
    w.record("topic", 0, 0, 100)
    w.flush_pending()
    assert pairs(sent) == [(0, 100)], "dispatched once; nothing pending is sent twice"
    w.record("topic", 0, 2, 102)
    # Java holds this one while the first is in flight (one slot); we send it: never merged, never lost.
    assert pairs(sent) == [(0, 100), (2, 102)]
    assert sent[1].since == (0, 100), "it continues the previous sync of this writer"


@pytest.mark.kafka("OffsetSyncWriterTest.testPromoteDelayedOffsetSyncs")
def test_promote_delayed_offset_syncs() -> None:
    w, sent = writer(max_lag=50)
    w.record("topic", 0, 0, 100)
    w.record("topic", 0, 1, 101)
    w.flush_pending()
    assert pairs(sent) == [(0, 100), (1, 101)]
    assert sent[0].since is None and sent[1].since == (0, 100)
