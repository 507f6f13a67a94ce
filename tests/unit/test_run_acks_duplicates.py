"""Acknowledgements without an offset: an idempotent producer that resends after a broker restart gets a
duplicate's acknowledgement, which carries no offset (librdkafka reports it as None). The run is delivered:
its source offsets commit, but no position is reported (no offset sync is written for it). Found by the
target-broker restart test (tests/test_cluster_outages.py); it failed the task with an unreadable SystemError."""

from __future__ import annotations

from typing import Any

from pyconnect.api.records import MessageRun
from pyconnect.runtime.source.run_acks import RunAcks


class _Msg:
    def __init__(self, offset: int | None) -> None:
        self._offset = offset

    def offset(self) -> int | None:
        return self._offset


def _run(n: int) -> MessageRun:
    return MessageRun({"topic": "t", "partition": 0}, "t", 0, [_Msg(100 + i) for i in range(n)])


def test_a_run_acknowledged_without_offsets_commits_but_reports_no_position() -> None:
    reported: list[Any] = []
    failures: list[str] = []
    acks = RunAcks(lambda run, first, last: reported.append((first, last)), failures.append)
    run = _run(3)
    callback = acks.callback(run)
    callback(None, _Msg(None))
    callback(None, _Msg(None))
    assert failures == [] and reported == []
    assert acks.committable() == [({"topic": "t", "partition": 0}, {"offset": 102})]


def test_a_known_first_and_unknown_last_offset_is_still_delivered() -> None:
    reported: list[Any] = []
    acks = RunAcks(lambda run, first, last: reported.append((first, last)), lambda reason: None)
    callback = acks.callback(_run(2))
    callback(None, _Msg(7))
    callback(None, _Msg(None))
    assert reported == [] and acks.committable()[0][1] == {"offset": 101}


def test_an_error_inside_the_callback_fails_the_run_readably() -> None:
    failures: list[str] = []

    def boom(run: MessageRun, first: int, last: int) -> None:
        raise ValueError("sync writer broke")
    acks = RunAcks(boom, failures.append)
    callback = acks.callback(_run(1))
    callback(None, _Msg(5))
    assert len(failures) == 1 and "sync writer broke" in failures[0]
