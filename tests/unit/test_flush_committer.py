"""A source task's offset flush that fails loses no offset: the next flush writes it again.

Followed: Kafka's OffsetStorageWriterTest.testFlushFailureReplacesOffsets (a failed flush puts its offsets back,
the next flush writes them, a third has nothing to write) and WorkerSourceTask.commitOffsets (newer offsets of
acknowledged records replace the kept ones). The end-to-end test of a flush that times out against a frozen
broker is tests/test_offset_flush_timeout.py; here the store refuses writes outright, which a frozen broker
does not do (the write it was sent lands once it is back).
"""

from __future__ import annotations

import logging
import re
from concurrent.futures import Future
from typing import Any

import pytest

from pyconnect.api import SourceRecord
from pyconnect.runtime.source.committers import FlushCommitter
from pyconnect.runtime.source.offset_stores import ConnectorOffsetStores
from pyconnect.runtime.source.offset_tracker import GenericAcks
from pyconnect.storage.log import MemoryLog, MemoryTopic
from pyconnect.storage.offset_store import OffsetStore

A, B = {"file": "a"}, {"file": "b"}


class RefusingLog(MemoryLog):
    """The in-memory log twin, answering every write with an error while `refusing` (as a broker answers a
    produce it cannot take); `writes` counts the writes asked for."""

    def __init__(self, topic: MemoryTopic) -> None:
        super().__init__(topic)
        self.refusing, self.writes = False, 0

    def send(self, key: bytes, value: bytes | None, partition: int | None = None) -> Future[None]:
        self.writes += 1
        if not self.refusing:
            return super().send(key, value, partition)
        refused: Future[None] = Future()
        refused.set_exception(RuntimeError("write to offsets failed: Broker: Not enough in-sync replicas"))
        return refused


def _ack(acks: GenericAcks, partition: dict[str, str], position: int) -> None:
    """A record of `partition` up to `position`, sent and acknowledged by Kafka."""
    acks.submit(SourceRecord(partition, {"position": position}, "lines", b"line"))(None, None)


def test_a_failed_flush_keeps_its_offsets_and_the_next_flush_writes_them(caplog: pytest.LogCaptureFixture) -> None:
    log_ = RefusingLog(MemoryTopic(25))
    store = OffsetStore(log_)
    store.start()
    acks = GenericAcks(None, lambda *_: None)
    commits: list[int] = []
    delivery: Any = acks  # the committer reads only `committable()` of its delivery
    committer = FlushCommitter("file-0", "file", None, delivery,  # type: ignore[arg-type]  # (only pause() uses it)
                               ConnectorOffsetStores(store), 60.0, 5.0, lambda: commits.append(1))

    log_.refusing = True
    _ack(acks, A, 10)
    _ack(acks, B, 5)
    with caplog.at_level(logging.ERROR):
        committer.commit()
    assert (store.get("file", A), store.get("file", B)) == (None, None) and commits == []
    cause, failed = (r.getMessage() for r in caplog.records)
    assert cause == "[file-0] Failed to flush offsets to storage: write to offsets failed: Broker: Not enough " \
                    "in-sync replicas"
    assert re.fullmatch(r"\[file-0\] Failed to commit offsets: gave up after \d+ ms; the offsets of 2 source "
                        r"partition\(s\) are kept for the next flush", failed), failed

    log_.refusing = False
    _ack(acks, A, 20)  # acknowledged after the failed flush: it replaces A's kept offset, B's stays
    committer.commit()
    assert (store.get("file", A), store.get("file", B)) == ({"position": 20}, {"position": 5}) and commits == [1]

    writes = log_.writes
    committer.commit()
    assert log_.writes == writes and commits == [1], "nothing left to write: the flush wrote the kept offsets once"
