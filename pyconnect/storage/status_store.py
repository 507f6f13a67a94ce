"""Connector and task statuses (Connect's status topic, compat-spec §B.4).

A status written in an older cluster generation never replaces a newer one, so a worker that was
fenced out cannot overwrite what the current owner reported.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import orjson

from pyconnect.storage.log import Log, LogBackedStore

log = logging.getLogger(__name__)

STATES = ("UNASSIGNED", "RUNNING", "PAUSED", "FAILED", "RESTARTING", "STOPPED", "DESTROYED")


@dataclass(frozen=True)
class Status:
    state: str
    worker_id: str
    generation: int
    trace: str | None = None
    #: A batch task's progress (records, rate, ETA); an extra field Connect's readers ignore.
    progress: dict[str, Any] | None = None

    def to_json(self) -> bytes:
        value: dict[str, Any] = {"state": self.state, "trace": self.trace, "worker_id": self.worker_id,
                                 "generation": self.generation}
        if self.progress is not None:
            value["progress"] = self.progress
        return orjson.dumps(value)


class StatusStore(LogBackedStore):
    """Reads and writes `status-connector-<n>` and `status-task-<n>-<i>` records."""

    def __init__(self, log_: Log) -> None:
        super().__init__(log_)
        self._connectors: dict[str, Status] = {}
        self._tasks: dict[tuple[str, int], Status] = {}
        self._topics: dict[str, set[str]] = {}

    def put_connector(self, name: str, status: Status) -> None:
        self._log.send(f"status-connector-{name}".encode(), status.to_json())

    def put_task(self, connector: str, task: int, status: Status) -> None:
        self._log.send(f"status-task-{connector}-{task}".encode(), status.to_json())

    def delete_connector(self, name: str, task_count: int) -> None:
        self._log.send(f"status-connector-{name}".encode(), None)
        for i in range(task_count):
            self._log.send(f"status-task-{name}-{i}".encode(), None)

    def put_topic(self, connector: str, topic: str, task: int) -> None:
        """Topic tracking (KIP-558): the connector wrote to this topic."""
        value = {"topic": {"name": topic, "connector": connector, "task": task,
                           "discoverTimestamp": int(time.time() * 1000)}}
        self._log.send(f"status-topic-{topic}:connector-{connector}".encode(), orjson.dumps(value))

    def delete_topic(self, connector: str, topic: str) -> None:
        self._log.send(f"status-topic-{topic}:connector-{connector}".encode(), None)

    def topics(self, connector: str) -> set[str]:
        with self._lock:
            return set(self._topics.get(connector, ()))

    def connector(self, name: str) -> Status | None:
        with self._lock:
            return self._connectors.get(name)

    def task(self, connector: str, task: int) -> Status | None:
        with self._lock:
            return self._tasks.get((connector, task))

    def tasks(self, connector: str) -> dict[int, Status]:
        with self._lock:
            return {i: s for (c, i), s in self._tasks.items() if c == connector}

    def _on_record(self, raw_key: bytes | None, raw_value: bytes | None, _p: int, _o: int) -> None:
        if raw_key is None:
            return
        key = raw_key.decode("utf-8", "replace")
        if key.startswith("status-topic-"):
            topic, sep, connector = key[len("status-topic-"):].rpartition(":connector-")
            if sep:
                with self._lock:
                    if raw_value is None:
                        self._topics.get(connector, set()).discard(topic)
                    else:
                        self._topics.setdefault(connector, set()).add(topic)
            return
        status: Status | None = None
        if raw_value is not None:
            try:
                v = orjson.loads(raw_value)
                status = Status(str(v["state"]), str(v.get("worker_id") or ""), int(v.get("generation") or 0),
                                v.get("trace"), v.get("progress") if isinstance(v.get("progress"), dict) else None)
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
                log.warning("ignoring malformed status record %s", key)
                return
        with self._lock:
            if key.startswith("status-connector-"):
                self._store(self._connectors, key[len("status-connector-"):], status)
            elif key.startswith("status-task-"):
                name, _, index = key[len("status-task-"):].rpartition("-")
                if name and index.isdigit():
                    self._store(self._tasks, (name, int(index)), status)

    @staticmethod
    def _store(table: dict, key: object, status: Status | None) -> None:  # type: ignore[type-arg]
        if status is None:
            table.pop(key, None)
            return
        current = table.get(key)
        if current is not None and status.generation < current.generation:
            return  # a fenced-out worker's late write
        table[key] = status
