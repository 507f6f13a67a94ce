"""One offset flush of an at-least-once source task, written and waited for on a thread of its own.

Connect flushes a source task's offsets on its SourceTaskOffsetCommitter thread, not on the task's: while the
offsets topic does not answer, the task keeps polling and producing, and the flush gives up after
`offset.flush.timeout.ms` ("Timed out waiting to flush offsets to storage; will try again on next flush interval
with latest offsets"). `OffsetFlush` is that wait; `FlushCommitter` (runtime/source/committers.py) starts one,
looks at it from the task's thread, and keeps the offsets of one that failed for the next.

Invariant: a flush only writes and waits. It never touches the committer's state: its outcome (`ok`,
`elapsed_ms`) is read by the task's thread once `ended` is set.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

from pyconnect.logging_context import context_thread
from pyconnect.runtime.source.offset_stores import ConnectorOffsetStores

log = logging.getLogger(__name__)

#: canonical source partition -> (partition, offset)
PendingOffsets = dict[str, tuple[Mapping[str, Any], Mapping[str, Any]]]


class OffsetFlush:
    """Writes `pending` to the task's primary offset store and waits for it, within `timeout` seconds."""

    def __init__(self, task_id: str, connector: str, offsets: ConnectorOffsetStores, pending: PendingOffsets,
                 timeout: float) -> None:
        self.task_id, self.pending = task_id, pending
        self.started = time.monotonic()
        self.ok = False  # the outcome, once `ended` is set
        self.elapsed_ms = 0.0
        self.ended = threading.Event()
        self._connector, self._offsets, self._deadline = connector, offsets, self.started + timeout
        # A daemon: a flush waiting on a cluster that is gone must not hold up the process's exit.
        context_thread(self._run, f"offset-flush-{task_id}").start()

    def wait(self, timeout: float) -> bool:
        """Whether the flush ended within `timeout` seconds."""
        return self.ended.wait(max(0.0, timeout))

    def _remaining(self) -> float:
        return max(0.0, self._deadline - time.monotonic())

    def _run(self) -> None:
        try:
            futures = self._offsets.put(self._connector, self.pending.values())
            self._offsets.flush(self._remaining())  # one budget for the whole flush, as Connect's
            for fut in futures:
                fut.result(self._remaining())
            self.ok = True
        except TimeoutError:
            log.error("[%s] Timed out waiting to flush offsets to storage; will try again on next flush interval "
                      "with latest offsets", self.task_id)
        except Exception as exc:
            log.error("[%s] Failed to flush offsets to storage: %s", self.task_id, exc)
        finally:
            self.elapsed_ms = (time.monotonic() - self.started) * 1000
            if not self.ok:  # Connect's SourceTaskOffsetCommitter line, with what an operator needs to know
                log.error("[%s] Failed to commit offsets: gave up after %d ms; the offsets of %d source "
                          "partition(s) are kept for the next flush", self.task_id, self.elapsed_ms,
                          len(self.pending))
            self.ended.set()
