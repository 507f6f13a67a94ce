"""KafkaOffsetBackingStoreTest and OffsetUtilsTest (key formats), ported to the offset store.

Keys and values are fed as the raw JSON bytes a Java worker writes to the offsets topic: the key
`[connector, {partition}]` and the offset map, both from JsonConverter with schemas disabled.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future

import pytest

from pyconnect.storage.log import MemoryLog, MemoryTopic
from pyconnect.storage.offset_store import OffsetStore

TP0, TP1, TP2 = {"partitionKey": "TP0"}, {"partitionKey": "TP1"}, {"partitionKey": "TP2"}
KEY0, KEY1, KEY2 = (b'["connector",{"partitionKey":"TP0"}]', b'["connector",{"partitionKey":"TP1"}]',
                    b'["connector",{"partitionKey":"TP2"}]')


@pytest.fixture
def topic() -> MemoryTopic:
    return MemoryTopic(2)


def write(topic: MemoryTopic, key: bytes | None, value: bytes | None, partition: int = 0) -> None:
    """One record as a Java worker writes it (its producer picks the partition)."""
    MemoryLog(topic).send(key, value, partition)  # type: ignore[arg-type]  # Java may send a null key


def started(topic: MemoryTopic) -> OffsetStore:
    store = OffsetStore(MemoryLog(topic))
    store.start()
    return store


class FailingThirdWrite(MemoryLog):
    """An offsets topic whose broker rejects the third record of a batch."""

    def __init__(self, topic: MemoryTopic) -> None:
        super().__init__(topic)
        self.sends = 0

    def send(self, key: bytes, value: bytes | None, partition: int | None = None) -> Future[None]:
        self.sends += 1
        if self.sends != 3:
            return super().send(key, value, partition)
        fut: Future[None] = Future()
        fut.set_exception(RuntimeError("write to connect-offsets failed: bogus error"))
        return fut


# KafkaOffsetBackingStoreTest -----------------------------------------------------------------------

@pytest.mark.kafka("KafkaOffsetBackingStoreTest.testReloadOnStart")
def test_reload_on_start(topic: MemoryTopic) -> None:
    write(topic, KEY0, b'{"offset":0}', 0)
    write(topic, KEY1, b'{"offset":1}', 1)
    write(topic, KEY0, b'{"offset":10}', 0)
    write(topic, KEY1, b'{"offset":11}', 1)
    store = started(topic)
    assert store.get("connector", TP0) == {"offset": 10} and store.get("connector", TP1) == {"offset": 11}


@pytest.mark.kafka("KafkaOffsetBackingStoreTest.testGetSet")
def test_get_set(topic: MemoryTopic) -> None:
    store = started(topic)
    assert store.get("connector", TP0) is None and store.get("connector", TP1) is None
    futures = store.put("connector", [(TP0, {"offset": 0}), (TP1, {"offset": 1})])
    for fut in futures:
        fut.result(1)
    assert [r[:2] for r in topic.records] == [(KEY0, b'{"offset":0}'), (KEY1, b'{"offset":1}')]
    assert store.get("connector", TP0) == {"offset": 0} and store.get("connector", TP1) == {"offset": 1}
    # Offsets written by someone else are picked up too.
    write(topic, KEY0, b'{"offset":10}', 0)
    write(topic, KEY1, b'{"offset":11}', 1)
    assert store.get("connector", TP0) == {"offset": 10} and store.get("connector", TP1) == {"offset": 11}


@pytest.mark.kafka("KafkaOffsetBackingStoreTest.testGetSetNull")
def test_get_set_null(topic: MemoryTopic) -> None:
    store = started(topic)
    write(topic, None, b'{"offset":0}', 0)  # a record without a key is no offset of any partition
    write(topic, KEY1, b'{"offset":1}', 1)
    assert store.get("connector", TP1) == {"offset": 1}
    store.put("connector", [(TP1, None)])[0].result(1)
    assert topic.records[-1][:2] == (KEY1, None)
    assert store.get("connector", TP1) is None
    assert store.connector_offsets("connector") == [], "a tombstone removes the partition, not just its offset"


@pytest.mark.kafka("KafkaOffsetBackingStoreTest.testSetFailure")
def test_set_failure(topic: MemoryTopic) -> None:
    store = OffsetStore(FailingThirdWrite(topic))
    store.start()
    futures = store.put("connector", [(TP0, {"offset": 0}), (TP1, {"offset": 1}), (TP2, {"offset": 2})])
    assert futures[0].exception(1) is None and futures[1].exception(1) is None
    assert isinstance(futures[2].exception(1), RuntimeError)
    assert store.get("connector", TP2) is None


@pytest.mark.kafka("KafkaOffsetBackingStoreTest.testConnectorPartitions")
def test_connector_partitions(topic: MemoryTopic) -> None:
    store = started(topic)
    write(topic, b'["connector1",{"partitionKey":"partitionValue1"}]', b'{"offset":0}')
    write(topic, b'["connector1",{"partitionKey":"partitionValue1"}]', b'{"offset":1}')
    write(topic, b'["connector1",{"partitionKey":"partitionValue2"}]', b'{"offset":2}')
    write(topic, b'["connector2",{"partitionKey":"partitionValue"}]', b'{"offset":1}')
    partitions = sorted(str(p) for p, _ in store.connector_offsets("connector1"))
    assert partitions == [str({"partitionKey": "partitionValue1"}), str({"partitionKey": "partitionValue2"})]
    assert [p for p, _ in store.connector_offsets("connector2")] == [{"partitionKey": "partitionValue"}]
    write(topic, b'["connector1",{"partitionKey":"partitionValue1"}]', None)
    assert store.connector_offsets("connector1") == [({"partitionKey": "partitionValue2"}, {"offset": 2})]


# OffsetUtilsTest: which offsets-topic keys name a partition ---------------------------------------

def assert_ignored(topic: MemoryTopic, key: bytes) -> None:
    store = started(topic)
    write(topic, key, b'{"offset":1}')
    assert all(not store.connector_offsets(c) for c in ("", "connector-name", "1", "None"))
    assert store._offsets == {}, "no connector gets a partition from a malformed key"


@pytest.mark.kafka("OffsetUtilsTest.testProcessPartitionKeyWithUnknownSerialization")
def test_process_partition_key_with_unknown_serialization(topic: MemoryTopic) -> None:
    assert_ignored(topic, b"\x00")
    assert_ignored(topic, b"i-am-not-json")


@pytest.mark.kafka("OffsetUtilsTest.testProcessPartitionKeyNotList")
def test_process_partition_key_not_list(topic: MemoryTopic) -> None:
    assert_ignored(topic, b"")
    assert_ignored(topic, b"{}")


@pytest.mark.kafka("OffsetUtilsTest.testProcessPartitionKeyListWithOneElement")
def test_process_partition_key_list_with_one_element(topic: MemoryTopic) -> None:
    assert_ignored(topic, b'[""]')


@pytest.mark.kafka("OffsetUtilsTest.testProcessPartitionKeyListWithElementsOfWrongType")
def test_process_partition_key_list_with_elements_of_wrong_type(topic: MemoryTopic) -> None:
    assert_ignored(topic, b"[1,{}]")
    assert_ignored(topic, b'["connector-name",[]]')


@pytest.mark.kafka("OffsetUtilsTest.testProcessPartitionKeyValidList")
def test_process_partition_key_valid_list(topic: MemoryTopic, caplog: pytest.LogCaptureFixture) -> None:
    store = started(topic)
    with caplog.at_level(logging.WARNING, logger="pyconnect.storage.offset_store"):
        write(topic, b'["connector-name",{}]', b'{"offset":1}')
    assert store.connector_offsets("connector-name") == [({}, {"offset": 1})]
    assert caplog.records == []


@pytest.mark.kafka("OffsetUtilsTest.testProcessPartitionKeyNullPartition")
def test_process_partition_key_null_partition(topic: MemoryTopic, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="pyconnect.storage.offset_store"):
        assert_ignored(topic, b'["connector-name",null]')
    assert caplog.records == [], "a null partition is skipped without a warning"


@pytest.mark.kafka("OffsetUtilsTest.testProcessPartitionKeyNullConnectorName")
def test_process_partition_key_null_connector_name(topic: MemoryTopic) -> None:
    assert_ignored(topic, b"[null,{}]")
