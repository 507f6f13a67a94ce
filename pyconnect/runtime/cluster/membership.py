"""Cluster membership, leader election and assignment fencing over one single-partition topic.

librdkafka cannot speak Connect's group protocol, so workers coordinate through a compacted
topic with exactly one partition. Because every worker reads the same records in the same order,
the rules below give every worker the same answer without any other channel:

* Heartbeats: `worker-<id>` = {session, url, seq, ts, applied}, every `heartbeat.interval.ms`, and at
  once when the worker has applied a new assignment generation (`applied`: everything outside its
  share of that generation is stopped). A graceful stop writes {left: true}. A member is live while
  its seq keeps advancing within `session.timeout.ms` of the reader's clock (records replayed at start
  are aged by their `ts`).
* Leadership: `claim-<id>` = {session, leader_epoch}. A claim whose epoch is higher than every
  earlier one wins; later claims of the same epoch lose. A worker claims only when the current
  leader is dead and it is the longest-joined live member, so normally exactly one claims.
* Assignments: `assignment` = {leader, leader_session, leader_epoch, generation, assignment, revoked}.
  It is accepted only from the current leader's session and epoch, and only if its generation is
  newer. A deposed leader's writes are therefore ignored by everyone (fencing). A unit moving between
  two live workers is first revoked, then placed once its old owner's `applied` confirms the stop
  (handover.py states the invariant).
* Self-fencing: a worker that cannot read the topic for a session timeout assumes it may have
  been replaced and stops its tasks (see `Membership.in_sync`). The topic is read to its end every half
  heartbeat interval by a thread of the membership's own (`membership-reader-<id>`), as heartbeats are written
  by another: the worker's loop, and so any connector or task, cannot delay either (worker.py).
* One identity per worker id. Invariant: at every log offset each worker id has at most one owner
  session, and only the owner's heartbeats count (liveness, `applied`, join order, claims); the leader
  therefore places work only on owners, and a process acts on its id's share of an assignment only
  while its own session is the owner. Every reader derives the owner from the log in log order
  (worker_identity.replaces), from the records alone (no reader's clock): the first heartbeat of an id
  makes its session the owner; a heartbeat of another session takes the id over only if the owner
  left, or it names the owner in `replaces`, or its `ts` is a session timeout or more after the owner's
  newest heartbeat. Any other session of the id is a contender, ignored by everyone. A starting
  process beats once (its join claim) and then:
  - owns the id: it runs (a fresh id, or a restart after a leave, after a crash more than a session
    timeout ago, or after a crash of a process of this machine and pid namespace whose pid no longer
    exists: no wait, its first beat already `replaces` the old session);
  - sees the owner beat again at an offset after its join claim: the owner is another live process,
    so it refuses to start (`WorkerIdInUse`, naming the owner's host, pid and URL), never claiming and
    never running anything. Two processes starting at once are ordered by the offsets of their first
    heartbeats: the earlier one owns the id, the later one refuses within a heartbeat interval;
  - sees the owner leave, or stay silent for the rest of its session timeout (a crash just before the
    restart): it beats with `replaces` and owns the id.
  An owner that reads a heartbeat taking its id over (it froze for a session timeout and another
  process replaced it) is fenced for good: it stops beating, claims nothing and runs nothing
  (`Membership.fenced`). A session that lost or left the id never owns it again. Compaction keeps only
  the newest `worker-<id>` record: a fresh reader that finds a refused contender's beat before the
  owner's surviving ones takes the contender for the owner until the owner's beats are a session
  timeout newer than the contender's last (the `ts` rule above); running processes never re-read.

The records themselves are the dataclasses of membership_records.py. Every reading of time and every
timed wait goes through a `Clock` (the real one unless a test injects another).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping

from pyconnect.logging_context import context_thread
from pyconnect.runtime.clock import SYSTEM_CLOCK, Clock
from pyconnect.runtime.cluster.assignment import WorkerAssignment
from pyconnect.runtime.cluster.membership_records import (
    Assignment,
    Heartbeat,
    LeaderClaim,
    Leave,
    MembershipRecord,
    Revocation,
    decode,
    encode,
)
from pyconnect.runtime.cluster.worker_identity import Member, MemberTable, WorkerIdInUse, in_use_message, this_process
from pyconnect.storage.log import Log

__all__ = ["Assignment", "Member", "Membership", "WorkerIdInUse"]

log = logging.getLogger(__name__)


class Membership:
    """One worker's view of the cluster, plus its heartbeat and claim writers."""

    def __init__(self, log_: Log, worker_id: str, url: str, session_timeout_ms: int,
                 heartbeat_interval_ms: int, on_change: Callable[[], None] | None = None,
                 clock: Clock = SYSTEM_CLOCK) -> None:
        self._log = log_
        self._clock = clock
        self.worker_id = worker_id
        self.url = url
        self.session = uuid.uuid4().hex[:12]
        self.session_timeout = session_timeout_ms / 1000.0
        self.heartbeat_interval = heartbeat_interval_ms / 1000.0
        self._on_change = on_change
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._process = this_process()
        self._table = MemberTable(worker_id, self.session, self.session_timeout, self._process)
        self._members = self._table.members  # the owners only, by worker id
        self._leader: tuple[str, str] | None = None
        self._leader_epoch = 0
        self._assignment: Assignment | None = None
        self._seq = 0
        self._applied = 0  # the generation this worker reports as applied; both guarded by _beat_lock
        self._beat_lock = threading.Lock()  # the heartbeat thread and report_applied both beat
        self._last_sync = float("-inf")  # not in sync before the first read to the end
        self.lapses = 0  # times this worker came back in sync after a session timeout out of it
        self._stopping = False  # guarded by _changed; ends the heartbeat and reader loops
        self._unreadable = False  # the last read failed: its WARNING is out, the next success says so
        self._sync_lock = threading.Lock()  # _last_sync and lapses: the reader thread and the loop both sync
        self._threads: list[threading.Thread] = []

    # lifecycle -------------------------------------------------------------------------------

    def start(self, timeout: float = 60.0) -> None:
        """Read the topic, send a first heartbeat (the join claim), wait until this session owns its worker
        id, and keep beating every heartbeat interval on a thread. WorkerIdInUse if another live process
        owns the id (nothing was started then)."""
        self._log.start(self._on_record, timeout)
        try:
            self._heartbeat(self._dead_owner())
            self.sync(timeout)
            self._await_identity(timeout + self.session_timeout)  # a crashed predecessor is waited out
        except BaseException:
            self._log.stop(5.0)
            raise
        # Two threads of their own, so that nothing else the worker does can delay them (worker.py's isolation
        # rule): one writes the heartbeats, one reads the topic (the worker's `in_sync` clock).
        self._threads = [context_thread(self._heartbeat_loop, f"membership-heartbeat-{self.worker_id}"),
                         context_thread(self._reader_loop, f"membership-reader-{self.worker_id}")]
        for thread in self._threads:
            thread.start()

    @property
    def fenced(self) -> str | None:
        """Why this session lost its worker id to another process (None while it owns it)."""
        with self._lock:
            return self._table.fenced

    def _dead_owner(self) -> str:
        with self._lock:
            return self._table.dead_owner(self._clock.monotonic())

    def _identity(self) -> str:
        return self._table.state(self._clock.monotonic())

    def _await_identity(self, timeout: float) -> None:
        deadline = self._clock.monotonic() + timeout
        while True:
            with self._changed:
                owner = self._members.get(self.worker_id)
                # Wake on every record, or when the owner's session timeout runs out (then it is `free`).
                expiry = (owner.last_seen + self.session_timeout if owner is not None
                          else self._clock.monotonic() + self.heartbeat_interval)
                # At least 1 ms: time moves on between two looks even where float rounding lands a clock
                # just short of `expiry`.
                wait = max(0.001, min(deadline, expiry) - self._clock.monotonic())
                self._clock.wait_for(self._changed, lambda: self._identity() in ("owner", "in use", "free"), wait)
                state, owner = self._identity(), self._members.get(self.worker_id)
            if state == "owner":
                return
            if state == "in use" and owner is not None:
                raise WorkerIdInUse(in_use_message(self.worker_id, owner))
            if state == "free":
                self._heartbeat(self._dead_owner())  # take the id over: every reader sees `replaces`
                self.sync(max(0.1, deadline - self._clock.monotonic()))
            if self._clock.monotonic() >= deadline:
                raise TimeoutError(f"worker id {self.worker_id}: could not join the cluster within {timeout:.0f} s")

    def stop(self, timeout: float = 10.0) -> None:
        """Leave the cluster: followers see it at once, no session timeout needed. Within `timeout` seconds:
        with the cluster gone, the others notice the silence after a session timeout instead."""
        deadline = time.monotonic() + timeout
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
        for thread in self._threads:
            thread.join(max(0.0, min(5.0, deadline - time.monotonic())))
        try:
            if self.fenced is None:  # a fenced session's leave would only be ignored
                self._send(Leave(self.worker_id, self.session, self._now_ms()))
            self._log.flush(max(0.0, min(5.0, deadline - time.monotonic())))
        except Exception as exc:
            log.warning("could not write the leave record: %s", exc)
        self._log.stop(max(0.0, deadline - time.monotonic()))

    def sync(self, timeout: float = 10.0) -> bool:
        """Read the topic to its end; records when this worker was last known to be in sync."""
        try:
            self._log.read_to_end(timeout)
        except Exception as exc:
            if not self._unreadable:  # one line per outage, not one per read (the reader retries twice a beat)
                log.warning("membership topic not readable (retrying; a line when it is again): %s", exc)
            self._unreadable = True
            return False
        if self._unreadable:
            self._unreadable = False
            log.info("membership topic readable again")
        with self._sync_lock:
            now = self._clock.monotonic()
            if now - self._last_sync >= self.session_timeout and self._last_sync != float("-inf"):
                # Back in sync after a lapse (a frozen process, a partition): whatever this worker ran may
                # have run elsewhere meanwhile; the worker restarts from nothing (see Worker._after_lapse).
                self.lapses += 1
            self._last_sync = max(self._last_sync, now)
        return True

    @property
    def clock(self) -> Clock:
        """The clock this membership reads (the real one unless a test injected another)."""
        return self._clock

    def in_sync(self) -> bool:
        """False once this worker has been unable to read the topic for a session timeout."""
        return self._clock.monotonic() - self._last_sync < self.session_timeout

    # queries ---------------------------------------------------------------------------------

    def live_members(self) -> dict[str, Member]:
        """Members whose session has neither left nor timed out, by worker id."""
        now = self._clock.monotonic()
        with self._lock:
            return {wid: m for wid, m in self._members.items()
                    if not m.left and now - m.last_seen < self.session_timeout}

    @property
    def leader(self) -> tuple[str, str] | None:
        """(worker id, session) of the current leader, None before any claim."""
        with self._lock:
            return self._leader

    @property
    def leader_epoch(self) -> int:
        """The epoch of the current leader's claim, 0 before any claim."""
        with self._lock:
            return self._leader_epoch

    def leader_url(self) -> str | None:
        """The current leader's REST URL, None if there is no leader or its session is not known as a member."""
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
            return self._clock.wait_for(self._changed, lambda: self.is_leader() or self.leader_url() is not None,
                                        timeout)

    def is_leader(self) -> bool:
        """True if this worker's own session holds the current claim (never once fenced)."""
        with self._lock:
            return self._leader == (self.worker_id, self.session) and self._table.fenced is None

    @property
    def assignment(self) -> Assignment | None:
        """The newest assignment accepted from the current leader, None before the first."""
        with self._lock:
            return self._assignment

    def leader_alive(self) -> bool:
        """True if the current leader's session is a live member."""
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
        self._send(LeaderClaim(self.worker_id, self.session, epoch, self.url, self._now_ms()))
        self._log.flush(10)
        self.sync()
        return self.is_leader()

    def next_generation(self) -> int:
        """The generation the next `publish` will write (one past the accepted assignment's)."""
        with self._lock:
            return (self._assignment.generation if self._assignment else 0) + 1

    def publish(self, workers: Mapping[str, WorkerAssignment],
                revoked: Mapping[str, Revocation] | None = None) -> bool:
        """Leader only: write a new assignment (fenced by epoch); returns False if not leader."""
        with self._lock:
            if not self.is_leader():
                return False
            generation = self.next_generation()
            epoch = self._leader_epoch
        self._send(Assignment(self.worker_id, self.session, self.url, epoch, generation, dict(workers),
                              dict(revoked or {})))
        self._log.flush(10)
        self.sync()
        return True

    # internals -------------------------------------------------------------------------------

    def _send(self, record: MembershipRecord) -> None:
        key, value = encode(record)
        self._log.send(key, value, partition=0)

    def _now_ms(self) -> int:
        return int(self._clock.time() * 1000)

    def report_applied(self, generation: int) -> None:
        """Say that every unit outside this worker's share of `generation` is stopped: a heartbeat goes out
        at once (not at the next interval), since a leader waits for it to hand those units over."""
        with self._beat_lock:
            if generation <= self._applied or self.fenced is not None:
                return
            self._applied = generation
        self._heartbeat()

    def _heartbeat(self, replaces_session: str = "") -> None:
        with self._beat_lock:
            self._seq += 1
            self._send(Heartbeat(self.worker_id, self.session, self.url, self._seq, self._now_ms(), self._applied,
                                 self._process.host, self._process.pid, self._process.pid_ns, replaces_session))

    def _heartbeat_loop(self) -> None:
        while True:
            with self._changed:
                if self._clock.wait_for(self._changed, lambda: self._stopping or self._table.fenced is not None,
                                        self.heartbeat_interval):
                    return
            try:
                self._heartbeat()
            except Exception:
                log.warning("heartbeat not sent", exc_info=True)

    def _reader_loop(self) -> None:
        """Read the topic to its end every half heartbeat interval: the worker is in sync while this succeeds."""
        while True:
            with self._changed:
                if self._clock.wait_for(self._changed, lambda: self._stopping or self._table.fenced is not None,
                                        self.heartbeat_interval / 2):
                    return
            self.sync(self.heartbeat_interval)

    def _on_record(self, raw_key: bytes | None, raw_value: bytes | None, _p: int, offset: int) -> None:
        if raw_key is None or raw_value is None:
            return
        try:
            record = decode(raw_key, raw_value)
        except ValueError as exc:  # UnicodeDecodeError and orjson's errors included
            log.warning("ignoring a malformed membership record at offset %d: %s", offset, exc)
            return
        if record is None:
            return
        with self._lock:
            changed = self._apply(record, offset)
            self._changed.notify_all()  # every record: a joining session waits for its id's owner to beat
        if changed and self._on_change is not None:
            self._on_change()

    def _apply(self, record: MembershipRecord, offset: int) -> bool:
        if isinstance(record, Heartbeat):
            return self._apply_heartbeat(record, offset)
        if isinstance(record, Leave):
            return self._table.leave(record)
        if isinstance(record, LeaderClaim):
            if record.leader_epoch <= self._leader_epoch:
                return False  # a losing or stale claim
            self._leader_epoch = record.leader_epoch
            self._leader = (record.worker, record.session)
            log.info("leader is now %s (epoch %d)", record.worker, record.leader_epoch)
            return True
        fresh = (record.leader_epoch == self._leader_epoch
                 and self._leader == (record.leader, record.leader_session)
                 and record.generation > (self._assignment.generation if self._assignment else 0))
        if not fresh:
            return False  # fenced: not from the current leader, or not newer
        self._assignment = record
        return True

    def _apply_heartbeat(self, beat: Heartbeat, offset: int) -> bool:
        age = max(0.0, (self._now_ms() - beat.ts) / 1000.0)
        return self._table.heartbeat(beat, offset, self._clock.monotonic() - age)
