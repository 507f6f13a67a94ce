"""The three stores over the in-memory log twin."""

from __future__ import annotations

import orjson

from pyconnect.api import SourceRecord
from pyconnect.runtime.offset_tracker import GenericAcks, OrderedAcks
from pyconnect.storage.config_store import ConfigStore
from pyconnect.storage.log import MemoryLog, MemoryTopic
from pyconnect.storage.offset_store import OffsetStore
from pyconnect.storage.status_store import Status, StatusStore


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


def test_status_store_ignores_older_generations() -> None:
    topic = MemoryTopic(5)
    store = StatusStore(MemoryLog(topic))
    store.start()
    store.put_task("c", 0, Status("RUNNING", "w2:8083", 5))
    store.put_task("c", 0, Status("UNASSIGNED", "w1:8083", 4))  # late write of a fenced worker
    assert store.task("c", 0) == Status("RUNNING", "w2:8083", 5)
    raw = orjson.loads(topic.records[0][1] or b"")
    assert raw == {"state": "RUNNING", "trace": None, "worker_id": "w2:8083", "generation": 5}


class _Err:
    def str(self) -> str:
        return "boom"


class _Msg:
    def __init__(self, topic: str, partition: int, offset: int) -> None:
        self._t, self._p, self._o = topic, partition, offset

    def topic(self) -> str:
        return self._t

    def partition(self) -> int:
        return self._p

    def offset(self) -> int:
        return self._o


def test_generic_acks_commit_only_acknowledged_prefix() -> None:
    failures: list[str] = []
    acks = GenericAcks(None, lambda r, m, why: failures.append(why))
    p = {"task": 0}
    e1, e2, e3 = (acks.submit(SourceRecord(p, {"seq": i}, "t", b"v")) for i in range(3))
    e2(None, _Msg("t", 0, 1))
    assert acks.committable() == []
    e1(None, _Msg("t", 0, 0))
    assert acks.committable() == [(p, {"seq": 1})]
    e3(_Err(), _Msg("t", 0, 2))
    assert failures == ["boom"] and acks.committable() == [] and acks.in_flight() == 1


def test_ordered_acks_identify_records_by_partition_order() -> None:
    seen: list[tuple[int, int, int]] = []
    acks = OrderedAcks(lambda r, part, off: seen.append((r.source_offset["offset"], part, off)),
                       lambda r, m, why: None)
    sp0, sp1 = {"partition": 0}, {"partition": 1}
    for i in range(3):
        acks.fifo("t", 0).append(SourceRecord(sp0, {"offset": 10 + i}, "t", b"", None, 0))
        acks.fifo("t", 1).append(SourceRecord(sp1, {"offset": 20 + i}, "t", b"", None, 1))
    acks(None, _Msg("t", 1, 100))
    acks(None, _Msg("t", 0, 200))
    acks(None, _Msg("t", 0, 201))
    assert seen == [(20, 1, 100), (10, 0, 200), (11, 0, 201)]
    assert sorted(acks.committable(), key=str) == sorted([(sp0, {"offset": 11}), (sp1, {"offset": 20})], key=str)
    assert acks.committable() == [] and acks.in_flight() == 3
