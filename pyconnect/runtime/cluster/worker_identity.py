"""Who owns a worker id: the rules every reader of the membership topic applies to heartbeats.

A worker id (the advertised `host:port`) names one process. Two processes started with the same
advertised URL (a copied worker.properties, a restart while the old process still runs, two listeners
behind one advertised name) would otherwise both read the same share of every assignment and run the
same tasks. Each process has its own random session; the membership topic decides which session owns
the id (see `replaces` and membership.py's docstring for the invariant).
"""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass
from pathlib import Path

from pyconnect.runtime.cluster.membership_records import Heartbeat, Leave

log = logging.getLogger(__name__)


class WorkerIdInUse(RuntimeError):
    """This process may not join: another live process holds the same worker id."""


@dataclass
class Member:
    """A member as this worker last saw it (mutable: its heartbeats keep it up to date)."""

    worker_id: str
    session: str
    url: str
    seq: int
    join_order: int  # log offset of the first heartbeat of this session
    last_seen: float  # monotonic seconds
    left: bool = False
    applied: int = 0  # the newest assignment generation its heartbeats say it has applied
    last_offset: int = -1  # log offset of its newest heartbeat
    last_ts: int = 0  # wall-clock ms its newest heartbeat was written at (its `ts`)
    host: str = ""  # the host and pid of its process, for messages (empty, 0: a worker of an earlier version)
    pid: int = 0
    pid_ns: str = ""  # the boot and pid namespace of `pid`

    @property
    def process(self) -> str:
        """`host pid N`, or "" if its heartbeats do not say."""
        return f"{self.host} pid {self.pid}" if self.pid else ""


@dataclass(frozen=True)
class ProcessMark:
    """What a heartbeat says about the process that wrote it."""

    host: str
    pid: int
    pid_ns: str  # "" where /proc does not tell (the liveness short cut is then off)


def this_process() -> ProcessMark:
    """This process's host, pid and pid namespace (the boot id and the namespace's inode)."""
    try:
        pid_ns = f"{Path('/proc/sys/kernel/random/boot_id').read_text().strip()}/{os.stat('/proc/self/ns/pid').st_ino}"
    except OSError:
        pid_ns = ""
    return ProcessMark(socket.gethostname(), os.getpid(), pid_ns)


def ended_here(owner: Member, here: ProcessMark) -> bool:
    """True if the owner's process ran in this pid namespace (same boot) and no process has its pid now:
    it is gone for sure, its session need not be waited out (a restart after kill -9 on one machine)."""
    if not here.pid_ns or owner.pid_ns != here.pid_ns or owner.pid <= 0:
        return False
    try:
        os.kill(owner.pid, 0)  # signal 0: only asks whether the pid exists
    except ProcessLookupError:
        return True
    except OSError:
        return False  # it exists (another user's) or cannot be asked: wait the session out
    return False


def replaces(owner: Member, beat: Heartbeat, session_timeout_ms: int) -> bool:
    """Whether `beat`, from another session of `owner`'s worker id, makes its session the id's owner.

    Yes when the owner left, when the beat names the owner's session in `replaces` (its writer saw
    the owner leave or fall silent for a session timeout), or when the beat was written a session
    timeout or more after the owner's newest heartbeat (both `ts`). Otherwise the beat's session is a
    contender: readers ignore it, and it refuses to start once the owner beats again after its first
    heartbeat. Only the records decide, never the reader's clock, so a worker replaying the topic at
    start reaches the same owners as one that read each record as it came.
    """
    return owner.left or beat.replaces == owner.session or beat.ts - owner.last_ts >= session_timeout_ms


def in_use_message(worker_id: str, owner: Member) -> str:
    """The sentence a refused process ends with."""
    where = f" ({owner.process})" if owner.process else ""
    return (f"worker id {worker_id} is in use by another live worker process{where}, session {owner.session}, "
            f"REST URL {owner.url}: two processes with one worker id would run the same tasks; give each "
            "worker its own rest.advertised.host.name/rest.advertised.port (or listeners), or stop the other "
            "process first")


def replaced_message(worker_id: str, beat: Heartbeat) -> str:
    """The sentence a deposed process logs when another session took its worker id over."""
    where = f" ({beat.host} pid {beat.pid})" if beat.pid else ""
    return (f"worker id {worker_id} was taken over by another worker process{where}, session {beat.session}, "
            "after this one was silent for a session timeout: this process stops all its connectors and "
            "tasks and takes no further part in the cluster")


class MemberTable:
    """The members one reader knows, one owner session per worker id (the rules of membership.py).

    Not thread-safe: the owning Membership calls it under its lock. `now` and `seen` are monotonic
    seconds on the reader's clock (`seen`: when a heartbeat was written, its age taken off); only the
    liveness of members and this session's own decisions use them, never who owns an id.
    """

    def __init__(self, worker_id: str, session: str, session_timeout: float, here: ProcessMark) -> None:
        self.worker_id, self.session, self.session_timeout, self.here = worker_id, session, session_timeout, here
        self.members: dict[str, Member] = {}  # the owner of each worker id
        self.joined_at: int | None = None  # log offset of this session's first heartbeat, once read back
        self.fenced: str | None = None  # why this session lost its worker id to another process
        self._ended: set[tuple[str, str]] = set()  # (worker id, session) that left or lost its id: never again
        self._contenders: set[tuple[str, str]] = set()  # sessions refused an id, logged once

    def heartbeat(self, beat: Heartbeat, offset: int, seen: float) -> bool:
        """Apply a heartbeat read at `offset`; True if membership changed (a member, or its `applied`)."""
        if beat.session == self.session and self.joined_at is None:
            self.joined_at = offset
        if (beat.worker, beat.session) in self._ended:
            return False  # a late beat of a session that left or lost its id
        member = self.members.get(beat.worker)
        if member is not None and member.session != beat.session:
            if not replaces(member, beat, round(self.session_timeout * 1000)):
                self._contender(member, beat)
                return False
            self._ended.add((member.worker_id, member.session))
            if member.worker_id == self.worker_id and member.session == self.session and not member.left:
                self.fenced = replaced_message(self.worker_id, beat)
                log.error("%s", self.fenced)
            member = None
        if member is None:
            self.members[beat.worker] = Member(beat.worker, beat.session, beat.url, beat.seq, offset, seen,
                                               applied=beat.applied, last_offset=offset, last_ts=beat.ts,
                                               host=beat.host, pid=beat.pid, pid_ns=beat.pid_ns)
            return True
        member.last_offset, member.last_ts = offset, max(member.last_ts, beat.ts)
        if beat.seq <= member.seq:
            return False
        member.seq = beat.seq
        member.last_seen = max(member.last_seen, seen)
        # A new applied generation may complete a hand-over: a change, so the leader's loop wakes for it.
        changed, member.applied = beat.applied != member.applied, beat.applied
        return changed

    def leave(self, record: Leave) -> bool:
        """Apply a leave record; True if it ended the owner's session."""
        member = self.members.get(record.worker)
        if member is None or member.session != record.session:
            return False
        member.left = True
        self._ended.add((record.worker, record.session))
        return True

    def dead_owner(self, now: float) -> str:
        """The session of this worker id's owner if it left, has been silent for a session timeout, or its
        process has ended on this machine; else ""."""
        owner = self.members.get(self.worker_id)
        if owner is None or owner.session == self.session:
            return ""
        silent = now >= owner.last_seen + self.session_timeout  # the expiry Membership waits for
        return owner.session if owner.left or silent or ended_here(owner, self.here) else ""

    def state(self, now: float) -> str:
        """This session's hold on its worker id: `owner`; `in use` (another live process owns it); `free`
        (the owner left or went silent: take it over); `waiting` (the join claim not yet read back, or the
        owner not heard from since)."""
        owner = self.members.get(self.worker_id)
        if owner is not None and owner.session == self.session:
            return "owner"
        if self.fenced is not None:
            return "in use"
        if owner is None or self.joined_at is None:
            return "waiting"
        if owner.last_offset > self.joined_at and not owner.left:
            return "in use"  # it beat after our join claim: a live process, not an echo of a dead one
        return "free" if self.dead_owner(now) else "waiting"

    def _contender(self, owner: Member, beat: Heartbeat) -> None:
        if (beat.worker, beat.session) in self._contenders:
            return
        self._contenders.add((beat.worker, beat.session))
        if owner.worker_id == self.worker_id and owner.session == self.session:
            log.warning("another worker process (%s, session %s) started with this worker's id %s; it is "
                        "ignored and will refuse to start", f"{beat.host} pid {beat.pid}" if beat.pid else "unknown",
                        beat.session, beat.worker)
