"""A Log kept in one local file: a standalone worker's source offsets (Connect's FileOffsetBackingStore).

Connect's file is a Java-serialized HashMap rewritten whole on every flush. Ours is not byte-compatible;
it is an append-only log, compacted when it starts and whenever it has grown well past its live records:

    pyconnect-file-log 1                 <- first line: format name and version
    <crc> {"p":0,"k":KEY,"v":VALUE}      <- one record a line, in write order
    ...

`<crc>` is the CRC-32 of the JSON text as 8 lowercase hex digits. KEY and VALUE are the record's bytes
as a JSON string when they are UTF-8 (offsets are: Connect's JSON keys and values), else
`{"base64": "..."}`; VALUE is `null` for a tombstone. `p` is the partition the record was sent to.
The last record of a key is its value; a tombstone removes the key.

Durability: `send` queues a record; a writer thread appends what is queued, flushes and fsyncs the file,
then completes the records' futures and hands them to the reader (as a KafkaLog hands a record on once
the broker has it). `flush` waits for that. After a kill -9, every record whose future completed is in
the file; what was only queued is lost. A torn last line (a crash mid-write) is ignored when the file
is read; a bad line followed by good ones is corruption and stops the start with an error naming the
line. Compaction writes a temporary file next to the log, fsyncs it, renames it over the log and
fsyncs the directory, so a crash leaves either the old or the new file. One process at a time: a
lock on `<file>.lock` is held while the log is started.
"""

from __future__ import annotations

import base64
import binascii
import fcntl
import logging
import os
import threading
import zlib
from concurrent.futures import Future
from pathlib import Path
from typing import IO, Any

import orjson

from pyconnect.kafka.topic_log import RecordCallback
from pyconnect.logging_context import context_thread

log = logging.getLogger(__name__)

HEADER = b"pyconnect-file-log 1\n"
# Compact once the file holds this many more lines than live keys (and at least this many).
COMPACT_SLACK = 1000

Record = tuple[int, bytes, bytes | None]  # partition, key, value (None: tombstone)


class FileLogError(Exception):
    """The log's file cannot be used (unreadable, corrupt, or in use by another process)."""


def _to_json(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def _from_json(value: Any) -> bytes | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, dict) and isinstance(value.get("base64"), str):
        return base64.b64decode(value["base64"], validate=True)
    raise ValueError(f"not a key or value: {value!r}")


def encode_line(record: Record) -> bytes:
    """One record as a line of the file (newline included)."""
    partition, key, value = record
    payload = orjson.dumps({"p": partition, "k": _to_json(key), "v": _to_json(value)})
    return b"%08x %s\n" % (zlib.crc32(payload), payload)


def decode_line(line: bytes) -> Record:
    """The record of one line (without its newline); ValueError if the line is not a whole record."""
    crc, _, payload = line.partition(b" ")
    if len(crc) != 8 or int(crc, 16) != zlib.crc32(payload):
        raise ValueError("checksum mismatch")
    fields = orjson.loads(payload)
    partition, key = fields["p"], _from_json(fields["k"])
    if not isinstance(partition, int) or key is None:
        raise ValueError("bad partition or key")
    return partition, key, _from_json(fields["v"])


def read_records(path: Path) -> list[Record]:
    """Every record of the file in order (none if it does not exist); a torn last line is dropped."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    if not data:
        return []
    if not data.startswith(HEADER):
        if HEADER.startswith(data):  # a crash while the first line was written
            return []
        raise FileLogError(f"{path}:1: not a pyconnect offsets file (expected {HEADER.strip().decode()!r})")
    lines = data[len(HEADER):].split(b"\n")
    if lines[-1]:
        log.warning("%s: ignoring a torn last line (%d bytes): a write was cut short", path, len(lines[-1]))
    records: list[Record] = []
    bad: tuple[int, str] | None = None
    for number, line in enumerate(lines[:-1], start=2):
        try:
            record = decode_line(line)
        except (ValueError, KeyError, TypeError, binascii.Error, orjson.JSONDecodeError) as exc:
            bad = bad or (number, str(exc))
            continue
        if bad is not None:
            raise FileLogError(f"{path}:{bad[0]}: corrupt record ({bad[1]}) followed by good ones")
        records.append(record)
    if bad is not None:
        log.warning("%s:%d: ignoring a damaged last record (%s): a write was cut short", path, bad[0], bad[1])
    return records


def compacted(records: list[Record]) -> dict[tuple[int, bytes], bytes]:
    """The live value of each (partition, key), in the order keys were last written."""
    live: dict[tuple[int, bytes], bytes] = {}
    for partition, key, value in records:
        live.pop((partition, key), None)
        if value is not None:
            live[(partition, key)] = value
    return live


def write_atomically(path: Path, live: dict[tuple[int, bytes], bytes]) -> None:
    """Replace the file with exactly `live`'s records: written to a temporary file, fsynced, renamed."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as out:
        out.write(HEADER)
        out.writelines(encode_line((p, k, v)) for (p, k), v in live.items())
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class FileLog:
    """A Log over one local file (see the module docstring for its format and durability)."""

    def __init__(self, path: str | Path, partitions: int = 1) -> None:
        self.path = Path(path)
        self._partitions = partitions
        self._cond = threading.Condition()
        self._queue: list[tuple[Record, Future[None]]] = []
        self._sent = 0  # records queued so far; _done: records written (or failed) so far
        self._done = 0
        self._live: dict[tuple[int, bytes], bytes] = {}
        self._lines = 0  # records in the file
        self._offsets: dict[int, int] = {}
        self._callback: RecordCallback | None = None
        self._file: IO[bytes] | None = None
        self._lock_file: IO[bytes] | None = None
        self._thread: threading.Thread | None = None
        self._stopping = False

    @property
    def partitions(self) -> int:
        return self._partitions

    def start(self, on_record: RecordCallback, timeout: float = 60.0) -> None:
        """Lock the file, replay its records to `on_record`, compact it and start the writer."""
        self._lock()
        records = read_records(self.path)
        self._live = compacted(records)
        for (partition, key), value in self._live.items():
            on_record(key, value, partition, self._next_offset(partition))
        write_atomically(self.path, self._live)  # also drops a torn tail before anything is appended
        self._lines = len(self._live)
        self._callback = on_record
        self._file = open(self.path, "ab")  # noqa: SIM115 - open until stop()
        log.info("%s: %d offset record(s) read", self.path, len(self._live))
        self._thread = context_thread(self._run, f"file-log-{self.path.name}")
        self._thread.start()

    def _lock(self) -> None:
        lock_path = self.path.with_name(self.path.name + ".lock")
        try:
            self._lock_file = open(lock_path, "ab")  # noqa: SIM115 - held until stop()
            fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FileLogError(f"{self.path} is in use by another process (it holds {lock_path})") from None
        except OSError as exc:
            raise FileLogError(f"{self.path}: cannot lock {lock_path}: {exc.strerror}") from None

    def _next_offset(self, partition: int) -> int:
        offset = self._offsets.get(partition, 0)
        self._offsets[partition] = offset + 1
        return offset

    def send(self, key: bytes, value: bytes | None, partition: int | None = None) -> Future[None]:
        """Queue one record; its future completes once it is fsynced (with the error if writing failed)."""
        part = partition if partition is not None else zlib.crc32(key) % self._partitions
        future: Future[None] = Future()
        with self._cond:
            if self._file is None or self._stopping:
                future.set_exception(FileLogError(f"{self.path}: the log is not open"))
                return future
            self._queue.append(((part, key, value), future))
            self._sent += 1
            self._cond.notify_all()
        return future

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every record queued before the call is written and fsynced (or failed)."""
        with self._cond:
            target = self._sent
            if not self._cond.wait_for(lambda: self._done >= target, timeout):
                raise TimeoutError(f"{self.path}: records not written within {timeout}s")

    def read_to_end(self, timeout: float = 30.0) -> None:
        """Every record sent before the call has been handed to the reader once it is written."""
        self.flush(timeout)

    def stop(self, timeout: float = 10.0) -> None:
        """Write what is queued, then close the file and release its lock. A local file: the queued writes
        always finish (they are the offsets a restart resumes from), whatever `timeout` says."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join()
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._lock_file is not None:
            self._lock_file.close()  # releases the flock
            self._lock_file = None

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._queue) or self._stopping)
                batch, self._queue = self._queue, []
                if not batch and self._stopping:
                    return
            self._write(batch)
            with self._cond:
                self._done += len(batch)
                self._cond.notify_all()

    def _write(self, batch: list[tuple[Record, Future[None]]]) -> None:
        assert self._file is not None
        size = self._file.tell()
        try:
            self._file.write(b"".join(encode_line(record) for record, _ in batch))
            self._file.flush()
            os.fsync(self._file.fileno())
        except OSError as exc:
            log.error("%s: could not write %d record(s): %s", self.path, len(batch), exc)
            self._truncate(size)
            error = FileLogError(f"{self.path}: write failed: {exc}")
            for _, future in batch:
                future.set_exception(error)
            return
        for (partition, key, value), future in batch:
            self._live.pop((partition, key), None)
            if value is not None:
                self._live[(partition, key)] = value
            if self._callback is not None:
                self._callback(key, value, partition, self._next_offset(partition))
            future.set_result(None)
        self._lines += len(batch)
        if self._lines > max(COMPACT_SLACK, 4 * len(self._live)):
            self._compact()

    def _truncate(self, size: int) -> None:
        """Cut a partly written batch off, so later appends do not follow a torn line."""
        assert self._file is not None
        try:
            self._file.truncate(size)
            self._file.seek(size)
        except OSError:
            log.exception("%s: could not cut off a partly written batch", self.path)

    def _compact(self) -> None:
        assert self._file is not None
        try:
            write_atomically(self.path, self._live)
        except OSError as exc:
            log.warning("%s: compaction failed (%s); the log keeps growing until it succeeds", self.path, exc)
            return
        self._file.close()
        self._file = open(self.path, "ab")  # noqa: SIM115 - the compacted file, open until stop()
        self._lines = len(self._live)
