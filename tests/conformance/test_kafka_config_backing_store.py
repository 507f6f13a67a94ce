"""KafkaConfigBackingStoreTest, ported to the config store.

Records are fed as the bytes a Java worker writes to the config topic: UTF-8 keys, and values from
JsonConverter with schemas disabled (compact JSON, fields in schema order).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

import orjson
import pytest

from pyconnect.storage.config_store import ConfigStore
from pyconnect.storage.log import MemoryLog, MemoryTopic, RecordCallback

C1, C2 = "connector1", "connector2"
SAMPLE = [{"config-key-one": "config-value-one"}, {"config-key-two": "config-value-two"},
          {"config-key-three": "config-value-three"}]

Feed = Callable[[str, bytes | None], None]


def props(config: dict[str, str]) -> bytes:
    """A connector or task config record value (CONNECTOR_CONFIGURATION_V0)."""
    return orjson.dumps({"properties": config})


def commit(tasks: int) -> bytes:
    return orjson.dumps({"tasks": tasks})


TARGET_PAUSED = b'{"state":"PAUSED","state.v2":"PAUSED"}'
TARGET_PAUSED_LEGACY = b'{"state":"PAUSED"}'  # written by a worker older than KIP-875
TARGET_STOPPED = b'{"state":"PAUSED","state.v2":"STOPPED"}'
TARGET_STARTED = b'{"state":"STARTED","state.v2":"STARTED"}'


@pytest.fixture
def topic() -> MemoryTopic:
    return MemoryTopic()


@pytest.fixture
def feed(topic: MemoryTopic) -> Feed:
    """Write one record the way a Java worker would."""
    writer = MemoryLog(topic)

    def write(key: str, value: bytes | None) -> None:
        writer.send(key.encode(), value, partition=0)

    return write


def started(topic: MemoryTopic) -> ConfigStore:
    store = ConfigStore(MemoryLog(topic))
    store.start()
    return store


class FailingLog(MemoryLog):
    """The config topic when the broker refuses writes (e.g. TopicAuthorizationException)."""

    def __init__(self) -> None:
        super().__init__(MemoryTopic())

    def start(self, on_record: RecordCallback, timeout: float = 60.0) -> None:
        return None

    def send(self, key: bytes, value: bytes | None, partition: int | None = None) -> Future[None]:
        fut: Future[None] = Future()
        fut.set_exception(RuntimeError("write to connect-configs failed: TOPIC_AUTHORIZATION_FAILED"))
        return fut


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testSnapshotCannotMutateInternalState")
def test_snapshot_cannot_mutate_internal_state(topic: MemoryTopic, feed: Feed) -> None:
    for key, value in ((f"connector-{C1}", props(SAMPLE[0])), (f"task-{C1}-0", props(SAMPLE[0])),
                       (f"commit-{C1}", commit(1))):
        feed(key, value)
    store = started(topic)
    snap = store.snapshot()
    snap.connectors[C1]["x"] = "y"
    snap.task_configs[C1].append({})
    snap.target_states[C1] = "PAUSED"
    snap.inconsistent.add(C2)
    again = store.snapshot()
    assert again.connectors == {C1: SAMPLE[0]} and again.task_configs == {C1: [SAMPLE[0]]}
    assert again.target_states == {C1: "STARTED"} and again.inconsistent == set()


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testPutConnectorConfig")
def test_put_connector_config(topic: MemoryTopic) -> None:
    store = started(topic)
    assert store.snapshot().connectors == {}
    store.put_connector_config(C1, SAMPLE[0])
    assert store.snapshot().connectors == {C1: SAMPLE[0]}
    store.put_connector_config(C2, SAMPLE[1])
    assert store.snapshot().connectors == {C1: SAMPLE[0], C2: SAMPLE[1]}
    store.remove_connector(C2)
    snap = store.snapshot()
    assert snap.connectors == {C1: SAMPLE[0]} and C2 not in snap.target_states
    assert [r[0] for r in topic.records[-2:]] == [f"connector-{C2}".encode(), f"target-state-{C2}".encode()]
    assert [r[1] for r in topic.records[-2:]] == [None, None]


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testPutConnectorConfigWithTargetState")
def test_put_connector_config_with_target_state(topic: MemoryTopic) -> None:
    store = started(topic)
    store.put_connector_config(C1, SAMPLE[0], target_state="STOPPED")
    assert [(r[0], r[1]) for r in topic.records] == [(f"target-state-{C1}".encode(), TARGET_STOPPED),
                                                     (f"connector-{C1}".encode(), props(SAMPLE[0]))]
    snap = store.snapshot()
    assert snap.target_state(C1) == "STOPPED" and snap.connectors[C1] == SAMPLE[0]


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testPutConnectorConfigProducerError")
def test_put_connector_config_producer_error() -> None:
    store = ConfigStore(FailingLog())
    store.start()
    with pytest.raises(RuntimeError, match="TOPIC_AUTHORIZATION_FAILED"):
        store.put_connector_config(C1, SAMPLE[0])
    assert store.snapshot().connectors == {}


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testPutTaskConfigs")
def test_put_task_configs(topic: MemoryTopic, feed: Feed) -> None:
    feed(f"connector-{C1}", props(SAMPLE[0]))
    store = started(topic)
    assert C1 not in store.snapshot().task_configs
    store.put_task_configs(C1, [SAMPLE[0], SAMPLE[1]])
    snap = store.snapshot()
    assert list(snap.connectors) == [C1] and [str(t) for t in snap.task_ids()] == [f"{C1}-0", f"{C1}-1"]
    assert snap.task_configs[C1] == [SAMPLE[0], SAMPLE[1]] and snap.inconsistent == set()


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testPutTaskConfigsStartsOnlyReconfiguredTasks")
def test_put_task_configs_starts_only_reconfigured_tasks(topic: MemoryTopic, feed: Feed) -> None:
    feed(f"connector-{C1}", props(SAMPLE[0]))
    feed(f"connector-{C2}", props(SAMPLE[1]))
    store = started(topic)
    store.put_task_configs(C1, [SAMPLE[0], SAMPLE[1]])
    before = store.snapshot()
    store.put_task_configs(C2, [SAMPLE[2]])
    snap = store.snapshot()
    assert snap.task_configs[C1] == before.task_configs[C1] == [SAMPLE[0], SAMPLE[1]]
    assert snap.task_configs[C2] == [SAMPLE[2]] and snap.inconsistent == set()
    assert [str(t) for t in snap.task_ids()] == [f"{C1}-0", f"{C1}-1", f"{C2}-0"]


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testPutTaskConfigsZeroTasks")
def test_put_task_configs_zero_tasks(topic: MemoryTopic, feed: Feed) -> None:
    feed(f"connector-{C1}", props(SAMPLE[0]))
    store = started(topic)
    store.put_task_configs(C1, [])
    assert topic.records[-1][:2] == (f"commit-{C1}".encode(), commit(0))
    snap = store.snapshot()
    assert snap.task_configs[C1] == [] and [str(t) for t in snap.task_ids()] == [] and snap.inconsistent == set()


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testRestoreTargetState")
def test_restore_target_state(topic: MemoryTopic, feed: Feed) -> None:
    feed(f"connector-{C1}", props(SAMPLE[0]))
    feed(f"task-{C1}-0", props(SAMPLE[0]))
    feed(f"task-{C1}-1", props(SAMPLE[0]))
    feed(f"target-state-{C1}", TARGET_PAUSED_LEGACY)
    feed(f"commit-{C1}", commit(2))
    feed(f"target-state-{C2}", TARGET_STOPPED)  # for a connector that does not exist (yet)
    snap = started(topic).snapshot()
    assert list(snap.connectors) == [C1]
    assert snap.target_state(C1) == "PAUSED" and snap.target_state(C2) == "STOPPED"


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testBackgroundUpdateTargetState")
def test_background_update_target_state(topic: MemoryTopic, feed: Feed) -> None:
    feed(f"connector-{C1}", props(SAMPLE[0]))
    feed(f"task-{C1}-0", props(SAMPLE[0]))
    feed(f"task-{C1}-1", props(SAMPLE[0]))
    feed(f"commit-{C1}", commit(2))
    store = started(topic)
    assert store.snapshot().target_states == {C1: "STARTED"}, "a connector without one starts STARTED"
    feed(f"target-state-{C1}", TARGET_PAUSED)
    feed(f"target-state-{C2}", TARGET_STOPPED)
    assert store.snapshot().target_states == {C1: "PAUSED", C2: "STOPPED"}


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testSameTargetState")
def test_same_target_state(topic: MemoryTopic, feed: Feed) -> None:
    feed(f"connector-{C1}", props(SAMPLE[0]))
    feed(f"task-{C1}-0", props(SAMPLE[0]))
    feed(f"task-{C1}-1", props(SAMPLE[0]))
    feed(f"commit-{C1}", commit(2))
    store = started(topic)
    notified: list[int] = []
    store.add_listener(lambda: notified.append(1))
    feed(f"target-state-{C1}", TARGET_STARTED)
    assert store.snapshot().target_state(C1) == "STARTED"
    assert notified == [], "rewriting the current target state is not a change"


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testBackgroundConnectorDeletion")
def test_background_connector_deletion(topic: MemoryTopic, feed: Feed) -> None:
    feed(f"connector-{C1}", props(SAMPLE[0]))
    feed(f"task-{C1}-0", props(SAMPLE[0]))
    feed(f"task-{C1}-1", props(SAMPLE[1]))
    feed(f"commit-{C1}", commit(2))
    store = started(topic)
    snap = store.snapshot()
    assert snap.target_state(C1) == "STARTED" and snap.connectors[C1] == SAMPLE[0]
    assert snap.task_configs[C1] == [SAMPLE[0], SAMPLE[1]]
    feed(f"task-{C1}-0", props(SAMPLE[2]))  # a task update that never got its commit
    feed(f"connector-{C1}", None)
    feed(f"target-state-{C1}", None)
    snap = store.snapshot()
    assert C1 not in snap.connectors and C1 not in snap.task_configs and [str(t) for t in snap.task_ids()] == []
    # The deleted connector's pending task updates went with it: a recreated connector whose commit
    # names a task that was never rewritten is inconsistent, not given the stale config.
    feed(f"connector-{C1}", props(SAMPLE[0]))
    feed(f"commit-{C1}", commit(1))
    snap = store.snapshot()
    assert snap.inconsistent == {C1} and C1 not in snap.task_configs


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testRestoreTargetStateUnexpectedDeletion")
def test_restore_target_state_unexpected_deletion(topic: MemoryTopic, feed: Feed) -> None:
    feed(f"connector-{C1}", props(SAMPLE[0]))
    feed(f"task-{C1}-0", props(SAMPLE[0]))
    feed(f"task-{C1}-1", props(SAMPLE[0]))
    feed(f"target-state-{C1}", None)
    feed(f"commit-{C1}", commit(2))
    snap = started(topic).snapshot()
    assert list(snap.connectors) == [C1]
    assert snap.target_states == {C1: "STARTED"}, "a tombstone for an existing connector resets it to STARTED"


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testRestore")
def test_restore(topic: MemoryTopic, feed: Feed) -> None:
    feed(f"tasks-fencing-{C1}", b'{"task-count":6}')
    feed(f"connector-{C1}", props(SAMPLE[0]))
    feed(f"task-{C1}-0", props(SAMPLE[0]))
    feed(f"task-{C1}-1", props(SAMPLE[0]))
    feed(f"connector-{C1}", props(SAMPLE[1]))
    feed(f"commit-{C1}", commit(2))
    feed(f"tasks-fencing-{C2}", b'{"task-count":9}')
    # The connector update after the commit applies; the task update after it waits for a commit.
    feed(f"connector-{C1}", props(SAMPLE[2]))
    feed(f"task-{C1}-0", props(SAMPLE[1]))
    snap = started(topic).snapshot()
    assert list(snap.connectors) == [C1] and snap.target_state(C1) == "STARTED"
    assert snap.connectors[C1] == SAMPLE[2]
    assert snap.task_configs[C1] == [SAMPLE[0], SAMPLE[0]] and snap.inconsistent == set()


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testRestoreConnectorDeletion")
def test_restore_connector_deletion(topic: MemoryTopic, feed: Feed) -> None:
    feed(f"connector-{C1}", props(SAMPLE[0]))
    feed(f"task-{C1}-0", props(SAMPLE[0]))
    feed(f"task-{C1}-1", props(SAMPLE[0]))
    feed(f"connector-{C1}", None)
    feed(f"target-state-{C1}", None)
    feed(f"commit-{C1}", commit(2))
    snap = started(topic).snapshot()
    assert snap.connectors == {} and [str(t) for t in snap.task_ids()] == []


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testRestoreZeroTasks")
def test_restore_zero_tasks(topic: MemoryTopic, feed: Feed) -> None:
    feed(f"connector-{C1}", props(SAMPLE[0]))
    feed(f"task-{C1}-0", props(SAMPLE[0]))
    feed(f"task-{C1}-1", props(SAMPLE[0]))
    feed(f"connector-{C1}", props(SAMPLE[1]))
    feed(f"commit-{C1}", commit(2))
    feed(f"connector-{C1}", props(SAMPLE[2]))
    feed(f"task-{C1}-0", props(SAMPLE[1]))
    feed(f"commit-{C1}", commit(0))
    snap = started(topic).snapshot()
    assert list(snap.connectors) == [C1] and snap.connectors[C1] == SAMPLE[2]
    assert snap.task_configs[C1] == [] and snap.inconsistent == set()


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testRecordToRestartRequest")
def test_record_to_restart_request(topic: MemoryTopic, feed: Feed) -> None:
    store = started(topic)
    feed(f"restart-connector-{C1}", b'{"include-tasks":false,"only-failed":true}')
    request = store.snapshot().restarts[C1]
    assert (request.connector, request.include_tasks, request.only_failed) == (C1, False, True)


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testRecordToRestartRequestOnlyFailedInconsistent")
def test_record_to_restart_request_only_failed_inconsistent(topic: MemoryTopic, feed: Feed) -> None:
    store = started(topic)
    feed(f"restart-connector-{C1}", b'{"include-tasks":true}')
    request = store.snapshot().restarts[C1]
    assert (request.include_tasks, request.only_failed) == (True, False)
    feed(f"restart-connector-{C1}", b'{"include-tasks":true,"only-failed":"true"}')  # not a boolean
    assert store.snapshot().restarts[C1].only_failed is False


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testRecordToRestartRequestIncludeTasksInconsistent")
def test_record_to_restart_request_include_tasks_inconsistent(topic: MemoryTopic, feed: Feed) -> None:
    store = started(topic)
    feed(f"restart-connector-{C1}", b'{"only-failed":true}')
    request = store.snapshot().restarts[C1]
    assert (request.include_tasks, request.only_failed) == (False, True)
    feed(f"restart-connector-{C1}", b'{"include-tasks":1,"only-failed":true}')  # not a boolean
    assert store.snapshot().restarts[C1].include_tasks is False


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testPutRestartRequestOnlyFailed")
def test_put_restart_request_only_failed(topic: MemoryTopic) -> None:
    store = started(topic)
    store.request_restart(C1, include_tasks=False, only_failed=True)
    assert topic.records[-1][:2] == (f"restart-connector-{C1}".encode(), b'{"include-tasks":false,"only-failed":true}')
    request = store.snapshot().restarts[C1]
    assert (request.connector, request.include_tasks, request.only_failed) == (C1, False, True)


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testPutRestartRequestOnlyFailedIncludingTasks")
def test_put_restart_request_only_failed_including_tasks(topic: MemoryTopic) -> None:
    store = started(topic)
    store.request_restart(C1, include_tasks=True, only_failed=True)
    request = store.snapshot().restarts[C1]
    assert (request.connector, request.include_tasks, request.only_failed) == (C1, True, True)


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testRestoreRestartRequestInconsistentState")
def test_restore_restart_request_inconsistent_state(topic: MemoryTopic, feed: Feed) -> None:
    feed(f"restart-connector-{C1}", b'{"include-tasks":false,"only-failed":true}')
    feed(f"restart-connector-{C2}", b'{"include-tasks":false}')
    feed(f"restart-connector-{C2}", b'{"only-failed":true}')
    feed(f"restart-connector-{C2}", None)  # a tombstone is not a request, and does not cancel one
    restarts = started(topic).snapshot().restarts
    assert (restarts[C1].include_tasks, restarts[C1].only_failed) == (False, True)
    assert (restarts[C2].include_tasks, restarts[C2].only_failed) == (False, True)


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testPutTaskConfigsDoesNotResolveAllInconsistencies")
def test_put_task_configs_does_not_resolve_all_inconsistencies(topic: MemoryTopic, feed: Feed) -> None:
    feed(f"connector-{C1}", props(SAMPLE[0]))
    # task-connector1-0 was compacted away; a leader then died after rewriting only task 0
    feed(f"task-{C1}-1", props(SAMPLE[0]))
    feed(f"commit-{C1}", commit(2))
    feed(f"task-{C1}-0", props(SAMPLE[1]))
    store = started(topic)
    snap = store.snapshot()
    assert list(snap.connectors) == [C1]
    assert C1 not in snap.task_configs and [str(t) for t in snap.task_ids()] == [], "inconsistent: no tasks"
    assert snap.inconsistent == {C1}
    store.put_task_configs(C1, [SAMPLE[0]])
    snap = store.snapshot()
    assert snap.task_configs[C1] == [SAMPLE[0]] and [str(t) for t in snap.task_ids()] == [f"{C1}-0"]
    assert snap.inconsistent == set()


@pytest.mark.kafka("KafkaConfigBackingStoreTest.testPutLogLevel")
def test_put_log_level(topic: MemoryTopic, feed: Feed) -> None:
    feed("logger-cluster-org.apache.zookeeper", b'{"level":"ERROR"}')
    feed("logger-cluster-org.apache.cassandra", None)  # tombstones are tolerated
    store = started(topic)
    assert store.snapshot().logger_levels == {}, "levels written before the worker started are not applied"
    store.put_logger_level("org.apache.kafka.clients", "WARN")
    store.put_logger_level("org.apache.kafka.connect", "DEBUG")
    assert topic.records[-1][:2] == (b"logger-cluster-org.apache.kafka.connect", b'{"level":"DEBUG"}')
    assert store.snapshot().logger_levels == {"org.apache.kafka.clients": "WARN", "org.apache.kafka.connect": "DEBUG"}
