"""Membership records: the dataclasses write the JSON earlier versions wrote, and read their topics.

The hand-over added two fields (a heartbeat's `applied`, an assignment's `revoked`). They are written only
when set, after the older fields, so a record without them is still byte for byte the previous version's
(the tests on PREVIOUS below are unchanged), and a record with them is the previous bytes plus the new
field, which readers of the previous version ignore (they read fields by name).
"""

from __future__ import annotations

import dataclasses

import pytest

from pyconnect.api.task_id import TaskId
from pyconnect.runtime.cluster.assignment import WorkerAssignment
from pyconnect.runtime.cluster.membership import Membership
from pyconnect.runtime.cluster.membership_records import (
    Assignment,
    Heartbeat,
    LeaderClaim,
    Leave,
    Revocation,
    decode,
    encode,
)
from pyconnect.storage.log import MemoryLog, MemoryTopic
from tests.harness.clock import FakeClock

# Records exactly as the previous version (plain dicts through orjson.dumps) wrote them.
PREVIOUS = {
    "heartbeat": (b"worker-a", b'{"worker":"a","session":"s1","url":"http://a:8083","seq":3,"ts":1700000000123}'),
    "leave": (b"worker-a", b'{"worker":"a","session":"s1","left":true,"ts":1700000000456}'),
    "claim": (b"claim-a", b'{"worker":"a","session":"s1","leader_epoch":2,"url":"http://a:8083","ts":1700000000789}'),
    "assignment": (b"assignment", b'{"leader":"a","leader_session":"s1","leader_url":"http://a:8083","leader_epoch":2,'
                                  b'"generation":5,"assignment":{"b":{"connectors":["c1"],"tasks":["c1-0","c1-1"]},'
                                  b'"a":{"connectors":[],"tasks":["c2-0"]}}}'),
}
RECORDS = {
    "heartbeat": Heartbeat("a", "s1", "http://a:8083", 3, 1700000000123),
    "leave": Leave("a", "s1", 1700000000456),
    "claim": LeaderClaim("a", "s1", 2, "http://a:8083", 1700000000789),
    "assignment": Assignment("a", "s1", "http://a:8083", 2, 5, {
        "b": WorkerAssignment(frozenset({"c1"}), frozenset({TaskId("c1", 1), TaskId("c1", 0)})),
        "a": WorkerAssignment(frozenset(), frozenset({TaskId("c2", 0)}))}),
}


@pytest.mark.parametrize("kind", sorted(PREVIOUS))
def test_records_of_the_previous_version_are_read(kind: str) -> None:
    assert decode(*PREVIOUS[kind]) == RECORDS[kind]


@pytest.mark.parametrize("kind", sorted(PREVIOUS))
def test_records_are_written_byte_for_byte_as_the_previous_version_wrote_them(kind: str) -> None:
    assert encode(RECORDS[kind]) == PREVIOUS[kind]


@pytest.mark.parametrize("kind", sorted(PREVIOUS))
def test_each_record_type_round_trips(kind: str) -> None:
    record = RECORDS[kind]
    assert type(record).from_json(record.to_json()) == record


# The same records with the hand-over's fields set: the previous version's bytes plus one field at the end.
HANDOVER = {
    "heartbeat": (dataclasses.replace(RECORDS["heartbeat"], applied=7), b',"applied":7}'),
    "assignment": (dataclasses.replace(RECORDS["assignment"], revoked={
        "a": Revocation(frozenset(), frozenset({TaskId("c2", 1)}), 5),
        "b": Revocation(frozenset({"c3"}), frozenset(), 4)}),
        b',"revoked":{"a":{"connectors":[],"tasks":["c2-1"],"generation":5},'
        b'"b":{"connectors":["c3"],"tasks":[],"generation":4}}}'),
}


@pytest.mark.parametrize("kind", sorted(HANDOVER))
def test_hand_over_fields_are_appended_to_the_previous_versions_bytes(kind: str) -> None:
    record, tail = HANDOVER[kind]
    key, value = PREVIOUS[kind]
    assert encode(record) == (key, value[:-1] + tail)
    assert decode(key, value[:-1] + tail) == record
    assert decode(key, value) == RECORDS[kind], "without the field: applied 0, nothing revoked"


def test_identity_fields_are_appended_to_the_previous_versions_bytes() -> None:
    """One identity per worker (membership.py): the writer's process and the session it replaces."""
    record = dataclasses.replace(RECORDS["heartbeat"], applied=7, host="h", pid=42, pid_ns="boot/4026531836",
                                 replaces="s0")
    key, value = PREVIOUS["heartbeat"]
    tail = b',"applied":7,"host":"h","pid":42,"pid_ns":"boot/4026531836","replaces":"s0"}'
    assert encode(record) == (key, value[:-1] + tail)
    assert decode(key, value[:-1] + tail) == record
    assert decode(key, value) == RECORDS["heartbeat"], "a worker of an earlier version: no pid, replaces nothing"


def test_a_worker_of_this_version_reports_what_it_applied() -> None:
    clock = FakeClock()
    topic = MemoryTopic()
    a = Membership(MemoryLog(topic), "a", "http://a", 10_000, 3_000, clock=clock)
    a.start()
    clock.await_sleeper("membership-heartbeat-a")
    assert a.live_members()["a"].applied == 0
    a.report_applied(3)
    a.report_applied(2)  # never backwards
    assert a.live_members()["a"].applied == 3
    beats = [decode(k, v) for k, v, _p, _o in topic.records if k == b"worker-a" and v is not None]
    assert [b.applied for b in beats if isinstance(b, Heartbeat)] == [0, 3], "one prompt beat, not a second"
    a.stop()


def test_fields_earlier_writers_left_out_take_the_defaults_they_had() -> None:
    assert decode(b"claim-b", b'{"worker":"b","session":"s"}') == LeaderClaim("b", "s", 0, "", 0)
    assert decode(b"worker-b", b'{"worker":"b","session":"s"}') == Heartbeat("b", "s", "", 0, 0)
    assert decode(b"assignment", b'{"leader":"a","leader_session":"s","assignment":{"a":{"tasks":["c-1"]}}}') == \
        Assignment("a", "s", "", -1, 0, {"a": WorkerAssignment(frozenset(), frozenset({TaskId("c", 1)}))})


@pytest.mark.parametrize(("key", "value"), [
    (b"worker-a", b"not json"), (b"worker-a", b"[1]"), (b"worker-a", b'{"session":"s"}'),
    (b"claim-a", b'{"worker":"a","session":"s","leader_epoch":null}'), (b"\xff", b"{}"),
    (b"assignment", b'{"leader":"a","leader_session":"s","assignment":{"a":["c-0"]}}'),
    (b"assignment", b'{"leader":"a","leader_session":"s","assignment":{},"revoked":["a"]}'),
    (b"assignment", b'{"leader":"a","leader_session":"s","assignment":{},"revoked":{"a":{"tasks":["x"]}}}'),
    (b"worker-a", b'{"worker":"a","session":"s","applied":null}'),
])
def test_malformed_records_are_value_errors(key: bytes, value: bytes) -> None:
    with pytest.raises(ValueError):
        decode(key, value)


def test_other_keys_are_not_membership_records() -> None:
    assert decode(b"something-else", b"whatever") is None


def test_a_worker_of_this_version_reads_a_topic_the_previous_version_wrote() -> None:
    clock = FakeClock(wall=1_700_000_001.0)  # the records below are at most 1 s old
    topic = MemoryTopic()
    writer = MemoryLog(topic)
    for key, value in [
        (b"worker-x", b'{"worker":"x","session":"sx","url":"http://x","seq":1,"ts":1700000000000}'),
        (b"worker-y", b'{"worker":"y","session":"sy","url":"http://y","seq":1,"ts":1700000000000}'),
        (b"worker-w", b'{"worker":"w","session":"sw","url":"http://w","seq":1,"ts":1700000000000}'),
        (b"claim-x", b'{"worker":"x","session":"sx","leader_epoch":1,"url":"http://x","ts":1700000000100}'),
        (b"assignment", b'{"leader":"x","leader_session":"sx","leader_url":"http://x","leader_epoch":1,'
                        b'"generation":1,"assignment":{"x":{"connectors":["c"],"tasks":["c-0"]},'
                        b'"y":{"connectors":[],"tasks":["c-1"]}}}'),
        (b"worker-w", b'{"worker":"w","session":"sw","left":true,"ts":1700000000200}'),
        (b"worker-y", b'{"worker":"y","session":"sy","url":"http://y","seq":2,"ts":1700000000500}'),
        (b"junk", b"\x00"), (b"worker-v", b"not json"),  # ignored: not a record, a malformed one
    ]:
        writer.send(key, value, partition=0)
    z = Membership(MemoryLog(topic), "z", "http://z", 10_000, 3_000, clock=clock)
    z.start()
    clock.await_sleeper("membership-heartbeat-z")
    assert z.leader == ("x", "sx") and z.leader_epoch == 1 and z.leader_url() == "http://x" and not z.is_leader()
    assert sorted(z.live_members()) == ["x", "y", "z"], "w left; x, y and z are live"
    assert z.assignment is not None and z.assignment.generation == 1
    assert z.assignment.of("x") == WorkerAssignment(frozenset({"c"}), frozenset({TaskId("c", 0)}))
    assert z.assignment.of("y").tasks == {TaskId("c", 1)} and z.assignment.of("z") == WorkerAssignment()
    assert not z.maybe_claim(), "the leader of the previous version is alive"
    z.stop()
