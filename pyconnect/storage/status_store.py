"""Connector and task statuses and active topics (Connect's status topic, compat-spec §B.4).

Records are read the way `KafkaStatusBackingStore` reads them: the latest record wins, whatever its
generation, with one exception: a task's UNASSIGNED from an older generation does not replace a newer
RUNNING (a worker that lost the task in a rebalance and reports it late). Records of the wrong shape
are ignored, and a connector's tombstone removes its task statuses too.

`status-auto-restart-<connector>` records are this runtime's own (pyconnect/runtime/auto_restart.py):
Strimzi's `autoRestart` status (`{"count", "lastRestartTimestamp"}`, epoch ms), written by the leader.
A Java worker reading the same topic discards them with a warning about the key.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import orjson

from pyconnect.api.states import State
from pyconnect.storage.java_compat import is_json_integer, task_key, to_int32
from pyconnect.storage.log import Log, LogBackedStore

log = logging.getLogger(__name__)

STATES = tuple(State)

_CONNECTOR, _TASK, _TOPIC = "status-connector-", "status-task-", "status-topic-"
_AUTO_RESTART = "status-auto-restart-"
_TOPIC_SEPARATOR = ":connector-"


@dataclass(frozen=True)
class Status:
    """One connector or task status record."""

    state: State
    worker_id: str | None  # null when a Java worker wrote none
    generation: int
    trace: str | None = None
    #: A batch task's progress (records, rate, ETA); an extra field Connect's readers ignore.
    progress: dict[str, Any] | None = None

    def to_json(self) -> bytes:
        """The record value, field for field as Connect writes it."""
        value: dict[str, Any] = {"state": self.state, "trace": self.trace, "worker_id": self.worker_id,
                                 "generation": self.generation}
        if self.progress is not None:
            value["progress"] = self.progress
        return orjson.dumps(value)


@dataclass(frozen=True)
class TopicStatus:
    """A `status-topic-<topic>:connector-<name>` record (KIP-558 topic tracking)."""

    topic: str | None
    connector: str | None
    task: int
    discover_timestamp: int


@dataclass(frozen=True)
class AutoRestartRecord:
    """Strimzi's AutoRestartStatus of one connector: restarts made and when the last one was (epoch ms)."""

    count: int
    last_restart_ms: int

    def to_json(self) -> bytes:
        """The record value (Strimzi's field names)."""
        return orjson.dumps({"count": self.count, "lastRestartTimestamp": self.last_restart_ms})


def _parse_auto_restart(raw: bytes) -> AutoRestartRecord | None:
    try:
        v = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(v, dict) or not is_json_integer(v.get("count")) \
            or not is_json_integer(v.get("lastRestartTimestamp")):
        return None
    return AutoRestartRecord(int(v["count"]), int(v["lastRestartTimestamp"]))


def _parse_status(raw: bytes) -> Status | None:
    """A status value as Connect accepts it: a known state, an integer generation, string or null texts."""
    try:
        v = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(v, dict):
        return None
    state, trace, worker, generation = v.get("state"), v.get("trace"), v.get("worker_id"), v.get("generation")
    if state not in STATES or not is_json_integer(generation):
        return None
    if not (trace is None or isinstance(trace, str)) or not (worker is None or isinstance(worker, str)):
        return None
    progress = v.get("progress")
    return Status(State(state), worker, to_int32(generation), trace, progress if isinstance(progress, dict) else None)


def _parse_topic_status(raw: bytes) -> TopicStatus | None:
    try:
        v = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    inner = v.get("topic") if isinstance(v, dict) else None
    if not isinstance(inner, dict):
        return None
    name, connector = inner.get("name"), inner.get("connector")
    task, discovered = inner.get("task"), inner.get("discoverTimestamp")
    if not all(x is None or isinstance(x, str) for x in (name, connector)):
        return None
    if not (is_json_integer(task) and is_json_integer(discovered)):
        return None
    return TopicStatus(name, connector, to_int32(task), discovered)


def _topic_key(key: str) -> tuple[str, str] | None:
    """(topic, connector) from `status-topic-<topic>:connector-<name>`, cut at the first colon as Connect
    does (topic names cannot contain one)."""
    colon = key.find(":")
    if colon < len(_TOPIC):
        return None
    topic, connector = key[len(_TOPIC):colon], key[colon + len(_TOPIC_SEPARATOR):]
    if not topic or not connector:
        return None
    return topic, connector


class StatusStore(LogBackedStore):
    """Reads and writes `status-connector-<n>`, `status-task-<n>-<i>` and `status-topic-…` records."""

    def __init__(self, log_: Log) -> None:
        super().__init__(log_)
        self._connectors: dict[str, Status] = {}
        self._tasks: dict[tuple[str, int], Status] = {}
        self._topics: dict[str, dict[str, TopicStatus]] = {}
        self._auto_restarts: dict[str, AutoRestartRecord] = {}

    # writes ----------------------------------------------------------------------------------

    def put_connector(self, name: str, status: Status, safe: bool = False) -> None:
        """Write a connector status; see `_send` for `safe`."""
        self._send(f"{_CONNECTOR}{name}", self.connector(name), status, safe)

    def put_task(self, connector: str, task: int, status: Status, safe: bool = False) -> None:
        """Write a task status; see `_send` for `safe`."""
        self._send(f"{_TASK}{connector}-{task}", self.task(connector, task), status, safe)

    def _send(self, key: str, current: Status | None, status: Status, safe: bool) -> None:
        # Connect's putSafe: skip the write if the last status read came from another worker in a newer
        # generation. DESTROYED is written as a tombstone.
        if safe and current is not None and current.worker_id != status.worker_id \
                and current.generation > status.generation:
            return
        self._log.send(key.encode(), None if status.state == State.DESTROYED else status.to_json())

    def delete_connector(self, name: str, task_count: int) -> None:
        """Tombstone the connector's status and its tasks'."""
        self._log.send(f"{_CONNECTOR}{name}".encode(), None)
        for i in range(task_count):
            self._log.send(f"{_TASK}{name}-{i}".encode(), None)
        self.put_auto_restart(name, None)

    def put_auto_restart(self, name: str, record: AutoRestartRecord | None) -> None:
        """Write the connector's auto-restart record (None: tombstone it, the count is reset)."""
        self._log.send(f"{_AUTO_RESTART}{name}".encode(), None if record is None else record.to_json())

    def put_topic(self, connector: str, topic: str, task: int) -> None:
        """Topic tracking (KIP-558): the connector wrote to this topic."""
        value = {"topic": {"name": topic, "connector": connector, "task": task,
                           "discoverTimestamp": int(time.time() * 1000)}}
        self._log.send(f"{_TOPIC}{topic}{_TOPIC_SEPARATOR}{connector}".encode(), orjson.dumps(value))

    def delete_topic(self, connector: str, topic: str) -> None:
        """Tombstone one active-topic record."""
        self._log.send(f"{_TOPIC}{topic}{_TOPIC_SEPARATOR}{connector}".encode(), None)

    # reads -----------------------------------------------------------------------------------

    def topics(self, connector: str) -> set[str]:
        """The connector's active topics, named as in the records' values (as Connect lists them)."""
        with self._lock:
            return {s.topic for s in self._topics.get(connector, {}).values() if s.topic is not None}

    def topic_status(self, connector: str, topic: str) -> TopicStatus | None:
        """The record for one active topic, if any."""
        with self._lock:
            return self._topics.get(connector, {}).get(topic)

    def connector(self, name: str) -> Status | None:
        """The connector's status, if any."""
        with self._lock:
            return self._connectors.get(name)

    def task(self, connector: str, task: int) -> Status | None:
        """One task's status, if any."""
        with self._lock:
            return self._tasks.get((connector, task))

    def auto_restart(self, connector: str) -> AutoRestartRecord | None:
        """The connector's auto-restart record, if any (none: no restart since the last reset)."""
        with self._lock:
            return self._auto_restarts.get(connector)

    def tasks(self, connector: str) -> dict[int, Status]:
        """Every task status of the connector, by task number."""
        with self._lock:
            return {i: s for (c, i), s in self._tasks.items() if c == connector}

    def _on_record(self, raw_key: bytes | None, raw_value: bytes | None, _p: int, _o: int) -> None:
        if raw_key is None:
            return
        key = raw_key.decode("utf-8", "replace")
        with self._lock:
            if key.startswith(_CONNECTOR):
                self._read_connector(key, raw_value)
            elif key.startswith(_TASK):
                self._read_task(key, raw_value)
            elif key.startswith(_TOPIC):
                self._read_topic(key, raw_value)
            elif key.startswith(_AUTO_RESTART) and len(key) > len(_AUTO_RESTART):
                self._read_auto_restart(key[len(_AUTO_RESTART):], raw_value)
            else:
                log.warning("discarding status record with invalid key %s", key)

    def _read_connector(self, key: str, raw: bytes | None) -> None:
        name = key[len(_CONNECTOR):]
        if not name:
            log.warning("discarding status record with invalid key %s", key)
        elif raw is None:
            self._connectors.pop(name, None)
            for task in [t for t in self._tasks if t[0] == name]:
                del self._tasks[task]
        elif (status := _parse_status(raw)) is None:
            log.error("ignoring malformed connector status %s", key)
        else:
            self._connectors[name] = status

    def _read_task(self, key: str, raw: bytes | None) -> None:
        task = task_key(key, 2)
        if task is None:
            log.warning("discarding status record with invalid key %s", key)
        elif raw is None:
            self._tasks.pop(task, None)
        elif (status := _parse_status(raw)) is None:
            log.error("ignoring malformed task status %s", key)
        elif not _stale_unassigned(self._tasks.get(task), status):
            self._tasks[task] = status

    def _read_topic(self, key: str, raw: bytes | None) -> None:
        parsed = _topic_key(key)
        if parsed is None:
            log.warning("discarding status record with invalid key %s", key)
            return
        topic, connector = parsed
        if raw is None:
            self._topics.get(connector, {}).pop(topic, None)
        elif (status := _parse_topic_status(raw)) is None:
            log.error("ignoring malformed topic status %s", key)
        else:
            self._topics.setdefault(connector, {})[topic] = status

    def _read_auto_restart(self, name: str, raw: bytes | None) -> None:
        if raw is None:
            self._auto_restarts.pop(name, None)
        elif (record := _parse_auto_restart(raw)) is None:
            log.error("ignoring malformed auto-restart record of connector %s", name)
        else:
            self._auto_restarts[name] = record


def _stale_unassigned(current: Status | None, new: Status) -> bool:
    """KAFKA-12525: an UNASSIGNED from an older generation that arrives after the new owner's RUNNING."""
    return (new.state == State.UNASSIGNED and current is not None and current.state == State.RUNNING
            and current.generation > new.generation)
