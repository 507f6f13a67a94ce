"""FileLog, the standalone worker's offsets file: replay, compaction, torn tails, fsync'd flushes, locking.

The durability contract follows Connect's FileOffsetBackingStore (FileOffsetBackingStoreTest.testSaveRestore:
what a flush saved is what a new store reads); the format is this project's (see file_log's docstring).
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyconnect.storage import file_log
from pyconnect.storage.file_log import HEADER, FileLog, FileLogError, compacted, encode_line, read_records
from pyconnect.storage.offset_store import OffsetStore
from tests.hypothesis_profiles import examples

SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))

keys = st.one_of(st.binary(min_size=1, max_size=12), st.text(min_size=1, max_size=8).map(str.encode))
values = st.one_of(st.none(), st.binary(max_size=16), st.text(max_size=12).map(str.encode))
records = st.lists(st.tuples(st.integers(0, 2), keys, values), max_size=30)

Record = tuple[int, bytes, bytes | None]


class Reader:
    """A log's reader: what it was handed, by (partition, key)."""

    def __init__(self) -> None:
        self.seen: dict[tuple[int, bytes], bytes] = {}
        self.count = 0

    def __call__(self, key: bytes | None, value: bytes | None, partition: int, _offset: int) -> None:
        assert key is not None
        self.count += 1
        self.seen.pop((partition, key), None)
        if value is not None:
            self.seen[(partition, key)] = value


def write(path: Path, batch: list[Record]) -> None:
    log = FileLog(path, 3)
    log.start(Reader())
    for partition, key, value in batch:
        log.send(key, value, partition)
    log.flush(10)
    log.stop()


def replay(path: Path) -> dict[tuple[int, bytes], bytes]:
    reader = Reader()
    log = FileLog(path, 3)
    log.start(reader)
    log.stop()
    return reader.seen


@SETTINGS
@given(first=records, second=records)
def test_replay_gives_the_last_value_of_every_key(first: list[Record], second: list[Record]) -> None:
    """FileOffsetBackingStoreTest.testSaveRestore, over two runs of the log."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "offsets"
        write(path, first)
        write(path, second)
        assert replay(path) == compacted(first + second)
        # The start compacts: the file holds one line per live key.
        assert len(path.read_bytes().splitlines()) == 1 + len(compacted(first + second))


@SETTINGS
@given(batch=records.filter(bool), data=st.data())
def test_a_torn_tail_loses_only_the_cut_record(batch: list[Record], data: st.DataObject) -> None:
    """A crash mid-write leaves a prefix of the file: every whole line is read, the cut one is ignored."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "offsets"
        lines = [encode_line(r) for r in batch]
        whole = HEADER + b"".join(lines)
        cut = data.draw(st.integers(0, len(whole)))
        path.write_bytes(whole[:cut])
        complete = sum(1 for end in _line_ends(lines) if end <= cut)
        assert replay(path) == compacted(batch[:complete])
        # The start rewrote the file without the torn line: appending after it is safe.
        assert replay(path) == compacted(batch[:complete])


def _line_ends(lines: list[bytes]) -> list[int]:
    ends, end = [], len(HEADER)
    for line in lines:
        end += len(line)
        ends.append(end)
    return ends


def test_a_damaged_line_followed_by_good_ones_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "offsets"
    good = encode_line((0, b"k", b"v"))
    path.write_bytes(HEADER + good + good.replace(b"v", b"w", 1) + good)
    with pytest.raises(FileLogError, match=rf"{path}:3: corrupt record \(checksum mismatch\)"):
        read_records(path)


def test_a_damaged_last_line_is_dropped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "offsets"
    path.write_bytes(HEADER + encode_line((0, b"a", b"1")) + b"\x00" * 20 + b"\n")
    assert read_records(path) == [(0, b"a", b"1")]
    assert "damaged last record" in caplog.text


def test_not_an_offsets_file(tmp_path: Path) -> None:
    path = tmp_path / "offsets"
    path.write_bytes(b"\xac\xed\x00\x05sr\x00\x11java.util.HashMap")  # Connect's Java-serialized file
    with pytest.raises(FileLogError, match="not a pyconnect offsets file"):
        FileLog(path).start(Reader())


def test_flush_returns_after_fsync_and_futures_complete_then(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A record's future completes only once its line is fsynced; flush() waits for that."""
    path = tmp_path / "offsets"
    log = FileLog(path)
    reader = Reader()
    log.start(reader)
    synced: list[bytes] = []
    gate = threading.Event()
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        gate.wait(10)
        real_fsync(fd)
        synced.append(path.read_bytes())
    monkeypatch.setattr(os, "fsync", fsync)
    future = log.send(b"k", b"v", 0)
    with pytest.raises(TimeoutError):
        log.flush(0.2)
    assert not future.done() and reader.count == 0, "neither done nor read before the fsync"
    gate.set()
    log.flush(10)
    assert future.done() and future.exception() is None
    assert synced and synced[-1].endswith(encode_line((0, b"k", b"v")))
    assert reader.seen == {(0, b"k"): b"v"}
    log.stop()


def test_a_failed_write_fails_its_futures_and_is_cut_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "offsets"
    log = FileLog(path)
    log.start(Reader())
    calls = {"n": 0}
    real_fsync = os.fsync

    def failing_once(fd: int) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise OSError(28, "No space left on device")
        real_fsync(fd)
    monkeypatch.setattr(os, "fsync", failing_once)
    lost = log.send(b"a", b"1", 0)
    log.flush(10)
    assert isinstance(lost.exception(), FileLogError)
    kept = log.send(b"b", b"2", 0)
    log.flush(10)
    assert kept.exception() is None
    log.stop()
    assert read_records(path) == [(0, b"b", b"2")]


def test_the_log_compacts_while_it_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_log, "COMPACT_SLACK", 10)
    path = tmp_path / "offsets"
    log = FileLog(path)
    log.start(Reader())
    for i in range(50):
        log.send(b"k%d" % (i % 2), b"%d" % i, 0)
        log.flush(10)
    assert len(path.read_bytes().splitlines()) <= 1 + 10
    log.stop()
    assert replay(path) == {(0, b"k0"): b"48", (0, b"k1"): b"49"}


def test_one_process_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "offsets"
    first = FileLog(path)
    first.start(Reader())
    with pytest.raises(FileLogError, match="in use by another process"):
        FileLog(path).start(Reader())
    first.stop()
    second = FileLog(path)
    second.start(Reader())
    second.stop()


def test_offset_store_over_a_file_log(tmp_path: Path) -> None:
    """What the standalone worker does: source offsets written, flushed, read back by the next run."""
    store = OffsetStore(FileLog(tmp_path / "offsets", 25))
    store.start()
    for fut in store.put("conn", [({"task": 0}, {"seq": 41}), ({"task": 1}, {"seq": 7})]):
        store.flush(10)
        fut.result(1)
    store.put("conn", [({"task": 1}, None)])
    store.stop()  # writes what is queued
    again = OffsetStore(FileLog(tmp_path / "offsets", 25))
    again.start()
    assert again.get("conn", {"task": 0}) == {"seq": 41}
    assert again.get("conn", {"task": 1}) is None
    again.stop()


def test_send_after_stop_fails(tmp_path: Path) -> None:
    log = FileLog(tmp_path / "offsets")
    log.start(Reader())
    log.stop()
    assert isinstance(log.send(b"k", b"v").exception(), FileLogError)
