"""FileStreamSourceConnector: each line of a file (or of stdin) becomes a record of one topic, with
Connect's keys `file`, `topic` and `batch.size`, source partition `{"filename": file}` and source offset
`{"position": p}`, the byte position after the line: a restarted task resumes after the last committed line.

Lines end at `\\n`, `\\r\\n` or `\\r`, as Java's task splits them. Positions are bytes, so a file with
multi-byte characters resumes exactly (Java counts characters there and skips bytes).
"""

from __future__ import annotations

import os
import select
import sys
import threading
import time
from collections.abc import Mapping
from typing import IO

from pyconnect.api import (
    ConfigDef,
    ConfigKey,
    ConfigType,
    ExactlyOnceSupport,
    Importance,
    SourceConnector,
    SourceRecord,
    SourceTask,
)
from pyconnect.api.config import non_empty_string
from pyconnect.api.data import STRING_SCHEMA
from pyconnect.api.errors import ConnectException

FILE, TOPIC, BATCH_SIZE = "file", "topic", "batch.size"
FILENAME_FIELD, POSITION_FIELD = "filename", "position"

CONFIG = ConfigDef([
    ConfigKey(FILE, ConfigType.STRING, None, Importance.HIGH,
              "Source filename. If not specified, the standard input will be used"),
    ConfigKey(TOPIC, ConfigType.STRING, importance=Importance.HIGH, documentation="The topic to publish data to",
              validator=non_empty_string),
    ConfigKey(BATCH_SIZE, ConfigType.INT, 2000, Importance.LOW,
              "The maximum number of records the Source task can read from file one time"),
])


class FileStreamSourceConnector(SourceConnector):
    """org.apache.kafka.connect.file.FileStreamSourceConnector: one task, one input."""

    java_class_name = "org.apache.kafka.connect.file.FileStreamSourceConnector"

    def config_def(self) -> ConfigDef:
        return CONFIG

    def start(self, config: Mapping[str, str]) -> None:
        self._config = dict(config)

    def task_class(self) -> type[SourceTask]:
        return FileStreamSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._config)]  # only one input stream makes sense

    def stop(self) -> None:
        return None

    def exactly_once_support(self, config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        # A file can be re-read from a stored position; stdin cannot.
        return ExactlyOnceSupport.SUPPORTED if config.get(FILE) else ExactlyOnceSupport.UNSUPPORTED


def split_lines(buffer: bytes) -> tuple[list[tuple[bytes, int]], int]:
    """Complete lines of `buffer`, each with the length consumed through its terminator, and the bytes
    used. A trailing `\\r` waits for the next byte (it may start `\\r\\n`)."""
    lines: list[tuple[bytes, int]] = []
    start = 0
    while True:
        ends = [i for i in (buffer.find(b"\n", start), buffer.find(b"\r", start)) if i >= 0]
        if not ends:
            return lines, start
        end = min(ends)
        if buffer[end:end + 1] == b"\r":
            if end + 1 >= len(buffer):
                return lines, start
            nxt = end + 2 if buffer[end + 1:end + 2] == b"\n" else end + 1
        else:
            nxt = end + 1
        lines.append((buffer[start:end], nxt - start))
        start = nxt


class FileStreamSourceTask(SourceTask):
    """Reads lines from the file (waiting for it to appear and to grow) or from stdin."""

    def start(self, config: Mapping[str, str]) -> None:
        values = CONFIG.parse(config)
        self._filename: str | None = values[FILE] or None
        self._topic = str(values[TOPIC])
        self._batch = int(values[BATCH_SIZE])
        self._stream: IO[bytes] | None = None if self._filename else sys.stdin.buffer
        self._position: int | None = None  # bytes of the file consumed so far (None for stdin)
        self._pending = b""
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # stop() closes the file, never in the middle of a read

    def poll(self) -> list[SourceRecord] | None:
        with self._lock:
            if self._stopping.is_set():
                return None
            return self._poll()

    def _poll(self) -> list[SourceRecord] | None:
        if self._stream is None and not self._open():
            self._stopping.wait(1.0)
            return None
        assert self._stream is not None
        records = self._lines()
        if records:
            return records
        chunk = self._read()
        if not chunk:
            self._stopping.wait(0.2)  # no new data: back off, as Java's task waits
            return None
        self._pending += chunk
        return self._lines() or None

    def _open(self) -> bool:
        assert self._filename is not None and self.context is not None
        try:
            stream = open(self._filename, "rb")  # noqa: SIM115 - kept open across polls, closed in stop()
        except FileNotFoundError:
            return False
        committed = self.context.offset_storage_reader.offset({FILENAME_FIELD: self._filename})
        position = (committed or {}).get(POSITION_FIELD)
        if position is not None and not isinstance(position, int):
            stream.close()
            raise ConnectException("Offset position is the incorrect type")
        self._position = position or 0
        stream.seek(self._position)
        self._stream = stream
        return True

    def _read(self) -> bytes:
        assert self._stream is not None
        if self._filename is None:  # stdin: read only what is there, so poll() returns within a second
            ready, _, _ = select.select([self._stream], [], [], 0.5)
            return os.read(self._stream.fileno(), 65536) if ready else b""
        return self._stream.read(1 << 20)

    def _lines(self) -> list[SourceRecord]:
        lines, used = split_lines(self._pending)
        lines = lines[:self._batch]
        used = sum(n for _, n in lines)
        self._pending = self._pending[used:]
        records, now = [], int(time.time() * 1000)
        for line, consumed in lines:
            offset = None
            if self._position is not None:
                self._position += consumed
                offset = self._position
            records.append(SourceRecord({FILENAME_FIELD: self._filename}, {POSITION_FIELD: offset}, self._topic,
                                        line.decode("utf-8", "replace"), timestamp=now, value_schema=STRING_SCHEMA))
        return records

    def stop(self) -> None:
        stopping = getattr(self, "_stopping", None)
        if stopping is None:
            return  # never started
        stopping.set()
        with self._lock:
            if self._stream is not None and self._filename is not None:
                self._stream.close()
                self._stream = None
