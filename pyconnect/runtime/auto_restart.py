"""Auto-restart of FAILED connectors and tasks, as Strimzi's operator does it for a KafkaConnector with
`spec.autoRestart` (Strimzi's AbstractConnectOperator: autoRestartFailedConnectorAndTasks,
shouldAutoRestart, nextAutoRestartBackOffIntervalInMinutes, shouldResetAutoRestartStatus; StatusUtils:
incrementAutoRestartStatus, minutesDifferenceUntilNow; api AutoRestart: enabled, maxRestarts,
maxBackoffMinutes).

Strimzi's rules, reproduced by the pure functions below:
- a connector needs a restart when it or any of its tasks is FAILED; the restart is Connect's
  `POST /connectors/{name}/restart?includeTasks=true&onlyFailed=true`, and it counts one restart;
- with no restart counted yet, the restart is immediate; after the n-th, the next comes once
  `min(n*n + n, max backoff)` whole minutes have passed since it (intervals of 2, 6, 12, 20, 30, 42, 56
  minutes, then the maximum, 60 by default);
- with `max.restarts` set (>= 1) no restart is made once the count has reached it: the connector stays
  FAILED for an operator (Strimzi: unlimited when unset; here -1; 0 is refused: see auto_restart_keys);
- a connector that is not failing has its count reset once more than that same interval has passed
  since its last restart (after 4 restarts, 20 minutes without a failure).

Settings: the worker's `auto.restart.enabled`, `auto.restart.max.restarts`,
`auto.restart.max.backoff.minutes` (pyconnect/config/worker.py), each overridden by the connector
config's key of the same name (pyconnect/config/auto_restart_keys.py; part of every connector's ConfigDef).

Invariants:
- Only the cluster's leader decides and writes (one decider, so one failure is never counted or
  restarted twice). It runs as a leader duty of the worker loop: in a distributed cluster, in a
  standalone worker (its own leader) and in each flow's herder of a dedicated MirrorMaker.
- The count lives in the status topic (`status-auto-restart-<name>`, StatusStore), so a new leader
  carries on from it; the leader's own writes are kept in memory for its epoch, because the store
  reads them back asynchronously (a second restart one tick later would break the backoff).
- The count is written before the restart request: a leader that dies in between has counted a
  restart it did not make (fewer restarts, never more, as Strimzi counts a failed restart call).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pyconnect.api.states import State
from pyconnect.config.auto_restart_keys import CONNECTOR_KEYS, ENABLED, MAX_BACKOFF_MINUTES, MAX_RESTARTS, UNLIMITED
from pyconnect.runtime.clock import Clock
from pyconnect.storage.config_store import ConfigSnapshot, ConfigStore
from pyconnect.storage.status_store import AutoRestartRecord, StatusStore

log = logging.getLogger(__name__)

#: How often the leader looks at the statuses (it reads the in-memory stores only).
CHECK_INTERVAL_S = 1.0


@dataclass(frozen=True)
class AutoRestartPolicy:
    """Strimzi's AutoRestart: whether, how many times at most (None: no limit), and the backoff's cap."""

    enabled: bool
    max_restarts: int | None
    max_backoff_minutes: int

    @classmethod
    def of(cls, worker: Mapping[str, Any], connector: Mapping[str, str | None]) -> AutoRestartPolicy:
        """The connector's policy: its own keys where set (and valid), else the worker's parsed values."""
        merged = dict(worker)
        for key, value in CONNECTOR_KEYS.parse({k: v for k, v in connector.items() if k in CONNECTOR_KEYS.keys
                                                and v is not None}).items():
            if value is not None:
                merged[key] = value
        limit = int(merged[MAX_RESTARTS])
        return cls(bool(merged[ENABLED]), None if limit == UNLIMITED else limit, int(merged[MAX_BACKOFF_MINUTES]))


class Decision(Enum):
    """What the leader does for one connector now."""

    NOTHING = "nothing"
    RESTART = "restart"
    RESET = "reset"


def backoff_minutes(count: int, max_backoff_minutes: int) -> int:
    """Minutes to wait after the `count`-th restart (Strimzi's n*n + n, capped)."""
    return min(count * count + count, max_backoff_minutes)


def minutes_between(earlier_ms: int, later_ms: int) -> int:
    """Whole minutes from one epoch-ms time to another, truncated as Java's ChronoUnit.MINUTES.between."""
    return int((later_ms - earlier_ms) / 60_000)


def should_restart(record: AutoRestartRecord | None, policy: AutoRestartPolicy, now_ms: int) -> bool:
    """Whether a failing connector is restarted now (Strimzi's shouldAutoRestart)."""
    if record is None:
        return True
    if policy.max_restarts is not None and record.count >= policy.max_restarts:
        return False
    return minutes_between(record.last_restart_ms, now_ms) >= backoff_minutes(record.count,
                                                                             policy.max_backoff_minutes)


def should_reset(record: AutoRestartRecord | None, policy: AutoRestartPolicy, now_ms: int) -> bool:
    """Whether a connector that is not failing has been stable long enough to reset its count."""
    if record is None or record.count <= 0:
        return False
    return minutes_between(record.last_restart_ms, now_ms) > backoff_minutes(record.count,
                                                                            policy.max_backoff_minutes)


def decide(failing: bool, record: AutoRestartRecord | None, policy: AutoRestartPolicy, now_ms: int) -> Decision:
    """Strimzi's autoRestartFailedConnectorAndTasks, as a decision."""
    if not policy.enabled:
        return Decision.NOTHING
    if failing:
        return Decision.RESTART if should_restart(record, policy, now_ms) else Decision.NOTHING
    return Decision.RESET if should_reset(record, policy, now_ms) else Decision.NOTHING


def is_failing(statuses: StatusStore, snapshot: ConfigSnapshot, name: str) -> bool:
    """The connector or one of its current tasks is FAILED (Strimzi's connectorHasFailed/failedTaskIds)."""
    connector = statuses.connector(name)
    if connector is not None and connector.state == State.FAILED:
        return True
    count = len(snapshot.task_configs.get(name, []))
    return any(s.state == State.FAILED for i, s in statuses.tasks(name).items() if i < count)


class AutoRestarter:
    """The leader duty: restart what failed, by the connector's policy, on `clock`'s wall time."""

    def __init__(self, configs: ConfigStore, statuses: StatusStore, clock: Clock,
                 worker_values: Mapping[str, Any]) -> None:
        self._configs, self._statuses, self._clock = configs, statuses, clock
        self._worker = {k: worker_values[k] for k in CONNECTOR_KEYS.keys}
        self._epoch: int | None = None
        self._records: dict[str, AutoRestartRecord | None] = {}  # this leader epoch's own writes
        self._next_check = 0.0
        self._invalid: set[str] = set()  # connectors whose invalid setting was logged

    def tick(self, leader_epoch: int) -> None:
        """Called by the worker loop while this worker leads; looks at the statuses once a second."""
        now = self._clock.monotonic()
        if now < self._next_check:
            return
        self._next_check = now + CHECK_INTERVAL_S
        if leader_epoch != self._epoch:  # a new leadership: the status topic holds the previous leader's writes
            self._epoch, self._records = leader_epoch, {}
        snapshot = self._configs.snapshot()
        for gone in [n for n in self._records if n not in snapshot.connectors]:  # deleted: its count went too
            del self._records[gone]
        now_ms = int(self._clock.time() * 1000)
        for name, config in snapshot.connectors.items():
            try:
                policy = AutoRestartPolicy.of(self._worker, config)
            except Exception as exc:  # a config written around validation (e.g. from mm2.properties)
                if name not in self._invalid:
                    self._invalid.add(name)
                    log.warning("[%s] the connector is not auto-restarted: invalid auto.restart.* setting: %s",
                                name, exc)
                continue
            self._invalid.discard(name)
            self._handle(name, policy, snapshot, now_ms)

    def _record(self, name: str) -> AutoRestartRecord | None:
        return self._records[name] if name in self._records else self._statuses.auto_restart(name)

    def _handle(self, name: str, policy: AutoRestartPolicy, snapshot: ConfigSnapshot, now_ms: int) -> None:
        record = self._record(name)
        decision = decide(is_failing(self._statuses, snapshot, name), record, policy, now_ms)
        if decision is Decision.RESTART:
            count = (record.count if record else 0) + 1
            new = self._records[name] = AutoRestartRecord(count, now_ms)
            self._statuses.put_auto_restart(name, new)
            log.info("[%s] auto-restarting the connector and its failed tasks (restart %d%s)", name, count,
                     "" if policy.max_restarts is None else f" of at most {policy.max_restarts}")
            self._configs.request_restart(name, True, True)
        elif decision is Decision.RESET:
            self._records[name] = None
            self._statuses.put_auto_restart(name, None)
            log.info("[%s] no failure for %d minutes since the last auto-restart: its count is reset", name,
                     minutes_between(record.last_restart_ms, now_ms) if record else 0)
