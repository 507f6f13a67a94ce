"""Connector configs, target states, task configs and restart requests (Connect's config topic).

Record keys and JSON values are Connect's (compat-spec §B.2). Task configs become visible only
when their `commit-<name>` record arrives, so a reader never sees half of a task set.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from pyconnect.storage.log import Log, LogBackedStore

log = logging.getLogger(__name__)

TARGET_STATES = ("STARTED", "PAUSED", "STOPPED")


@dataclass(frozen=True)
class RestartRequest:
    connector: str
    include_tasks: bool
    only_failed: bool
    seq: int  # position in the log: lets workers act on each request once


@dataclass
class ConfigSnapshot:
    """An immutable-by-convention copy of the cluster's configuration."""

    version: int = 0
    connectors: dict[str, dict[str, str]] = field(default_factory=dict)
    target_states: dict[str, str] = field(default_factory=dict)
    task_configs: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    restarts: dict[str, RestartRequest] = field(default_factory=dict)
    logger_levels: dict[str, str] = field(default_factory=dict)

    def task_ids(self) -> list[str]:
        return [f"{name}-{i}" for name in sorted(self.task_configs) if name in self.connectors
                for i in range(len(self.task_configs[name]))]

    def target_state(self, name: str) -> str:
        return self.target_states.get(name, "STARTED")


def _dumps(obj: Any) -> bytes:
    return orjson.dumps(obj)


class ConfigStore(LogBackedStore):
    """Reads and writes the config topic; notifies listeners on every applied change."""

    def __init__(self, log_: Log) -> None:
        super().__init__(log_)
        self._state = ConfigSnapshot()
        self._deferred_tasks: dict[str, dict[int, dict[str, str]]] = {}
        self._listeners: list[Callable[[], None]] = []
        self._seq = 0

    def add_listener(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def snapshot(self) -> ConfigSnapshot:
        with self._lock:
            s = self._state
            return ConfigSnapshot(s.version, {k: dict(v) for k, v in s.connectors.items()},
                                  dict(s.target_states), {k: [dict(t) for t in v] for k, v in s.task_configs.items()},
                                  dict(s.restarts), dict(s.logger_levels))

    # writes ----------------------------------------------------------------------------------

    def put_connector_config(self, name: str, config: Mapping[str, str], target_state: str | None = None) -> None:
        if target_state is not None:  # Connect writes the initial state before the connector record
            self.put_target_state(name, target_state, wait=False)
        self._write(f"connector-{name}", {"properties": dict(config)})

    def remove_connector(self, name: str) -> None:
        self._write(f"connector-{name}", None, wait=False)
        self._write(f"target-state-{name}", None)

    def put_target_state(self, name: str, state: str, wait: bool = True) -> None:
        if state not in TARGET_STATES:
            raise ValueError(f"unknown target state {state}")
        legacy = "PAUSED" if state == "STOPPED" else state
        self._write(f"target-state-{name}", {"state": legacy, "state.v2": state}, wait=wait)

    def put_task_configs(self, name: str, configs: list[dict[str, str]]) -> None:
        for i, task_config in enumerate(configs):
            self._write(f"task-{name}-{i}", {"properties": task_config}, wait=False)
        self._write(f"commit-{name}", {"tasks": len(configs)})

    def request_restart(self, name: str, include_tasks: bool, only_failed: bool) -> None:
        self._write(f"restart-connector-{name}", {"include-tasks": include_tasks, "only-failed": only_failed})

    def put_logger_level(self, namespace: str, level: str) -> None:
        self._write(f"logger-cluster-{namespace}", {"level": level})

    def _write(self, key: str, value: Any, wait: bool = True) -> None:
        fut = self._log.send(key.encode(), None if value is None else _dumps(value), partition=0)
        if wait:
            self._log.flush()
            fut.result(30)

    # reads -----------------------------------------------------------------------------------

    def _on_record(self, raw_key: bytes | None, raw_value: bytes | None, _partition: int, _offset: int) -> None:
        if raw_key is None:
            return
        key = raw_key.decode("utf-8", "replace")
        try:
            value = orjson.loads(raw_value) if raw_value is not None else None
        except orjson.JSONDecodeError:
            log.warning("ignoring config record %s with a value that is not JSON", key)
            return
        with self._lock:
            changed = self._apply(key, value)
            if changed:
                self._state.version += 1
        if changed:
            for listener in self._listeners:
                listener()

    def _apply(self, key: str, value: Any) -> bool:
        s = self._state
        if key.startswith("connector-"):
            name = key[len("connector-"):]
            if value is None:
                s.connectors.pop(name, None)
                s.task_configs.pop(name, None)
                self._deferred_tasks.pop(name, None)
            else:
                s.connectors[name] = {str(k): str(v) for k, v in value.get("properties", {}).items()}
            return True
        if key.startswith("target-state-"):
            name = key[len("target-state-"):]
            if value is None:
                s.target_states.pop(name, None)
            else:
                state = value.get("state.v2") or value.get("state") or "STARTED"
                s.target_states[name] = state if state in TARGET_STATES else "STARTED"
            return True
        if key.startswith("task-"):
            name, _, index = key[len("task-"):].rpartition("-")
            if name and index.isdigit() and value is not None:
                props = {str(k): str(v) for k, v in value.get("properties", {}).items()}
                self._deferred_tasks.setdefault(name, {})[int(index)] = props
            return False
        if key.startswith("commit-"):
            name = key[len("commit-"):]
            count = int(value.get("tasks", 0)) if value else 0
            deferred = self._deferred_tasks.pop(name, {})
            previous = s.task_configs.get(name, [])
            tasks = [deferred.get(i) or (previous[i] if i < len(previous) else None) for i in range(count)]
            if any(t is None for t in tasks):
                log.warning("commit for %s names %d tasks but some configs are missing; ignoring", name, count)
                return False
            s.task_configs[name] = [t for t in tasks if t is not None]
            return True
        if key.startswith("restart-connector-"):
            name = key[len("restart-connector-"):]
            if value is not None:
                self._seq += 1
                s.restarts[name] = RestartRequest(name, bool(value.get("include-tasks")),
                                                  bool(value.get("only-failed")), self._seq)
                return True
            return False
        if key.startswith("logger-cluster-"):
            if value is not None and value.get("level"):
                s.logger_levels[key[len("logger-cluster-"):]] = str(value["level"])
                return True
            return False
        if key.startswith(("session-key", "tasks-fencing-")):
            return False
        log.debug("ignoring config record with unknown key %s", key)
        return False
