"""Ported from Kafka's OffsetSyncStoreTest, plus the translation divergences.

Java's store keeps 64 exponentially spaced syncs and rounds down to the nearest; ours keeps every sync
(up to 100,000 per partition) and is exact between syncs one writer linked (invariant B of
connectors.mirror.offset_sync_store). Where that makes our answer more precise, the port asserts
ours and that it is never below Java's answer nor past the true position.
"""

from __future__ import annotations

import pytest

from connectors.mirror.formats import OffsetSync
from connectors.mirror.offset_sync_store import OffsetSyncStore

TP = ("topic1", 2)


def sync(store: OffsetSyncStore, up: int, down: int, since: tuple[int, int] | None = None) -> None:
    store.add(OffsetSync(*TP, up, down, since))


def translate(store: OffsetSyncStore, up: int) -> int | None:
    return store.translate(*TP, up)


def started() -> OffsetSyncStore:
    store = OffsetSyncStore()
    store.start()
    return store


@pytest.mark.kafka("OffsetSyncStoreTest.testOffsetTranslation")
def test_offset_translation() -> None:
    store = started()
    sync(store, 100, 200)
    assert translate(store, 150) == 201, "past a sync without dead-reckoning"
    sync(store, 150, 251)
    assert translate(store, 150) == 251, "exact offsets"
    assert translate(store, 5) == -1, "before any sync: cannot translate"
    sync(store, 200, 10)
    assert translate(store, 200) == 10, "downstream offsets reset"
    sync(store, 20, 20)
    assert translate(store, 20) == 20, "upstream offsets reset"


@pytest.mark.kafka("OffsetSyncStoreTest.testNoTranslationIfStoreNotStarted")
def test_no_translation_if_store_not_started() -> None:
    store = OffsetSyncStore()
    assert [translate(store, g) for g in (0, 100, 200)] == [None, None, None]
    sync(store, 100, 200)  # read during start-up
    assert [translate(store, g) for g in (0, 100, 200)] == [None, None, None]
    store.start()
    assert [translate(store, g) for g in (0, 100, 200)] == [-1, 200, 201]


@pytest.mark.kafka("OffsetSyncStoreTest.testNoTranslationIfNoOffsetSync")
def test_no_translation_if_no_offset_sync() -> None:
    assert translate(started(), 0) is None


@pytest.mark.kafka("OffsetSyncStoreTest.testPastOffsetTranslation")
def test_past_offset_translation() -> None:
    """Java-style syncs every 10 offsets (no links): each offset translates one past the sync before
    it, at every age (Java's sparse store degrades with age: e.g. 4839 -> 1001 there, 4831 here)."""
    store = OffsetSyncStore()
    for offset in range(0, 1001, 10):
        sync(store, offset, offset)
    store.start()
    for offset in range(1010, 10001, 10):
        sync(store, offset, offset)
    for s in (1000, 4840, 6760, 8680, 9160, 9640, 9880, 9940, 9970, 9990, 10000):
        assert translate(store, s - 1) == s - 10 + 1
        assert translate(store, s) == s
        assert translate(store, s + 1) == s + 1
        assert translate(store, s + 2) == s + 1
    sync(store, 1500, 11000)  # upstream rewind: a restarted writer re-copies from 1500
    assert translate(store, 1500) == 11000 and translate(store, 2000) == 11001
    # Java forgets every older sync here and answers -1; ours keeps the syncs below the rewind, which
    # still describe records copied before it (invariant C): an answer that never skips.
    assert translate(store, 1499) == 1491


@pytest.mark.kafka("OffsetSyncStoreTest.testKeepMostDistinctSyncs")
def test_keep_most_distinct_syncs() -> None:
    """Each new sync expires at most one other, the latest and (while it fits) the earliest stay."""
    for step in (1, 3, 7, 15, 31):
        store = OffsetSyncStore(max_per_partition=64)
        store.start()
        last = 0
        for offset in range(0, 64 * 3 * step, step):
            sync(store, offset, offset)
            count = store.size(*TP)
            assert count >= last, f"expired more than one sync at {offset}"
            assert translate(store, offset) == offset, "the latest sync is present"
            last = count
        assert store.size(*TP) == 64


def test_position_inside_an_upstream_gap_never_passes_the_next_sync() -> None:
    """1a: upstream 10..14 then 20..24 copied to 0..9 (our writer links the syncs)."""
    store = started()
    sync(store, 10, 0)
    sync(store, 20, 5, since=(10, 0))
    assert [translate(store, g) for g in range(10, 21)] == [0, 1, 2, 3, 4, 5, 5, 5, 5, 5, 5]


def test_unlinked_syncs_translate_conservatively() -> None:
    """1b: Java's writer merges syncs, so (0->0) then (250->200) says nothing about 160."""
    store = started()
    sync(store, 0, 0)
    sync(store, 250, 200)
    assert translate(store, 160) == 1, "as Java: one past the sync before"
    sync(store, 300, 250, since=(250, 200))
    assert translate(store, 260) == 210, "linked: exact"


def test_a_link_to_a_sync_that_is_not_the_previous_one_is_ignored() -> None:
    """Interleaved writers or compaction: a sync whose predecessor is not the stored one is unlinked."""
    store = started()
    sync(store, 0, 0)
    sync(store, 50, 60)  # another writer's sync in between
    sync(store, 100, 110, since=(0, 0))
    assert translate(store, 70) == 61
