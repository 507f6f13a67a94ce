"""Cases ported from Kafka's FileStreamSourceTaskTest, FileStreamSinkTaskTest and
FileStreamSourceConnectorTest (connect/file/src/test/java/org/apache/kafka/connect/file/)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from connectors.file.java_string import java_string
from connectors.file.sink import FileStreamSinkConnector, FileStreamSinkTask
from connectors.file.source import FileStreamSourceConnector, FileStreamSourceTask
from pyconnect.api.connector import ExactlyOnceSupport
from pyconnect.api.data import OPTIONAL_INT32_SCHEMA, STRING_SCHEMA, SchemaBuilder, Struct
from pyconnect.api.sink import SinkRecord, TopicPartition


class _Reader:
    def __init__(self, offsets: Mapping[str, dict[str, Any]] | None = None) -> None:
        self._offsets = dict(offsets or {})

    def offset(self, partition: Mapping[str, Any]) -> dict[str, Any] | None:
        return self._offsets.get(str(partition.get("filename")))

    def offsets(self, partitions: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any] | None]:
        return {str(p): self.offset(p) for p in partitions}


class _Context:
    def __init__(self, reader: _Reader) -> None:
        self.offset_storage_reader = reader
        self.configs: dict[str, str] = {}
        self.metrics: Any = None


def _source(path: Path, offsets: Mapping[str, dict[str, Any]] | None = None, batch: int = 2000) -> FileStreamSourceTask:
    task = FileStreamSourceTask()
    task.initialize(_Context(_Reader(offsets)))  # type: ignore[arg-type]
    task.start({"file": str(path), "topic": "test", "batch.size": str(batch)})
    return task


def test_normal_lifecycle(tmp_path: Path) -> None:
    """FileStreamSourceTaskTest.testNormalLifecycle: partial lines wait, every line ending splits, a
    trailing \\r waits for the next byte, positions are the bytes consumed."""
    path = tmp_path / "in.txt"
    path.write_bytes(b"")
    task = _source(path)
    with open(path, "ab") as out:
        assert task.poll() is None
        out.write(b"partial line")
        out.flush()
        assert task.poll() is None
        out.write(b" finished\n")
        out.flush()
        records = task.poll()
        assert records is not None and len(records) == 1
        assert (records[0].topic, records[0].value) == ("test", "partial line finished")
        assert records[0].source_partition == {"filename": str(path)}
        assert records[0].source_offset == {"position": 22}
        assert records[0].value_schema == STRING_SCHEMA
        assert task.poll() is None
        out.write(b"line1\rline2\r\nline3\nline4\n\r")
        out.flush()
        records = task.poll()
        assert records is not None
        assert [(r.value, r.source_offset["position"]) for r in records] == [
            ("line1", 28), ("line2", 35), ("line3", 41), ("line4", 47)]
        out.write(b"subsequent text")
        out.flush()
        records = task.poll()
        assert records is not None and [(r.value, r.source_offset["position"]) for r in records] == [("", 48)]
    task.stop()


def test_batch_size(tmp_path: Path) -> None:
    """FileStreamSourceTaskTest.testBatchSize: a poll returns at most batch.size records."""
    path = tmp_path / "in.txt"
    line = b"Neque porro quisquam est qui dolorem ipsum quia dolor sit amet, consectetur, adipisci velit...\n"
    path.write_bytes(line * 10_000)
    task = _source(path, batch=5000)
    for _ in range(2):
        records = task.poll()
        assert records is not None and len(records) == 5000
    assert task.poll() is None
    task.stop()


def test_invalid_file(tmp_path: Path) -> None:
    """FileStreamSourceTaskTest.testInvalidFile: a missing file yields no data (the task waits for it)."""
    task = _source(tmp_path / "bogusfilename")
    task._stopping.set()  # the wait for the file returns at once
    for _ in range(5):
        assert task.poll() is None
    task.stop()


def test_resumes_after_committed_position(tmp_path: Path) -> None:
    """FileStreamSourceTask.poll: a committed position is skipped to (the case of a restarted task)."""
    path = tmp_path / "in.txt"
    path.write_bytes(b"one\ntwo\nthree\n")
    task = _source(path, {str(path): {"position": 4}})
    records = task.poll()
    assert records is not None and [r.value for r in records] == ["two", "three"]
    assert records[-1].source_offset == {"position": 14}
    task.stop()


def test_exactly_once_support() -> None:
    """FileStreamSourceConnectorTest.testExactlyOnceSupport: supported with a file, not with stdin."""
    connector = FileStreamSourceConnector()
    assert connector.exactly_once_support({"file": "a", "topic": "t"}) is ExactlyOnceSupport.SUPPORTED
    assert connector.exactly_once_support({"topic": "t"}) is ExactlyOnceSupport.UNSUPPORTED


def test_source_connector_one_task_and_topic_required() -> None:
    """FileStreamSourceConnectorTest.testSourceTasks / testMissingTopic: one task config whatever
    tasks.max is, and `topic` is required."""
    connector = FileStreamSourceConnector()
    connector.start({"file": "f", "topic": "t"})
    assert connector.task_configs(3) == [{"file": "f", "topic": "t"}]
    errors = connector.validate({"file": "f"})["topic"].errors
    assert errors


def _sink_record(value: Any, offset: int = 0) -> SinkRecord:
    return SinkRecord("t", 0, None, None, None, value, kafka_offset=offset)


def test_put_flush(tmp_path: Path) -> None:
    """FileStreamSinkTaskTest.testPutFlush: each value on its own line, in the file once flushed."""
    path = tmp_path / "out.txt"
    task = FileStreamSinkTask()
    task.start({"file": str(path)})
    task.put([_sink_record("line1", 1)])
    task.flush({TopicPartition("t", 0): 2})
    assert path.read_text() == "line1\n"
    task.put([_sink_record("line2", 2), _sink_record("line3", 3)])
    task.flush({TopicPartition("t", 0): 4})
    assert path.read_text() == "line1\nline2\nline3\n"
    task.stop()


def test_start_appends_to_existing_file(tmp_path: Path) -> None:
    """FileStreamSinkTaskTest.testStart: the file is created if missing, appended to if present."""
    path = tmp_path / "out.txt"
    path.write_text("existing\n")
    task = FileStreamSinkTask()
    task.start({"file": str(path)})
    task.put([_sink_record("line0")])
    task.flush({})
    task.stop()
    assert path.read_text() == "existing\nline0\n"


def test_sink_connector_task_configs() -> None:
    """FileStreamSinkConnectorTest.testSinkTasks: tasks.max copies of the config."""
    connector = FileStreamSinkConnector()
    connector.start({"file": "f", "topics": "a"})
    assert connector.task_configs(2) == [{"file": "f", "topics": "a"}] * 2


def test_java_string_of_values() -> None:
    """What FileStreamSinkTask's println writes: Java's toString of maps, lists and structs."""
    schema = SchemaBuilder.struct().field("line", STRING_SCHEMA).field("n", OPTIONAL_INT32_SCHEMA).build()
    struct = Struct(schema).put("line", "foo")
    assert java_string(struct) == "Struct{line=foo}"
    assert java_string({"line": "foo", "data_source": "test"}) == "{line=foo, data_source=test}"
    assert java_string([1, None, True, 1.0]) == "[1, null, true, 1.0]"
    assert java_string(None) == "null"


def test_missing_sink_file_directory(tmp_path: Path) -> None:
    """FileStreamSinkTask.start: a file that cannot be created fails with Connect's message."""
    task = FileStreamSinkTask()
    with pytest.raises(Exception, match="Couldn't find or create file"):
        task.start({"file": str(tmp_path / "missing" / "out.txt")})
