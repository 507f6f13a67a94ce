"""A scripted sink plugin for tests of the sink runtime: each task appends `topic,partition,offset,value`
lines to a file and exercises the SinkTaskContext as its config says (workers load it by Python path)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from pyconnect.api import ConfigDef, ConfigKey, ConfigType, Importance
from pyconnect.api.errors import RetriableException
from pyconnect.api.sink import SinkConnector, SinkRecord, SinkTask, TopicPartition

PATH = "tests.harness.sink_plugins:ScriptedSinkConnector"

CONFIG = ConfigDef([
    ConfigKey("file", ConfigType.STRING, importance=Importance.HIGH, documentation="Where lines are appended."),
    ConfigKey("retriable.failures", ConfigType.INT, 0, Importance.LOW,
              "The first N puts with records raise RetriableException (after context.timeout(200))."),
    ConfigKey("errant.marker", ConfigType.STRING, "", Importance.LOW,
              "Records whose value contains this text go to the errant record reporter instead of the file."),
    ConfigKey("start.offset", ConfigType.LONG, -1, Importance.LOW,
              "On open, reset every partition to this offset with context.offset (-1: no reset)."),
    ConfigKey("commit.every.put", ConfigType.BOOLEAN, False, Importance.LOW,
              "Call context.request_commit() after every put with records."),
])


class ScriptedSinkConnector(SinkConnector):
    def config_def(self) -> ConfigDef:
        return CONFIG

    def start(self, config: Mapping[str, str]) -> None:
        self._config = dict(config)

    def task_class(self) -> type[SinkTask]:
        return ScriptedSinkTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._config) for _ in range(max_tasks)]

    def stop(self) -> None:
        return None


class ScriptedSinkTask(SinkTask):
    def start(self, config: Mapping[str, str]) -> None:
        values = CONFIG.parse(config)
        self._fd = os.open(str(values["file"]), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._failures = int(values["retriable.failures"])
        self._marker = str(values["errant.marker"] or "")
        self._start = int(values["start.offset"])
        self._commit_every_put = bool(values["commit.every.put"])

    def open(self, partitions: Sequence[TopicPartition]) -> None:
        if self._start >= 0 and partitions:
            assert self.context is not None
            self.context.offset({p: self._start for p in partitions})

    def put(self, records: Sequence[SinkRecord]) -> None:
        if not records:
            return
        assert self.context is not None
        if self._failures > 0:
            self._failures -= 1
            self.context.timeout(200)
            raise RetriableException("the external system is busy")
        lines = []
        for r in records:
            value = r.value.decode() if isinstance(r.value, bytes) else str(r.value)
            if self._marker and self._marker in value:
                reporter = self.context.errant_record_reporter
                assert reporter is not None, "errant record reporter missing"
                reporter.report(r, ValueError(f"cannot write {value}"))
                continue
            lines.append(f"{r.topic},{r.kafka_partition},{r.kafka_offset},{value}\n")
        if lines:
            os.write(self._fd, "".join(lines).encode())
        if self._commit_every_put:
            self.context.request_commit()

    def flush(self, current_offsets: Mapping[TopicPartition, int]) -> None:
        os.fsync(self._fd)

    def stop(self) -> None:
        fd = getattr(self, "_fd", None)
        if fd is not None:
            os.close(fd)
            self._fd = None
