"""Cluster membership, leader election and assignment fencing over one single-partition topic.

librdkafka cannot speak Connect's group protocol, so workers coordinate through a compacted
topic with exactly one partition. Because every worker reads the same records in the same order,
the rules below give every worker the same answer without any other channel:

* Heartbeats: `worker-<id>` = {session, url, seq, ts}, every `heartbeat.interval.ms`. A graceful
  stop writes {left: true}. A member is live while its seq keeps advancing within
  `session.timeout.ms` of the reader's clock (records replayed at start are aged by their `ts`).
* Leadership: `claim-<id>` = {session, leader_epoch}. A claim whose epoch is higher than every
  earlier one wins; later claims of the same epoch lose. A worker claims only when the current
  leader is dead and it is the longest-joined live member, so normally exactly one claims.
* Assignments: `assignment` = {leader, leader_session, leader_epoch, generation, assignment}. It
  is accepted only from the current leader's session and epoch, and only if its generation is
  newer. A deposed leader's writes are therefore ignored by everyone (fencing).
* Self-fencing: a worker that cannot read the topic for a session timeout assumes it may have
  been replaced and stops its tasks (see `Membership.in_sync`).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from pyconnect.logging_context import context_thread
from pyconnect.runtime.assignment import WorkerAssignment
from pyconnect.storage.log import Log

log = logging.getLogger(__name__)


@dataclass
class Member:
    worker_id: str
    session: str
    url: str
    seq: int
    join_order: int  # log offset of the first heartbeat of this session
    last_seen: float  # monotonic seconds
    left: bool = False


@dataclass(frozen=True)
class Assignment:
    leader: str
    leader_session: str
    leader_url: str
    leader_epoch: int
    generation: int
    workers: dict[str, WorkerAssignment] = field(default_factory=dict)

    def of(self, worker_id: str) -> WorkerAssignment:
        return self.workers.get(worker_id, WorkerAssignment())


class Membership:
    """One worker's view of the cluster, plus its heartbeat and claim writers."""

    def __init__(self, log_: Log, worker_id: str, url: str, session_timeout_ms: int,
                 heartbeat_interval_ms: int, on_change: Callable[[], None] | None = None) -> None:
        self._log = log_
        self.worker_id = worker_id
        self.url = url
        self.session = uuid.uuid4().hex[:12]
        self.session_timeout = session_timeout_ms / 1000.0
        self.heartbeat_interval = heartbeat_interval_ms / 1000.0
        self._on_change = on_change
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._members: dict[str, Member] = {}
        self._leader: tuple[str, str] | None = None
        self._leader_epoch = 0
        self._assignment: Assignment | None = None
        self._seq = 0
        self._last_sync = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # lifecycle -------------------------------------------------------------------------------

    def start(self, timeout: float = 60.0) -> None:
        self._log.start(self._on_record, timeout)
        self._heartbeat()
        self.sync(timeout)
        self._thread = context_thread(self._heartbeat_loop, "membership-heartbeat")
        self._thread.start()

    def stop(self) -> None:
        """Leave the cluster: followers see it at once, no session timeout needed."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        try:
            self._send(f"worker-{self.worker_id}", {"worker": self.worker_id, "session": self.session,
                                                   "left": True, "ts": _now_ms()})
            self._log.flush(5)
        except Exception:
            log.warning("could not write the leave record", exc_info=True)
        self._log.stop()

    def sync(self, timeout: float = 10.0) -> bool:
        """Read the topic to its end; records when this worker was last known to be in sync."""
        try:
            self._log.read_to_end(timeout)
        except Exception as exc:
            log.warning("membership topic not readable: %s", exc)
            return False
        self._last_sync = time.monotonic()
        return True

    def in_sync(self) -> bool:
        """False once this worker has been unable to read the topic for a session timeout."""
        return time.monotonic() - self._last_sync < self.session_timeout

    # queries ---------------------------------------------------------------------------------

    def live_members(self) -> dict[str, Member]:
        now = time.monotonic()
        with self._lock:
            return {wid: m for wid, m in self._members.items()
                    if not m.left and now - m.last_seen < self.session_timeout}

    @property
    def leader(self) -> tuple[str, str] | None:
        with self._lock:
            return self._leader

    @property
    def leader_epoch(self) -> int:
        with self._lock:
            return self._leader_epoch

    def leader_url(self) -> str | None:
        with self._lock:
            if self._leader is None:
                return None
            member = self._members.get(self._leader[0])
            return member.url if member and member.session == self._leader[1] else None

    def await_leader(self, timeout: float) -> bool:
        """Wait until some leader (this worker or a live peer with a URL) is known.

        A request that arrives while the worker is still joining waits here, as Connect's herder queues
        requests until its first rebalance, rather than failing at once with 409.
        """
        with self._changed:
            return self._changed.wait_for(lambda: self.is_leader() or self.leader_url() is not None, timeout)

    def is_leader(self) -> bool:
        with self._lock:
            return self._leader == (self.worker_id, self.session)

    @property
    def assignment(self) -> Assignment | None:
        with self._lock:
            return self._assignment

    def leader_alive(self) -> bool:
        leader = self.leader
        if leader is None:
            return False
        member = self.live_members().get(leader[0])
        return member is not None and member.session == leader[1]

    # election and assignment -----------------------------------------------------------------

    def maybe_claim(self) -> bool:
        """Claim leadership if the leader is gone and this worker is first in join order."""
        if not self.in_sync() or self.leader_alive():
            return False
        live = self.live_members()
        me = live.get(self.worker_id)
        if me is None or me.session != self.session:
            return False
        first = min(live.values(), key=lambda m: (m.join_order, m.worker_id))
        if first.worker_id != self.worker_id:
            return False
        epoch = self.leader_epoch + 1
        log.info("claiming cluster leadership (epoch %d)", epoch)
        self._send(f"claim-{self.worker_id}", {"worker": self.worker_id, "session": self.session,
                                               "leader_epoch": epoch, "url": self.url, "ts": _now_ms()})
        self._log.flush(10)
        self.sync()
        return self.is_leader()

    def publish(self, workers: Mapping[str, WorkerAssignment]) -> bool:
        """Leader only: write a new assignment (fenced by epoch); returns False if not leader."""
        with self._lock:
            if not self.is_leader():
                return False
            generation = (self._assignment.generation if self._assignment else 0) + 1
            epoch = self._leader_epoch
        self._send("assignment", {
            "leader": self.worker_id, "leader_session": self.session, "leader_url": self.url,
            "leader_epoch": epoch, "generation": generation,
            "assignment": {w: {"connectors": sorted(a.connectors), "tasks": sorted(a.tasks)}
                           for w, a in workers.items()},
        })
        self._log.flush(10)
        self.sync()
        return True

    # internals -------------------------------------------------------------------------------

    def _send(self, key: str, value: dict[str, Any]) -> None:
        self._log.send(key.encode(), orjson.dumps(value), partition=0)

    def _heartbeat(self) -> None:
        self._seq += 1
        self._send(f"worker-{self.worker_id}", {"worker": self.worker_id, "session": self.session,
                                                "url": self.url, "seq": self._seq, "ts": _now_ms()})

    def _heartbeat_loop(self) -> None:
        while not self._stop.wait(self.heartbeat_interval):
            try:
                self._heartbeat()
            except Exception:
                log.warning("heartbeat not sent", exc_info=True)

    def _on_record(self, raw_key: bytes | None, raw_value: bytes | None, _p: int, offset: int) -> None:
        if raw_key is None or raw_value is None:
            return
        try:
            key, value = raw_key.decode(), orjson.loads(raw_value)
        except (UnicodeDecodeError, orjson.JSONDecodeError):
            return
        with self._lock:
            changed = self._apply(key, value, offset)
            if changed:
                self._changed.notify_all()
        if changed and self._on_change is not None:
            self._on_change()

    def _apply(self, key: str, v: dict[str, Any], offset: int) -> bool:
        if key.startswith("worker-"):
            return self._apply_heartbeat(v, offset)
        if key.startswith("claim-"):
            epoch = int(v.get("leader_epoch", 0))
            if epoch <= self._leader_epoch:
                return False  # a losing or stale claim
            self._leader_epoch = epoch
            self._leader = (str(v["worker"]), str(v["session"]))
            log.info("leader is now %s (epoch %d)", v["worker"], epoch)
            return True
        if key == "assignment":
            fresh = (int(v.get("leader_epoch", -1)) == self._leader_epoch
                     and self._leader == (v.get("leader"), v.get("leader_session"))
                     and int(v.get("generation", 0)) > (self._assignment.generation if self._assignment else 0))
            if not fresh:
                return False  # fenced: not from the current leader, or not newer
            workers = {w: WorkerAssignment(frozenset(a.get("connectors", ())), frozenset(a.get("tasks", ())))
                       for w, a in v.get("assignment", {}).items()}
            self._assignment = Assignment(str(v["leader"]), str(v["leader_session"]), str(v.get("leader_url", "")),
                                          self._leader_epoch, int(v["generation"]), workers)
            return True
        return False

    def _apply_heartbeat(self, v: dict[str, Any], offset: int) -> bool:
        wid, session = str(v.get("worker")), str(v.get("session"))
        age = max(0.0, (_now_ms() - int(v.get("ts", 0))) / 1000.0)
        seen = time.monotonic() - age
        member = self._members.get(wid)
        if v.get("left"):
            if member is not None and member.session == session:
                member.left = True
                return True
            return False
        if member is None or member.session != session:
            self._members[wid] = Member(wid, session, str(v.get("url", "")), int(v.get("seq", 0)), offset, seen)
            return True
        if int(v.get("seq", 0)) > member.seq:
            member.seq = int(v["seq"])
            member.last_seen = max(member.last_seen, seen)
        return False


def _now_ms() -> int:
    return int(time.time() * 1000)
