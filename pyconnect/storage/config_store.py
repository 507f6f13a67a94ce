"""Connector configs, target states, task configs and restart requests (Connect's config topic).

Record keys and JSON values are Connect's (compat-spec §B.2), and records are read the way
`KafkaConfigBackingStore` reads them: a record of the wrong shape is ignored, task configs become
visible only when their `commit-<name>` record arrives, and a commit whose task configs are not all
in the log (compaction, or a leader that died mid-write) leaves the connector *inconsistent*: no
tasks until a complete set is committed. Null config values stay null.
"""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import orjson

from pyconnect.api.states import TargetState
from pyconnect.api.task_id import TaskId
from pyconnect.storage.java_compat import is_json_integer, task_key, to_int32
from pyconnect.storage.log import Log, LogBackedStore

log = logging.getLogger(__name__)

TARGET_STATES = (TargetState.STARTED, TargetState.PAUSED, TargetState.STOPPED)


@dataclass(frozen=True)
class RestartRequest:
    """A `restart-connector-<name>` record."""

    connector: str
    include_tasks: bool
    only_failed: bool
    seq: int  # position in the log: lets workers act on each request once


@dataclass(frozen=True)
class SessionKey:
    """The `session-key` record: the key that signs requests between workers."""

    key: bytes
    algorithm: str
    creation_timestamp: int


@dataclass
class ConfigSnapshot:
    """An immutable-by-convention copy of the cluster's configuration.

    Config values are strings or None: Java's `Map<String, String>` admits null, and a null written by
    a Java worker (or a REST client) must read back as null.
    """

    version: int = 0
    connectors: dict[str, dict[str, str]] = field(default_factory=dict)
    target_states: dict[str, TargetState] = field(default_factory=dict)
    task_configs: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    restarts: dict[str, RestartRequest] = field(default_factory=dict)
    logger_levels: dict[str, str] = field(default_factory=dict)
    #: Connectors whose last commit named task configs that are not in the log; they have no tasks.
    inconsistent: set[str] = field(default_factory=set)
    session_key: SessionKey | None = None
    #: Exactly-once fencing (Kafka's KafkaConfigBackingStore): the task count of each connector's last
    #: `tasks-fencing-<name>` record, the connectors whose task configs are newer than that record,
    #: and how many task-config commits each connector has had (its task generation).
    task_count_records: dict[str, int] = field(default_factory=dict)
    pending_fencing: set[str] = field(default_factory=set)
    task_generations: dict[str, int] = field(default_factory=dict)

    def task_ids(self) -> list[TaskId]:
        """Every committed task of every existing connector."""
        return [TaskId(name, i) for name in sorted(self.task_configs) if name in self.connectors
                for i in range(len(self.task_configs[name]))]

    def target_state(self, name: str) -> TargetState:
        """The connector's target state; STARTED when none was written (as for 0.9-era connectors)."""
        return self.target_states.get(name, TargetState.STARTED)


def _dumps(obj: Any) -> bytes:
    return orjson.dumps(obj)


def _config_value(value: Any) -> str | None:
    """A config value as Connect hands it on: strings and null as they are.

    Java workers only ever write strings or null; anything else gets its JSON text, so `true` stays
    `true` rather than Python's `True`.
    """
    if value is None or isinstance(value, str):
        return value
    return orjson.dumps(value).decode()


def _properties(value: Any) -> dict[str, str] | None:
    """The `properties` map of a connector or task record, or None when the record has another shape."""
    if not isinstance(value, dict) or not isinstance(value.get("properties"), dict):
        return None
    props = {str(k): _config_value(v) for k, v in value["properties"].items()}
    return cast(dict[str, str], props)  # values may be None; see ConfigSnapshot


class ConfigStore(LogBackedStore):
    """Reads and writes the config topic; notifies listeners on every applied change."""

    def __init__(self, log_: Log) -> None:
        super().__init__(log_)
        self._state = ConfigSnapshot()
        self._task_counts: dict[str, int] = {}
        self._task_configs: dict[tuple[str, int], dict[str, str]] = {}
        self._deferred_tasks: dict[str, dict[int, dict[str, str]]] = {}
        self._listeners: list[Callable[[], None]] = []
        self._seq = 0
        self._started = False

    def add_listener(self, listener: Callable[[], None]) -> None:
        """Call `listener` (with no arguments) after every applied change."""
        self._listeners.append(listener)

    def start(self, timeout: float = 60.0) -> None:
        """Read the topic to its end; logger levels written before that are history (as in Connect)."""
        super().start(timeout)
        with self._lock:
            self._started = True

    def snapshot(self) -> ConfigSnapshot:
        """A deep copy of the current state."""
        with self._lock:
            s = self._state
            return ConfigSnapshot(
                version=s.version, connectors={k: dict(v) for k, v in s.connectors.items()},
                target_states=dict(s.target_states), task_configs=self._committed_tasks(),
                restarts=dict(s.restarts), logger_levels=dict(s.logger_levels),
                inconsistent=set(s.inconsistent), session_key=s.session_key,
                task_count_records=dict(s.task_count_records), pending_fencing=set(s.pending_fencing),
                task_generations=dict(s.task_generations))

    def _committed_tasks(self) -> dict[str, list[dict[str, str]]]:
        # Connect's ClusterConfigState.tasks(): none while inconsistent, else tasks 0..count-1.
        out: dict[str, list[dict[str, str]]] = {}
        for name, count in self._task_counts.items():
            configs = [self._task_configs.get((name, i)) for i in range(count)]
            if name not in self._state.inconsistent and all(c is not None for c in configs):
                out[name] = [dict(c) for c in configs if c is not None]
        return out

    # writes ----------------------------------------------------------------------------------

    def put_connector_config(self, name: str, config: Mapping[str, str],
                             target_state: TargetState | None = None) -> None:
        """Write `connector-<name>`; an initial target state goes first, as Connect writes it."""
        if target_state is not None:
            self.put_target_state(name, target_state, wait=False)
        self._write(f"connector-{name}", {"properties": dict(config)})

    def remove_connector(self, name: str) -> None:
        """Tombstone the connector's config and target state."""
        self._write(f"connector-{name}", None, wait=False)
        self._write(f"target-state-{name}", None)

    def put_target_state(self, name: str, state: TargetState, wait: bool = True) -> None:
        """Write `target-state-<name>`; STOPPED is also written as PAUSED for older workers."""
        if state not in TARGET_STATES:
            raise ValueError(f"unknown target state {state}")
        legacy = TargetState.PAUSED if state == TargetState.STOPPED else state
        self._write(f"target-state-{name}", {"state": legacy, "state.v2": state}, wait=wait)

    def put_task_configs(self, name: str, configs: list[dict[str, str]]) -> None:
        """Write every `task-<name>-<n>`, then the `commit-<name>` that makes them visible."""
        for i, task_config in enumerate(configs):
            self._write(f"task-{name}-{i}", {"properties": task_config}, wait=False)
        self._write(f"commit-{name}", {"tasks": len(configs)})

    def put_task_count_record(self, name: str, count: int) -> None:
        """Write `tasks-fencing-<name>` = {"task-count": count}: every task generation older than the
        current one has been fenced out (written by the leader, as Connect's is)."""
        self._write(f"tasks-fencing-{name}", {"task-count": count})

    def request_restart(self, name: str, include_tasks: bool, only_failed: bool) -> None:
        """Write `restart-connector-<name>`."""
        self._write(f"restart-connector-{name}", {"include-tasks": include_tasks, "only-failed": only_failed})

    def put_logger_level(self, namespace: str, level: str) -> None:
        """Write `logger-cluster-<namespace>` (a cluster-wide level, KIP-976)."""
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
        # Same prefixes in the same order as KafkaConfigBackingStore's consume callback.
        if key.startswith("target-state-"):
            return self._apply_target_state(key[len("target-state-"):], value)
        if key.startswith("connector-"):
            return self._apply_connector(key[len("connector-"):], value)
        if key.startswith("task-"):
            return self._apply_task(key, value)
        if key.startswith("commit-"):
            return self._apply_commit(key[len("commit-"):], value)
        if key.startswith("restart-connector-"):
            return self._apply_restart(key[len("restart-connector-"):], value)
        if key.startswith("tasks-fencing-"):
            return self._apply_task_count(key[len("tasks-fencing-"):], value)
        if key == "session-key":
            return self._apply_session_key(value)
        if key.startswith("logger-cluster-"):
            return self._apply_logger_level(key[len("logger-cluster-"):], value)
        log.debug("ignoring config record with unknown key %s", key)
        return False

    def _apply_target_state(self, name: str, value: Any) -> bool:
        s = self._state
        if value is None:
            s.target_states.pop(name, None)
            if name in s.connectors:  # a connector always has a target state
                s.target_states[name] = TargetState.STARTED
            return True
        if not isinstance(value, dict):
            log.error("ignoring target state for %s: the value is not an object", name)
            return False
        # `state.v2` if it is a string, else the older `state` written by pre-STOPPED workers.
        state = value.get("state.v2")
        if not isinstance(state, str):
            state = value.get("state")
        if state not in TARGET_STATES:
            log.error("ignoring invalid target state %r for connector %s", state, name)
            return False
        previous, s.target_states[name] = s.target_states.get(name), TargetState(state)
        return previous != state  # rewriting the same state is no change (Connect does not notify)

    def _apply_connector(self, name: str, value: Any) -> bool:
        s = self._state
        if value is None:
            s.connectors.pop(name, None)
            self._task_counts.pop(name, None)
            self._deferred_tasks.pop(name, None)
            for task in [t for t in self._task_configs if t[0] == name]:
                del self._task_configs[task]
            return True
        props = _properties(value)
        if props is None:
            log.error("ignoring config for connector %s: it has no `properties` object", name)
            return False
        s.connectors[name] = props
        s.target_states.setdefault(name, TargetState.STARTED)
        return True

    def _apply_task(self, key: str, value: Any) -> bool:
        task = task_key(key, 1)
        props = _properties(value)
        if task is None or props is None:
            log.error("ignoring task config record %s: bad key, tombstone or no `properties` object", key)
            return False
        name, index = task
        self._deferred_tasks.setdefault(name, {})[index] = props
        return False  # invisible until its commit record

    def _apply_commit(self, name: str, value: Any) -> bool:
        count = value.get("tasks") if isinstance(value, dict) else None
        if not is_json_integer(count):
            log.error("ignoring task commit for connector %s: no integer `tasks`", name)
            return False
        count = to_int32(count)
        deferred = self._deferred_tasks.pop(name, {})
        # Only the configs written since the previous commit count: every task 0..count-1 must be there.
        if all(i in deferred for i in range(count)):
            self._task_configs.update({(name, i): c for i, c in deferred.items()})
            self._state.inconsistent.discard(name)
        else:
            log.warning("commit for %s names %d tasks but some configs are missing; inconsistent", name, count)
            self._state.inconsistent.add(name)
        self._task_counts[name] = count
        self._state.pending_fencing.add(name)
        self._state.task_generations[name] = self._state.task_generations.get(name, 0) + 1
        return True

    def _apply_task_count(self, name: str, value: Any) -> bool:
        count = value.get("task-count") if isinstance(value, dict) else None
        if not is_json_integer(count):
            log.error("ignoring task count record for connector %s: no integer `task-count`", name)
            return False
        self._state.task_count_records[name] = to_int32(count)
        self._state.pending_fencing.discard(name)
        return True

    def _apply_restart(self, name: str, value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        # A field that is missing or not a boolean means false, as in Connect.
        include_tasks = value.get("include-tasks") is True
        only_failed = value.get("only-failed") is True
        self._seq += 1
        self._state.restarts[name] = RestartRequest(name, include_tasks, only_failed, self._seq)
        return True

    def _apply_session_key(self, value: Any) -> bool:
        if not isinstance(value, dict):
            return False
        key, algorithm, created = value.get("key"), value.get("algorithm"), value.get("creation-timestamp")
        if not (isinstance(key, str) and isinstance(algorithm, str) and is_json_integer(created)):
            log.error("ignoring session key record with missing or mistyped fields")
            return False
        try:  # Java's decoder does not require the `=` padding
            secret = base64.b64decode(key + "=" * (-len(key) % 4), validate=True)
        except (binascii.Error, ValueError):
            log.error("ignoring session key record whose key is not base64")
            return False
        self._state.session_key = SessionKey(secret, algorithm, created)
        return True

    def _apply_logger_level(self, namespace: str, value: Any) -> bool:
        level = value.get("level") if isinstance(value, dict) else None
        if not isinstance(level, str) or not level:
            return False  # an empty level is not one; Connect's herder would ignore it too
        if not self._started:
            return False  # levels written before this worker started are not applied (Connect)
        self._state.logger_levels[namespace] = level
        return True
