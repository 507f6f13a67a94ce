"""The records of the membership topic (see membership.py) as frozen dataclasses, with their JSON.

Keys name the record type: `worker-<id>` (a heartbeat, or a leave once `left` is set), `claim-<id>`
(a leadership claim) and `assignment`. Values are compact JSON objects whose fields appear in a fixed
order; `from_json` reads the records of earlier versions, filling the fields they could omit with the
same defaults earlier versions applied.

Fields added for the hand-over (handover.py), a heartbeat's `applied` and an assignment's `revoked`,
and for one identity per worker (membership.py), a heartbeat's `host`, `pid`, `pid_ns` and `replaces`, are written
after the older fields and only when they say something (`applied` > 0, `revoked` not empty, a
non-empty string): every other record is exactly the bytes earlier versions wrote, and earlier
readers, which ignore unknown fields, read the rest of a record that carries them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Self

import orjson

from pyconnect.api.task_id import TaskId
from pyconnect.runtime.cluster.assignment import WorkerAssignment

ASSIGNMENT_KEY = "assignment"


def _fields(raw: bytes) -> dict[str, Any]:
    value = orjson.loads(raw)  # orjson.JSONDecodeError is a ValueError
    if not isinstance(value, dict):
        raise ValueError(f"a membership record is a JSON object, not {type(value).__name__}")
    return value


def _required(fields: Mapping[str, Any], name: str) -> str:
    if name not in fields or fields[name] is None:
        raise ValueError(f"membership record without {name!r}")
    return str(fields[name])


def _int(fields: Mapping[str, Any], name: str, default: int) -> int:
    try:
        return int(fields.get(name, default))
    except TypeError as exc:
        raise ValueError(f"membership record field {name!r} is not a number") from exc


def _names(entry: Any, name: str) -> list[str]:
    if not isinstance(entry, dict) or not isinstance(entry.get(name, ()), list | tuple):
        raise ValueError(f"membership assignment entry without a list of {name}")
    return [str(x) for x in entry.get(name, ())]


@dataclass(frozen=True)
class Heartbeat:
    """`worker-<id>`: a worker of a session is alive; `seq` grows with every beat, `ts` is wall-clock ms.
    `applied` is the newest assignment generation the worker has applied: every connector and task not
    in its share of that generation is stopped (0: none yet, or a worker of an earlier version).
    `host` and `pid` name the process for messages about a worker id used twice; `pid_ns` names the boot
    and pid namespace `pid` belongs to (a process of the same namespace can tell that pid is gone).
    `replaces` is the session of the same worker id that this session takes the id over from, having
    seen it leave, fall silent for a session timeout, or its process end (membership.py)."""

    worker: str
    session: str
    url: str = ""
    seq: int = 0
    ts: int = 0
    applied: int = 0
    host: str = ""
    pid: int = 0
    pid_ns: str = ""
    replaces: str = ""

    @property
    def key(self) -> str:
        """The record key."""
        return f"worker-{self.worker}"

    def to_json(self) -> bytes:
        """The record value."""
        fields: dict[str, Any] = {"worker": self.worker, "session": self.session, "url": self.url, "seq": self.seq,
                                  "ts": self.ts}
        if self.applied:
            fields["applied"] = self.applied
        if self.pid:
            fields.update(host=self.host, pid=self.pid, pid_ns=self.pid_ns)
        if self.replaces:
            fields["replaces"] = self.replaces
        return orjson.dumps(fields)

    @classmethod
    def from_json(cls, raw: bytes) -> Self:
        """Parse a record value; ValueError if it is not one."""
        return cls._from_fields(_fields(raw))

    @classmethod
    def _from_fields(cls, f: Mapping[str, Any]) -> Self:
        return cls(_required(f, "worker"), _required(f, "session"), str(f.get("url", "")), _int(f, "seq", 0),
                   _int(f, "ts", 0), _int(f, "applied", 0), str(f.get("host", "")),
                   _int(f, "pid", 0), str(f.get("pid_ns", "")), str(f.get("replaces", "")))


@dataclass(frozen=True)
class Leave:
    """`worker-<id>` with `left`: the worker's session ended gracefully (no session timeout to wait out)."""

    worker: str
    session: str
    ts: int = 0

    @property
    def key(self) -> str:
        """The record key (the same as the worker's heartbeats, so compaction keeps only the leave)."""
        return f"worker-{self.worker}"

    def to_json(self) -> bytes:
        """The record value."""
        return orjson.dumps({"worker": self.worker, "session": self.session, "left": True, "ts": self.ts})

    @classmethod
    def from_json(cls, raw: bytes) -> Self:
        """Parse a record value; ValueError if it is not one."""
        return cls._from_fields(_fields(raw))

    @classmethod
    def _from_fields(cls, f: Mapping[str, Any]) -> Self:
        return cls(_required(f, "worker"), _required(f, "session"), _int(f, "ts", 0))


@dataclass(frozen=True)
class LeaderClaim:
    """`claim-<id>`: a worker's session claims leadership for `leader_epoch` (higher than every earlier one)."""

    worker: str
    session: str
    leader_epoch: int = 0
    url: str = ""
    ts: int = 0

    @property
    def key(self) -> str:
        """The record key."""
        return f"claim-{self.worker}"

    def to_json(self) -> bytes:
        """The record value."""
        return orjson.dumps({"worker": self.worker, "session": self.session, "leader_epoch": self.leader_epoch,
                             "url": self.url, "ts": self.ts})

    @classmethod
    def from_json(cls, raw: bytes) -> Self:
        """Parse a record value; ValueError if it is not one."""
        return cls._from_fields(_fields(raw))

    @classmethod
    def _from_fields(cls, f: Mapping[str, Any]) -> Self:
        return cls(_required(f, "worker"), _required(f, "session"), _int(f, "leader_epoch", 0),
                   str(f.get("url", "")), _int(f, "ts", 0))


@dataclass(frozen=True)
class Revocation:
    """Units taken from a live worker and given to nobody until it confirms it stopped them: its heartbeat's
    `applied` reaches `generation` (see handover.py)."""

    connectors: frozenset[str] = frozenset()
    tasks: frozenset[TaskId] = frozenset()
    generation: int = 0

    def to_fields(self) -> dict[str, Any]:
        """The JSON object of one worker's revocation."""
        return {"connectors": sorted(self.connectors), "tasks": [str(t) for t in sorted(self.tasks)],
                "generation": self.generation}

    @classmethod
    def from_fields(cls, entry: Any) -> Self:
        """Parse one worker's revocation; ValueError if it is not one."""
        return cls(frozenset(_names(entry, "connectors")), frozenset(TaskId.parse(t) for t in _names(entry, "tasks")),
                   _int(entry, "generation", 0))


@dataclass(frozen=True)
class Assignment:
    """`assignment`: the leader's placement of connectors and tasks on workers, fenced by its session and
    epoch and ordered by `generation`; `revoked` names, per worker, what it must stop before anyone else
    gets it."""

    leader: str
    leader_session: str
    leader_url: str
    leader_epoch: int
    generation: int
    workers: dict[str, WorkerAssignment] = field(default_factory=dict)
    revoked: dict[str, Revocation] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """The record key."""
        return ASSIGNMENT_KEY

    def of(self, worker_id: str) -> WorkerAssignment:
        """What `worker_id` runs (nothing if it is not in this assignment)."""
        return self.workers.get(worker_id, WorkerAssignment())

    def to_json(self) -> bytes:
        """The record value (workers in the order given, their connectors and tasks sorted)."""
        fields: dict[str, Any] = {
            "leader": self.leader, "leader_session": self.leader_session, "leader_url": self.leader_url,
            "leader_epoch": self.leader_epoch, "generation": self.generation,
            "assignment": {w: {"connectors": sorted(a.connectors), "tasks": [str(t) for t in sorted(a.tasks)]}
                           for w, a in self.workers.items()},
        }
        if self.revoked:
            fields["revoked"] = {w: r.to_fields() for w, r in sorted(self.revoked.items())}
        return orjson.dumps(fields)

    @classmethod
    def from_json(cls, raw: bytes) -> Self:
        """Parse a record value; ValueError if it is not one."""
        return cls._from_fields(_fields(raw))

    @classmethod
    def _from_fields(cls, f: Mapping[str, Any]) -> Self:
        placed = f.get("assignment", {})
        revoked = f.get("revoked", {})
        if not isinstance(placed, dict) or not isinstance(revoked, dict):
            raise ValueError("membership assignment without an object of workers")
        workers = {str(w): WorkerAssignment(frozenset(_names(a, "connectors")),
                                            frozenset(TaskId.parse(t) for t in _names(a, "tasks")))
                   for w, a in placed.items()}
        return cls(_required(f, "leader"), _required(f, "leader_session"), str(f.get("leader_url", "")),
                   _int(f, "leader_epoch", -1), _int(f, "generation", 0), workers,
                   {str(w): Revocation.from_fields(r) for w, r in revoked.items()})


MembershipRecord = Heartbeat | Leave | LeaderClaim | Assignment


def encode(record: MembershipRecord) -> tuple[bytes, bytes]:
    """The (key, value) bytes of a record as written to the membership topic."""
    return record.key.encode(), record.to_json()


def decode(key: bytes, value: bytes) -> MembershipRecord | None:
    """The record of a (key, value) read from the membership topic; None for keys of no known type.
    ValueError (UnicodeDecodeError included) if a known key carries a malformed value."""
    name = key.decode()
    if name.startswith("worker-"):
        fields = _fields(value)
        return Leave._from_fields(fields) if fields.get("left") else Heartbeat._from_fields(fields)
    if name.startswith("claim-"):
        return LeaderClaim.from_json(value)
    if name == ASSIGNMENT_KEY:
        return Assignment.from_json(value)
    return None
