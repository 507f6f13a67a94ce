"""The three stores over the in-memory log twin."""

from __future__ import annotations

import orjson

from pyconnect.api import SourceRecord
from pyconnect.runtime.source.offset_tracker import GenericAcks, OrderedAcks
from pyconnect.storage.config_store import ConfigStore
from pyconnect.storage.java_compat import java_split, parse_java_int, task_key
from pyconnect.storage.log import MemoryLog, MemoryTopic
from pyconnect.storage.offset_store import OffsetStore
from pyconnect.storage.status_store import Status, StatusStore
from tests.harness.messages import FakeMessage


def test_config_store_records_and_commit_semantics() -> None:
    topic = MemoryTopic()
    writer, reader = ConfigStore(MemoryLog(topic)), ConfigStore(MemoryLog(topic))
    writer.start()
    reader.start()
    writer.put_connector_config("c", {"connector.class": "X"}, target_state="PAUSED")
    keys = [r[0] for r in topic.records]
    assert keys == [b"target-state-c", b"connector-c"], "initial state goes first, as in Connect"
    assert orjson.loads(topic.records[0][1] or b"") == {"state": "PAUSED", "state.v2": "PAUSED"}
    MemoryLog(topic).send(b"task-c-0", orjson.dumps({"properties": {"k": "v"}}))
    assert "c" not in reader.snapshot().task_configs, "tasks are invisible until their commit record"
    MemoryLog(topic).send(b"commit-c", orjson.dumps({"tasks": 1}))
    snap = reader.snapshot()
    assert snap.task_configs["c"] == [{"k": "v"}] and snap.target_state("c") == "PAUSED"
    writer.put_target_state("c", "STOPPED")
    assert orjson.loads(topic.records[-1][1] or b"") == {"state": "PAUSED", "state.v2": "STOPPED"}
    assert reader.snapshot().target_state("c") == "STOPPED"
    writer.remove_connector("c")
    assert "c" not in reader.snapshot().connectors and topic.records[-1][1] is None


def test_offset_store_key_format_and_lookup_by_content() -> None:
    topic = MemoryTopic(25)
    store = OffsetStore(MemoryLog(topic))
    store.start()
    store.put("mirror", [({"cluster": "A", "partition": 0, "topic": "t"}, {"offset": 41})])
    assert topic.records[0][0] == b'["mirror",{"cluster":"A","partition":0,"topic":"t"}]'
    # A Java worker's key with another member order is the same partition.
    MemoryLog(topic).send(b'["mirror",{"topic":"t","partition":0,"cluster":"A"}]', b'{"offset":42}')
    assert store.get("mirror", {"partition": 0, "topic": "t", "cluster": "A"}) == {"offset": 42}
    MemoryLog(topic).send(b'["mirror",{"topic":"t","partition":0,"cluster":"A"}]', None)
    assert store.get("mirror", {"partition": 0, "topic": "t", "cluster": "A"}) is None
    MemoryLog(topic).send(b"not json", b"{}")  # ignored, not fatal


def test_status_store_ignores_a_late_unassigned_from_an_older_generation() -> None:
    topic = MemoryTopic(5)
    store = StatusStore(MemoryLog(topic))
    store.start()
    store.put_task("c", 0, Status("RUNNING", "w2:8083", 5))
    store.put_task("c", 0, Status("UNASSIGNED", "w1:8083", 4))  # the task's previous owner, reporting late
    assert store.task("c", 0) == Status("RUNNING", "w2:8083", 5)
    raw = orjson.loads(topic.records[0][1] or b"")
    assert raw == {"state": "RUNNING", "trace": None, "worker_id": "w2:8083", "generation": 5}


def test_status_latest_record_wins_whatever_its_generation() -> None:
    """A Java FAILED at generation 57 does not outrank this project's later RUNNING at 1."""
    topic = MemoryTopic(5)
    store = StatusStore(MemoryLog(topic))
    store.start()
    java = b'{"state":"FAILED","trace":"boom","worker_id":"java:8083","generation":57}'
    MemoryLog(topic).send(b"status-connector-c", java)
    MemoryLog(topic).send(b"status-task-c-0", java)
    assert store.connector("c") == store.task("c", 0) == Status("FAILED", "java:8083", 57, "boom")
    store.put_connector("c", Status("RUNNING", "py:8083", 1))
    store.put_task("c", 0, Status("RUNNING", "py:8083", 1))
    assert store.connector("c") == store.task("c", 0) == Status("RUNNING", "py:8083", 1)
    store.put_task("c", 0, Status("UNASSIGNED", "py:8083", 1))  # same generation: not stale
    assert store.task("c", 0) == Status("UNASSIGNED", "py:8083", 1)


def test_status_records_are_read_as_java_reads_them() -> None:
    topic = MemoryTopic(5)
    store = StatusStore(MemoryLog(topic))
    store.start()
    send = MemoryLog(topic).send
    send(b"status-connector-a", b'{"state":"RUNNING","trace":null,"worker_id":null,"generation":3}')
    assert store.connector("a") == Status("RUNNING", None, 3), "a null worker_id stays null"
    for bad in (b'{"state":"RUNNING","worker_id":"w"}', b'{"state":"running","worker_id":"w","generation":1}',
                b'{"state":"FAILED","worker_id":"w","generation":"4"}', b'{"state":null,"generation":4}',
                b'{"state":"FAILED","trace":7,"worker_id":"w","generation":4}', b'["RUNNING"]'):
        send(b"status-connector-a", bad)
    assert store.connector("a") == Status("RUNNING", None, 3), "records Java cannot parse are ignored"
    send(b"status-task-my-conn-+2", b'{"state":"PAUSED","trace":null,"worker_id":"w","generation":1}')
    assert store.tasks("my-conn") == {2: Status("PAUSED", "w", 1)}, "Integer.parseInt takes a + sign"
    # Topic keys are cut at the first colon (topic names have none), as Connect does.
    send(b"status-topic-t:connector-a:connector-b", b'{"topic":{"name":"t","connector":"a:connector-b",'
                                                    b'"task":0,"discoverTimestamp":1}}')
    assert store.topics("a:connector-b") == {"t"} and store.topics("b") == set()
    store.put_task("my-conn", 2, Status("DESTROYED", "w", 1))
    assert topic.records[-1][1] is None and store.tasks("my-conn") == {}, "DESTROYED is written as a tombstone"


def test_null_config_values_stay_null() -> None:
    """A null config value reads back as null, not the string "None"."""
    topic = MemoryTopic()
    store = ConfigStore(MemoryLog(topic))
    store.start()
    MemoryLog(topic).send(b"connector-java", b'{"properties":{"connector.class":"X","opt":null}}')
    assert store.snapshot().connectors["java"] == {"connector.class": "X", "opt": None}
    store.put_connector_config("py", {"connector.class": "X", "opt": None})  # type: ignore[dict-item]
    assert topic.records[-1][1] == b'{"properties":{"connector.class":"X","opt":null}}'
    assert store.snapshot().connectors["py"] == {"connector.class": "X", "opt": None}
    store.put_task_configs("py", [{"opt": None}])  # type: ignore[dict-item]
    assert store.snapshot().task_configs["py"] == [{"opt": None}]
    MemoryLog(topic).send(b"connector-odd", b'{"properties":{"flag":true,"n":5}}')
    assert store.snapshot().connectors["odd"] == {"flag": "true", "n": "5"}, "JSON text, not Python's str()"


def test_config_records_of_the_wrong_shape_are_ignored() -> None:
    topic = MemoryTopic()
    store = ConfigStore(MemoryLog(topic))
    store.start()
    send = MemoryLog(topic).send
    send(b"connector-c", b'{"properties":{"k":"v"}}')
    send(b"target-state-c", b'{"state":"PAUSED","state.v2":"STOPPED"}')
    for key, bad in ((b"connector-c", b'{"props":{"k":"w"}}'), (b"connector-c", b'"text"'),
                     (b"target-state-c", b'{"state.v2":"BOGUS","state":"STARTED"}'), (b"target-state-c", b"[]"),
                     (b"commit-c", b'{"tasks":"1"}'), (b"commit-c", None), (b"task-c-0", None)):
        send(key, bad)
    snap = store.snapshot()
    assert snap.connectors == {"c": {"k": "v"}} and snap.target_state("c") == "STOPPED"
    assert "c" not in snap.task_configs and snap.inconsistent == set()
    send(b"target-state-c", b'{"state":"PAUSED","state.v2":5}')  # not a string: the older field counts
    assert store.snapshot().target_state("c") == "PAUSED"
    send(b"task-c-+0", b'{"properties":{"t":"0"}}')
    send(b"commit-c", b'{"tasks":1}')
    assert store.snapshot().task_configs == {"c": [{"t": "0"}]}


def test_session_key_record() -> None:
    topic = MemoryTopic()
    store = ConfigStore(MemoryLog(topic))
    store.start()
    send = MemoryLog(topic).send
    send(b"session-key", b'{"key":"c2VjcmV0","algorithm":"HmacSHA256","creation-timestamp":1700000000000}')
    key = store.snapshot().session_key
    assert key is not None and (key.key, key.algorithm, key.creation_timestamp) == (
        b"secret", "HmacSHA256", 1700000000000)
    send(b"session-key", b'{"key":"c2VjcmV0","algorithm":"HmacSHA256","creation-timestamp":"1"}')
    send(b"session-key", None)
    assert store.snapshot().session_key == key, "malformed session keys and tombstones are ignored"


def test_offset_values_are_read_as_connects_offset_reader_reads_them() -> None:
    topic = MemoryTopic(25)
    store = OffsetStore(MemoryLog(topic))
    store.start()
    send, key = MemoryLog(topic).send, b'["c",{"p":0}]'
    send(key, b'{"offset":1}')
    send(key, b'{"offset":{"nested":1}}')  # OffsetUtils.validateFormat rejects it: no offset any more
    assert store.get("c", {"p": 0}) is None and store.connector_offsets("c") == []
    send(key, b'{"offset":2}')
    send(key, b"not json")
    assert store.get("c", {"p": 0}) is None and store.connector_offsets("c") == []
    send(key, b"null")  # a partition whose offset is null is still listed (GET /offsets shows null)
    assert store.get("c", {"p": 0}) is None and store.connector_offsets("c") == [({"p": 0}, None)]


def test_java_key_parsing() -> None:
    assert java_split("task-foo-", "-") == ["task", "foo"] and java_split("", "-") == [""]
    assert java_split("---", "-") == [] and java_split("-a", "-") == ["", "a"]
    assert [parse_java_int(t) for t in ("7", "+7", "-7", "2147483648", "7 ", "", "1_0", "\u0667")] == [
        7, 7, -7, None, None, None, None, 7]
    assert task_key("task-my-conn-3", 1) == ("my-conn", 3) and task_key("task--0", 1) == ("", 0)
    assert task_key("task-0", 1) is None and task_key("task-foo-x", 1) is None
    assert task_key("status-task-foo-0", 2) == ("foo", 0) and task_key("status-task-0", 2) is None


class _Err:
    def str(self) -> str:
        return "boom"


def test_generic_acks_commit_only_acknowledged_prefix() -> None:
    failures: list[str] = []
    acks = GenericAcks(None, lambda r, m, why: failures.append(why))
    p = {"task": 0}
    e1, e2, e3 = (acks.submit(SourceRecord(p, {"seq": i}, "t", b"v")) for i in range(3))
    e2(None, FakeMessage("t", 0, 1))
    assert acks.committable() == []
    e1(None, FakeMessage("t", 0, 0))
    assert acks.committable() == [(p, {"seq": 1})]
    e3(_Err(), FakeMessage("t", 0, 2))
    assert failures == ["boom"] and acks.committable() == [] and acks.in_flight() == 1


def test_ordered_acks_identify_records_by_partition_order() -> None:
    seen: list[tuple[int, int, int]] = []
    acks = OrderedAcks(lambda r, part, off: seen.append((r.source_offset["offset"], part, off)),
                       lambda r, m, why: None)
    sp0, sp1 = {"partition": 0}, {"partition": 1}
    for i in range(3):
        acks.fifo("t", 0).append(SourceRecord(sp0, {"offset": 10 + i}, "t", b"", None, 0))
        acks.fifo("t", 1).append(SourceRecord(sp1, {"offset": 20 + i}, "t", b"", None, 1))
    acks(None, FakeMessage("t", 1, 100))
    acks(None, FakeMessage("t", 0, 200))
    acks(None, FakeMessage("t", 0, 201))
    assert seen == [(20, 1, 100), (10, 0, 200), (11, 0, 201)]
    assert sorted(acks.committable(), key=str) == sorted([(sp0, {"offset": 11}), (sp1, {"offset": 20})], key=str)
    assert acks.committable() == [] and acks.in_flight() == 3
