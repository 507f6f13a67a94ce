"""FileStreamSinkConnector: every record's value, one line each, appended to a file (or stdout), as
Java's task prints it (`java_string`). Connect's keys `file` and `topics`/`topics.regex`."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

from connectors.file.java_string import java_string
from pyconnect.api import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.api.errors import ConnectException
from pyconnect.api.sink import SinkConnector, SinkRecord, SinkTask, TopicPartition

FILE = "file"

CONFIG = ConfigDef([
    ConfigKey(FILE, ConfigType.STRING, None, Importance.HIGH,
              "Destination filename. If not specified, the standard output will be used"),
])


class FileStreamSinkConnector(SinkConnector):
    """org.apache.kafka.connect.file.FileStreamSinkConnector: `tasks.max` tasks, all appending to the file."""

    java_class_name = "org.apache.kafka.connect.file.FileStreamSinkConnector"

    def config_def(self) -> ConfigDef:
        return CONFIG

    def start(self, config: Mapping[str, str]) -> None:
        self._config = dict(config)

    def task_class(self) -> type[SinkTask]:
        return FileStreamSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._config) for _ in range(max_tasks)]

    def stop(self) -> None:
        return None


class FileStreamSinkTask(SinkTask):
    """Appends each value on a line; `flush` makes the lines durable before their offsets are committed
    (Java only flushes the stream; an fsync is what makes "committed" mean "in the file" after a crash).

    Each `put` is one append (`O_APPEND`, one write call) rather than a buffered stream: tasks of one
    connector may share the file, and a process killed mid-batch must not leave half a line."""

    _fd: int | None = None

    def start(self, config: Mapping[str, str]) -> None:
        filename = CONFIG.parse(config)[FILE]
        self._filename: str | None = filename or None
        if self._filename is None:
            self._fd = sys.stdout.fileno()
            return
        try:
            self._fd = os.open(self._filename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise ConnectException(f"Couldn't find or create file '{self._filename}' for FileStreamSinkTask") from exc

    def put(self, records: Sequence[SinkRecord]) -> None:
        assert self._fd is not None
        if not records:
            return
        data = memoryview("".join(java_string(r.value) + "\n" for r in records).encode("utf-8"))
        while data:
            data = data[os.write(self._fd, data):]

    def flush(self, current_offsets: Mapping[TopicPartition, int]) -> None:
        if self._fd is not None and self._filename is not None:
            os.fsync(self._fd)

    def stop(self) -> None:
        if self._fd is not None and self._filename is not None:
            os.close(self._fd)
        self._fd = None
