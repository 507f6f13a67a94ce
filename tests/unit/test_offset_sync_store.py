from __future__ import annotations

from connectors.mirror.formats import OffsetSync
from connectors.mirror.offset_sync_store import OffsetSyncStore


def store(*syncs: tuple[int, int]) -> OffsetSyncStore:
    s = OffsetSyncStore()
    for up, down in syncs:
        s.add(OffsetSync("t", 0, up, down))
    return s


def test_exact_inside_runs_and_conservative_past_the_newest_sync() -> None:
    s = store((0, 10), (100, 110), (105, 200))  # a downstream jump at upstream 105
    assert s.translate("t", 0, 0) == 10
    assert s.translate("t", 0, 57) == 67, "inside a run: exact"
    assert s.translate("t", 0, 104) == 114
    assert s.translate("t", 0, 105) == 200
    assert s.translate("t", 0, 106) == 201, "one past the newest sync: still exact"
    assert s.translate("t", 0, 150) == 201, "further: conservative, never past the true position"
    assert s.translate("t", 1, 5) is None and s.translate("x", 0, 5) is None


def test_nothing_below_the_oldest_sync() -> None:
    assert store((50, 60)).translate("t", 0, 49) is None


def test_a_rewind_supersedes_the_older_run() -> None:
    s = store((0, 0), (100, 100), (200, 200))
    s.add(OffsetSync("t", 0, 150, 260))  # a restarted task re-sent from 150: duplicates downstream
    assert s.translate("t", 0, 120) == 120, "below the rewind the old run still maps exactly"
    assert s.translate("t", 0, 150) == 260 and s.translate("t", 0, 151) == 261
    assert s.size("t", 0) == 3


def test_bounded() -> None:
    s = OffsetSyncStore(max_per_partition=3)
    for i in range(10):
        s.add(OffsetSync("t", 0, i * 10, i * 10))
    assert s.size("t", 0) == 3 and s.translate("t", 0, 5) is None and s.translate("t", 0, 95) == 91
