"""KafkaStatusBackingStoreFormatTest and KafkaStatusBackingStoreTest, ported to the status store.

Every record is fed as the bytes a Java worker writes: UTF-8 keys, and values from JsonConverter with
schemas disabled (compact JSON, fields in schema order).
"""

from __future__ import annotations

from concurrent.futures import Future

import orjson
import pytest

from pyconnect.storage.log import RecordCallback
from pyconnect.storage.status_store import Status, StatusStore, TopicStatus

WORKER_ID = "localhost:8083"
OTHER_WORKER = "anotherhost:8083"
FOO_TOPIC, BAR_TOPIC, FOO_CONNECTOR = "foo-topic", "bar-topic", "foo-source"


class ReadBackLog:
    """A status topic whose writes reach the store only when the test reads them back, as in the Java
    tests where the store sees a record only through `read(ConsumerRecord)`."""

    def __init__(self, fail_writes: bool = False) -> None:
        self.sent: list[tuple[str, bytes | None]] = []
        self._fail = fail_writes
        self._callback: RecordCallback | None = None

    def start(self, on_record: RecordCallback, timeout: float = 60.0) -> None:
        self._callback = on_record

    def stop(self) -> None:
        return None

    def send(self, key: bytes, value: bytes | None, partition: int | None = None) -> Future[None]:
        fut: Future[None] = Future()
        if self._fail:
            fut.set_exception(RuntimeError("write to status-topic failed: UNKNOWN_SERVER_ERROR"))
        else:
            self.sent.append((key.decode(), value))
            fut.set_result(None)
        return fut

    def flush(self, timeout: float = 30.0) -> None:
        return None

    def read_to_end(self, timeout: float = 30.0) -> None:
        return None

    def read(self, key: str, value: bytes | None) -> None:
        """Hand one record to the store, as its reader thread would."""
        assert self._callback is not None
        self._callback(key.encode(), value, 0, 0)

    def read_back(self) -> None:
        """Hand every write so far to the store."""
        for key, value in self.sent:
            self.read(key, value)


def status_json(state: str, worker: str, generation: int, trace: str | None = None) -> bytes:
    """A status value exactly as a Java worker writes it."""
    return orjson.dumps({"state": state, "trace": trace, "worker_id": worker, "generation": generation})


def topic_json(topic: str, connector: str, task: int, discovered: int) -> bytes:
    return orjson.dumps({"topic": {"name": topic, "connector": connector, "task": task,
                                   "discoverTimestamp": discovered}})


@pytest.fixture
def log() -> ReadBackLog:
    return ReadBackLog()


@pytest.fixture
def store(log: ReadBackLog) -> StatusStore:
    s = StatusStore(log)
    s.start()
    return s


def assert_empty(store: StatusStore, *connectors: str) -> None:
    for name in connectors:
        assert store.connector(name) is None and store.tasks(name) == {} and store.topics(name) == set()


# KafkaStatusBackingStoreFormatTest -----------------------------------------------------------------

@pytest.mark.kafka("KafkaStatusBackingStoreFormatTest.readInvalidStatus")
def test_read_invalid_status(store: StatusStore, log: ReadBackLog) -> None:
    for key in ("status-unknown", "status-connector-", "status-task-", f"status-task-{FOO_CONNECTOR}-#",
                "status-topic-", "status-topic-:connector-", f"status-topic-{FOO_TOPIC}:",
                f"status-topic-{FOO_TOPIC}:connector-"):
        log.read(key, b"")
    assert_empty(store, "", "unknown", FOO_CONNECTOR, "foo")


@pytest.mark.kafka("KafkaStatusBackingStoreFormatTest.readInvalidStatusValue")
def test_read_invalid_status_value(store: StatusStore, log: ReadBackLog) -> None:
    log.read(f"status-connector-{FOO_CONNECTOR}", b"invalid")
    log.read(f"status-task-{FOO_CONNECTOR}-0", b"invalid")
    log.read(f"status-topic-{FOO_TOPIC}:connector-{FOO_CONNECTOR}", b"invalid")
    assert_empty(store, FOO_CONNECTOR)


@pytest.mark.kafka("KafkaStatusBackingStoreFormatTest.readTopicStatus")
def test_read_topic_status(store: StatusStore, log: ReadBackLog) -> None:
    log.read(f"status-topic-{FOO_TOPIC}:connector-{FOO_CONNECTOR}", topic_json(FOO_TOPIC, FOO_CONNECTOR, 0, 1700))
    assert store.topics(FOO_CONNECTOR) == {FOO_TOPIC}
    assert store.topic_status(FOO_CONNECTOR, FOO_TOPIC) == TopicStatus(FOO_TOPIC, FOO_CONNECTOR, 0, 1700)


@pytest.mark.kafka("KafkaStatusBackingStoreFormatTest.deleteTopicStatus")
def test_delete_topic_status(store: StatusStore, log: ReadBackLog) -> None:
    log.read("status-topic-foo:connector-bar", topic_json("foo", "bar", 0, 1700))
    assert store.topics("bar") == {"foo"}
    log.read("status-topic-foo:connector-bar", None)
    assert store.topics("bar") == set() and store.topic_status("bar", "foo") is None


@pytest.mark.kafka("KafkaStatusBackingStoreFormatTest.putTopicState")
def test_put_topic_state(store: StatusStore, log: ReadBackLog) -> None:
    store.put_topic(FOO_CONNECTOR, FOO_TOPIC, 0)
    [(key, value)] = log.sent
    assert key == f"status-topic-{FOO_TOPIC}:connector-{FOO_CONNECTOR}"
    written = orjson.loads(value or b"")
    assert list(written["topic"]) == ["name", "connector", "task", "discoverTimestamp"]
    assert store.topics(FOO_CONNECTOR) == set(), "not visible until read back from the log"
    log.read_back()
    assert store.topic_status(FOO_CONNECTOR, FOO_TOPIC) == TopicStatus(
        FOO_TOPIC, FOO_CONNECTOR, 0, written["topic"]["discoverTimestamp"])
    assert store.topics(FOO_CONNECTOR) == {FOO_TOPIC}


@pytest.mark.kafka("KafkaStatusBackingStoreFormatTest.putTopicStateNonRetriableFailure")
def test_put_topic_state_non_retriable_failure() -> None:
    log = ReadBackLog(fail_writes=True)
    store = StatusStore(log)
    store.start()
    store.put_topic(FOO_CONNECTOR, FOO_TOPIC, 0)  # the error is logged and ignored
    assert store.topics(FOO_CONNECTOR) == set()


@pytest.mark.kafka("KafkaStatusBackingStoreFormatTest.putTopicStateShouldOverridePreviousState")
def test_put_topic_state_should_override_previous_state(store: StatusStore, log: ReadBackLog) -> None:
    log.read(f"status-topic-{FOO_TOPIC}:connector-{FOO_CONNECTOR}", topic_json(FOO_TOPIC, FOO_CONNECTOR, 0, 1000))
    store.put_topic(FOO_CONNECTOR, BAR_TOPIC, 0)
    log.read_back()
    assert store.topic_status(FOO_CONNECTOR, FOO_TOPIC) == TopicStatus(FOO_TOPIC, FOO_CONNECTOR, 0, 1000)
    assert store.topic_status(FOO_CONNECTOR, BAR_TOPIC) is not None
    assert store.topics(FOO_CONNECTOR) == {FOO_TOPIC, BAR_TOPIC}


# KafkaStatusBackingStoreTest -----------------------------------------------------------------------

@pytest.mark.kafka("KafkaStatusBackingStoreTest.putConnectorState")
def test_put_connector_state(store: StatusStore, log: ReadBackLog) -> None:
    store.put_connector("conn", Status("RUNNING", WORKER_ID, 0))
    assert log.sent == [("status-connector-conn", status_json("RUNNING", WORKER_ID, 0))]
    assert store.connector("conn") is None, "not visible until read back from the log"


@pytest.mark.kafka("KafkaStatusBackingStoreTest.putConnectorStateNonRetriableFailure")
def test_put_connector_state_non_retriable_failure() -> None:
    store = StatusStore(ReadBackLog(fail_writes=True))
    store.start()
    store.put_connector("conn", Status("RUNNING", WORKER_ID, 0))  # the error is logged and ignored
    assert store.connector("conn") is None


@pytest.mark.kafka("KafkaStatusBackingStoreTest.putSafeConnectorIgnoresStaleStatus")
def test_put_safe_connector_ignores_stale_status(store: StatusStore, log: ReadBackLog) -> None:
    log.read("status-connector-conn", status_json("RUNNING", OTHER_WORKER, 1))
    store.put_connector("conn", Status("UNASSIGNED", WORKER_ID, 0), safe=True)
    assert log.sent == []
    assert store.connector("conn") == Status("RUNNING", OTHER_WORKER, 1)


@pytest.mark.kafka("KafkaStatusBackingStoreTest.putSafeWithNoPreviousValueIsPropagated")
def test_put_safe_with_no_previous_value_is_propagated(store: StatusStore, log: ReadBackLog) -> None:
    store.put_connector("conn", Status("FAILED", WORKER_ID, 0), safe=True)
    [(key, value)] = log.sent
    assert key == "status-connector-conn"
    assert orjson.loads(value or b"") == {"state": "FAILED", "trace": None, "worker_id": WORKER_ID, "generation": 0}


@pytest.mark.kafka("KafkaStatusBackingStoreTest.putSafeOverridesValueSetBySameWorker")
def test_put_safe_overrides_value_set_by_same_worker(store: StatusStore, log: ReadBackLog) -> None:
    log.read("status-connector-conn", status_json("RUNNING", WORKER_ID, 1))
    store.put_connector("conn", Status("UNASSIGNED", WORKER_ID, 0), safe=True)
    log.read_back()
    assert store.connector("conn") == Status("UNASSIGNED", WORKER_ID, 0)


@pytest.mark.kafka("KafkaStatusBackingStoreTest.putConnectorStateShouldOverride")
def test_put_connector_state_should_override(store: StatusStore, log: ReadBackLog) -> None:
    # The latest record wins even though another worker wrote the earlier one in a newer generation.
    log.read("status-connector-conn", status_json("RUNNING", OTHER_WORKER, 1))
    store.put_connector("conn", Status("UNASSIGNED", WORKER_ID, 0))
    log.read_back()
    assert store.connector("conn") == Status("UNASSIGNED", WORKER_ID, 0)


@pytest.mark.kafka("KafkaStatusBackingStoreTest.readConnectorState")
def test_read_connector_state(store: StatusStore, log: ReadBackLog) -> None:
    log.read("status-connector-conn", b'{"worker_id":"localhost:8083","state":"RUNNING","generation":0}')
    assert store.connector("conn") == Status("RUNNING", WORKER_ID, 0)


@pytest.mark.kafka("KafkaStatusBackingStoreTest.putTaskState")
def test_put_task_state(store: StatusStore, log: ReadBackLog) -> None:
    store.put_task("conn", 0, Status("RUNNING", WORKER_ID, 0))
    assert log.sent == [("status-task-conn-0", status_json("RUNNING", WORKER_ID, 0))]
    assert store.task("conn", 0) is None, "not visible until read back from the log"


@pytest.mark.kafka("KafkaStatusBackingStoreTest.readTaskState")
def test_read_task_state(store: StatusStore, log: ReadBackLog) -> None:
    log.read("status-task-conn-0", b'{"worker_id":"localhost:8083","state":"RUNNING","generation":0}')
    assert store.task("conn", 0) == Status("RUNNING", WORKER_ID, 0)


@pytest.mark.kafka("KafkaStatusBackingStoreTest.readTaskStateShouldIgnoreStaleStatusesFromOtherWorkers")
def test_read_task_state_should_ignore_stale_statuses_from_other_workers(store: StatusStore, log: ReadBackLog) -> None:
    log.read("status-task-conn-0", status_json("RUNNING", OTHER_WORKER, 10))
    # The worker that lost the task reports UNASSIGNED late, from the previous generation: ignored.
    log.read("status-task-conn-0", status_json("UNASSIGNED", WORKER_ID, 9))
    assert store.task("conn", 0) == Status("RUNNING", OTHER_WORKER, 10)
    # Any other status is the latest word, whatever its generation (e.g. another cluster's worker).
    latest = Status("RUNNING", "yetanotherhost:8083", 1)
    store.put_task("conn", 0, latest)
    log.read_back()
    assert store.task("conn", 0) == latest


@pytest.mark.kafka("KafkaStatusBackingStoreTest.deleteConnectorState")
def test_delete_connector_state(store: StatusStore, log: ReadBackLog) -> None:
    store.put_connector("conn", Status("RUNNING", WORKER_ID, 0))
    store.put_task("conn", 0, Status("RUNNING", WORKER_ID, 0))
    log.read_back()
    assert store.connector("conn") is not None and store.tasks("conn") == {0: Status("RUNNING", WORKER_ID, 0)}
    log.read("status-connector-conn", None)
    assert store.connector("conn") is None
    assert store.tasks("conn") == {}, "a connector's tombstone removes its task statuses too"


@pytest.mark.kafka("KafkaStatusBackingStoreTest.deleteTaskState")
def test_delete_task_state(store: StatusStore, log: ReadBackLog) -> None:
    store.put_task("conn", 0, Status("RUNNING", WORKER_ID, 0))
    log.read_back()
    assert store.tasks("conn") == {0: Status("RUNNING", WORKER_ID, 0)}
    log.read("status-task-conn-0", None)
    assert store.tasks("conn") == {}
