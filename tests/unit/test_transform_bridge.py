"""How the runtime hands a task's records and message runs to a transformation chain."""

from __future__ import annotations

import threading
from typing import Any

from pyconnect.api import MessageRun, MessageRunTask
from pyconnect.converters.builtin import byte_array
from pyconnect.runtime.source.delivery import DeliveryContext
from pyconnect.runtime.source.transform_bridge import TransformingRunDelivery, topic_only
from pyconnect.transforms.connector_config import build_chain

ROUTE = {"transforms": "r", "transforms.r.type": "RegexRouter", "transforms.r.regex": "A\\.(.*)",
         "transforms.r.replacement": "renamed-$1"}
DROP_B = {"transforms": "r,f", **{k: v for k, v in ROUTE.items() if k != "transforms"},
          "transforms.f.type": "Filter", "transforms.f.predicate": "b", "predicates": "b",
          "predicates.b.type": "TopicNameMatches", "predicates.b.pattern": "renamed-b"}
HEADER = {**ROUTE, "transforms": "r,h", "transforms.h.type": "InsertHeader", "transforms.h.header": "x",
          "transforms.h.value.literal": "y"}


class _Message:
    def __init__(self, offset: int) -> None:
        self._offset = offset

    def key(self) -> bytes:
        return b"k"

    def value(self) -> bytes:
        return b"v%d" % self._offset

    def timestamp(self) -> tuple[int, int]:
        return (1, 1000 + self._offset)

    def headers(self) -> Any:
        return None

    def offset(self) -> int:
        return self._offset


class _Runs(MessageRunTask):
    def __init__(self, runs: list[MessageRun]) -> None:
        self.runs = runs

    def start(self, config: Any) -> None: ...
    def stop(self) -> None: ...
    def poll_runs(self) -> list[MessageRun] | None: return self.runs


def _delivery(config: dict[str, str], runs: list[MessageRun]) -> TransformingRunDelivery:
    context = DeliveryContext(byte_array, byte_array, threading.Event(), set(), lambda _t: None, lambda _m: None)
    return TransformingRunDelivery(_Runs(runs), context, build_chain(config))


def _runs() -> list[MessageRun]:
    return [MessageRun({"p": 0}, "A.a", 0, [_Message(o) for o in range(3)]),
            MessageRun({"p": 1}, "A.b", 1, [_Message(o) for o in range(2)])]


def test_a_topic_only_chain_relabels_whole_runs_and_keeps_their_messages() -> None:
    assert topic_only(build_chain(ROUTE)) and topic_only(build_chain(DROP_B)) and not topic_only(build_chain(HEADER))
    runs = _runs()
    out = _delivery(DROP_B, runs).poll()
    assert out is not None and [(r.topic, r.partition, r.source_partition) for r in out] == [("renamed-a", 0, {"p": 0})]
    assert out[0].messages is runs[0].messages, "the messages themselves are handed on, untouched"


def test_other_chains_go_message_by_message_and_keep_each_offset() -> None:
    out = _delivery(HEADER, _runs()).poll()
    assert out is not None and [(r.topic, len(r.messages)) for r in out] == [("renamed-a", 3), ("renamed-b", 2)]
    m = out[0].messages[1]
    assert (m.offset(), m.value(), m.headers(), m.timestamp()[1]) == (1, b"v1", [("x", b"y")], 1001)
