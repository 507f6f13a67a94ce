"""Cluster operations behind the REST API (Connect's herder): connector reads, validated writes,
lifecycle, offsets and topic tracking.

Answers are the typed values of `pyconnect.runtime.results`; failures are the errors of
`pyconnect.runtime.herder.request_errors` with Connect's messages. HTTP (status codes, JSON, forwarding) is the
REST layer's business: a leader-only write on a follower raises NotLeader with the leader's URL.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import replace

from pyconnect.api.states import State, TargetState
from pyconnect.api.task_id import TaskId
from pyconnect.plugins import PluginNotFound
from pyconnect.runtime.connector_runner import connector_instance
from pyconnect.runtime.herder import config_validation, status_view
from pyconnect.runtime.herder.admin import WorkerAdmin
from pyconnect.runtime.herder.request_errors import BadConfig, Conflict, Forbidden, NotAssigned, NotFound, NotLeader
from pyconnect.runtime.results import (
    ActiveTopics,
    ConnectorInfo,
    ConnectorOffsets,
    ConnectorState,
    ConnectorStateInfo,
    PartitionOffset,
    TaskInfo,
    TaskState,
)
from pyconnect.storage.config_store import ConfigSnapshot
from pyconnect.storage.status_store import Status

STOP_FIRST = ("Connectors must be in the STOPPED state before their offsets can be modified. This can be done for "
              "the specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint")
# The initial state a creation request names -> the target state it writes.
INITIAL_STATES = {"RUNNING": TargetState.STARTED, "PAUSED": TargetState.PAUSED, "STOPPED": TargetState.STOPPED}


def _state(status: Status) -> ConnectorState:
    return ConnectorState(status.state, status.worker_id, status.trace, status.progress)


def _task_state(task: int, status: Status) -> TaskState:
    return TaskState(id=task, state=status.state, worker_id=status.worker_id, trace=status.trace,
                     progress=status.progress)


def _name_matches(name: str, config: dict[str, str]) -> None:
    """A config's `name`, if given, must be the connector's; it is set to it either way."""
    # A null name is replaced, as Connect's checkAndPutConnectorConfigName does.
    if config.get("name") not in (None, name):
        raise BadConfig(f"Connector name configuration ({config['name']}) doesn't match connector name in the URL "
                        f"({name})")
    config["name"] = name


class Herder(WorkerAdmin):
    """The cluster as the REST API sees it, through one worker."""

    # leadership ------------------------------------------------------------------------------

    def _require_leader(self, action: str) -> None:
        membership = self._membership
        if not membership.is_leader():
            raise NotLeader(f"Only the leader can {action}.", membership.leader_url())

    def await_leader(self) -> bool:
        """Wait (up to a session timeout) until a leader is known: a request arriving while the worker
        joins waits, as Connect's herder queues requests until its first rebalance."""
        membership = self._membership
        return membership.await_leader(membership.session_timeout + 5.0)

    # reads -----------------------------------------------------------------------------------

    def _snapshot(self) -> ConfigSnapshot:
        self._configs.refresh(10)
        return self._configs.snapshot()

    def connectors(self) -> list[str]:
        """Every connector's name, sorted."""
        return sorted(self._snapshot().connectors)

    def connector_config(self, name: str) -> dict[str, str]:
        """The connector's config; NotFound if there is no such connector."""
        snap = self._snapshot()
        if name not in snap.connectors:
            raise NotFound(f"Connector {name} not found")
        return snap.connectors[name]

    def _type(self, config: Mapping[str, str]) -> str:
        try:
            return self._plugins.resolve(config.get("connector.class", "")).type
        except PluginNotFound:
            return "unknown"

    def _version(self, config: Mapping[str, str]) -> str | None:
        """The installed version of the connector's plugin (KIP-891's `version` in the status); None
        for a class no longer installed. Tasks share it: a task class ships with its connector."""
        try:
            return self._plugins.resolve(config.get("connector.class", "")).version()
        except PluginNotFound:
            return None

    def _info(self, name: str) -> ConnectorInfo:
        """The connector as last read (no refresh: a write has just waited for its own record)."""
        snap = self._configs.snapshot()
        if name not in snap.connectors:
            raise NotFound(f"Connector {name} not found")  # removed since the caller looked
        config = snap.connectors[name]
        tasks = [TaskId(name, i) for i in range(len(snap.task_configs.get(name, [])))]
        return ConnectorInfo(name, config, tasks, self._type(config))

    def connector_info(self, name: str) -> ConnectorInfo:
        """The connector's config and tasks."""
        self.connector_config(name)
        return self._info(name)

    def connector_status(self, name: str) -> ConnectorStateInfo:
        """The connector's and its tasks' states."""
        statuses = self._statuses
        statuses.refresh(10)
        conn = statuses.connector(name)
        snap = self._configs.snapshot()
        if name not in snap.connectors:
            raise NotFound(f"No status found for connector {name}")
        live = self._membership.live_members()
        conn = status_view.seen(conn, live) if conn else status_view.not_yet_reported(name, self._membership.assignment)
        count = len(snap.task_configs.get(name, []))
        version = self._version(snap.connectors[name])
        tasks = [replace(_task_state(i, status_view.seen(st, live)), version=version)
                 for i, st in sorted(statuses.tasks(name).items()) if i < count]
        connector = replace(_state(conn), auto_restart=statuses.auto_restart(name), version=version)
        return ConnectorStateInfo(name, connector, tasks, self._type(snap.connectors[name]))

    def task_status(self, name: str, task: int) -> TaskState:
        """One task's state."""
        self._statuses.refresh(10)
        st = self._statuses.task(name, task)
        snap = self._configs.snapshot()
        if st is None or task >= len(snap.task_configs.get(name, [])):
            raise NotFound(f"No status found for task {name}-{task}")
        shown = status_view.seen(st, self._membership.live_members())
        return replace(_task_state(task, shown), version=self._version(snap.connectors.get(name, {})))

    def task_configs(self, name: str) -> list[TaskInfo]:
        """The connector's task configs, by task id."""
        self.connector_config(name)
        configs = self._configs.snapshot().task_configs.get(name, [])
        return [TaskInfo(TaskId(name, i), c) for i, c in enumerate(configs)]

    def offsets(self, name: str) -> ConnectorOffsets:
        """The connector's committed offsets."""
        self.connector_config(name)
        self._offsets.refresh(10)
        return ConnectorOffsets([PartitionOffset(p, o) for p, o in self._offsets.connector_offsets(name)])

    def active_topics(self, name: str) -> ActiveTopics:
        """The topics the connector has used (any name answers, an unknown one with none)."""
        if not self._settings.topic_tracking_enable:
            raise Forbidden("Topic tracking is disabled.")
        self._statuses.refresh(10)
        return ActiveTopics(name, sorted(self._statuses.topics(name)))

    # config writes (leader only) -------------------------------------------------------------

    @staticmethod
    def _await(condition: Callable[[], bool], timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition() and time.monotonic() < deadline:
            time.sleep(0.02)

    def create(self, name: str, config: dict[str, str], initial_state: str | None) -> ConnectorInfo:
        """Create a connector, optionally RUNNING, PAUSED or STOPPED from the start. `config` is
        the caller's to give away: its `name` is set."""
        self._require_leader("create connectors")
        _name_matches(name, config)
        if name in self._snapshot().connectors:
            raise Conflict(f"Connector {name} already exists")
        config_validation.require_valid(self._plugins, config, self._settings.exactly_once,
                                        self._settings.refuse_unknown_keys, self._config)
        target = None
        if initial_state is not None:
            target = INITIAL_STATES.get(initial_state.strip().upper())
            if target is None:
                raise BadConfig(f"Invalid initial state {initial_state}: must be RUNNING, PAUSED or STOPPED")
        self._configs.put_connector_config(name, config, target)
        self._await(lambda: name in self._configs.snapshot().connectors)
        # Java's DistributedHerder answers with the tasks as they were before the write: none for a new
        # connector, even when they were generated while the write was read back
        return ConnectorInfo(name, config, [], self._type(config))

    def put_config(self, name: str, config: dict[str, str]) -> tuple[bool, ConnectorInfo]:
        """Create or replace a connector's config; True if it was created."""
        self._require_leader("write connector configs")
        return self._put_config(name, config)

    def _put_config(self, name: str, config: dict[str, str]) -> tuple[bool, ConnectorInfo]:
        _name_matches(name, config)
        before = self._snapshot()
        created = name not in before.connectors
        config_validation.require_valid(self._plugins, config, self._settings.exactly_once,
                                        self._settings.refuse_unknown_keys, self._config)
        self._configs.put_connector_config(name, config)
        self._await(lambda: self._configs.snapshot().connectors.get(name) == config)
        # the tasks as they were before the write, as Java's DistributedHerder.putConnectorConfig answers
        tasks = [TaskId(name, i) for i in range(len(before.task_configs.get(name, [])))]
        return created, ConnectorInfo(name, config, tasks, self._type(config))

    def patch_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        """Merge `patch` into the connector's config (None removes a key) and validate the result."""
        self._require_leader("write connector configs")
        merged = dict(self.connector_config(name))
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        return self._put_config(name, merged)[1]

    def delete(self, name: str) -> None:
        """Remove the connector (its config and target state)."""
        self._require_leader("delete connectors")
        self.connector_config(name)
        self._configs.remove_connector(name)
        self._await(lambda: name not in self._configs.snapshot().connectors)

    # lifecycle -------------------------------------------------------------------------------

    def _require_known(self, name: str) -> None:
        """The existence check of pause, resume and stop (Connect's words differ from the others')."""
        if name not in self._snapshot().connectors:
            raise NotFound(f"Unknown connector {name}")

    def pause(self, name: str) -> None:
        """Any worker writes the target state."""
        self._require_known(name)
        self._configs.put_target_state(name, TargetState.PAUSED)

    def resume(self, name: str) -> None:
        """Any worker writes the target state; a STOPPED connector starts again too."""
        self._require_known(name)
        self._configs.put_target_state(name, TargetState.STARTED)

    def stop(self, name: str) -> None:
        """The leader writes an empty task set, then the STOPPED target state."""
        self._require_known(name)  # any worker knows the connectors: an unknown one is not forwarded
        self._require_leader("stop connectors")
        self._configs.put_task_configs(name, [])
        self._configs.put_target_state(name, TargetState.STOPPED)

    def _require_exists(self, name: str) -> ConfigSnapshot:
        snap = self._snapshot()
        if name not in snap.connectors:
            raise NotFound(f"Unknown connector: {name}")
        return snap

    def restart(self, name: str, include_tasks: bool, only_failed: bool) -> ConnectorStateInfo | None:
        """Write a restart request. Returns the states with RESTARTING for what will restart, or None
        for the legacy connector-only restart."""
        self._require_leader("restart connectors")
        self._require_exists(name)
        planned = None
        if include_tasks or only_failed:
            status = self.connector_status(name)
            connector = status.connector
            if not only_failed or connector.state == State.FAILED:
                connector = replace(connector, state=State.RESTARTING)
            restart = State.RESTARTING
            tasks = [replace(t, state=restart) if include_tasks and (not only_failed or t.state == State.FAILED)
                     else t for t in status.tasks]
            planned = replace(status, connector=connector, tasks=tasks)
        self._configs.request_restart(name, include_tasks, only_failed)
        return planned

    def restart_task(self, name: str, task: int) -> None:
        """Restart a task this worker runs; NotAssigned (with the owner's URL) if another runs it."""
        snap = self._require_exists(name)
        if task >= len(snap.task_configs.get(name, [])):
            raise NotFound(f"Unknown task: {name}-{task}")
        if not self._worker.restart_task(TaskId(name, task)):
            raise NotAssigned(f"Task {name}-{task} is not assigned to this worker.", self._task_owner_url(name, task))

    def _task_owner_url(self, name: str, task: int) -> str | None:
        assignment = self._membership.assignment
        if assignment is None:
            return None
        for worker_id, work in assignment.workers.items():
            if TaskId(name, task) in work.tasks:
                member = self._membership.live_members().get(worker_id)
                return member.url if member else None
        return None

    # offsets and topics ----------------------------------------------------------------------

    def _require_stopped(self, name: str) -> dict[str, str]:
        config = self.connector_config(name)
        snap = self._configs.snapshot()
        if snap.target_state(name) != TargetState.STOPPED or snap.task_configs.get(name):
            raise BadConfig(STOP_FIRST.format(name=name))
        return config

    def alter_offsets(self, name: str, offsets: list[PartitionOffset] | None) -> str:
        """Write new offsets (None: remove) for a STOPPED connector once its plugin accepts them;
        returns Connect's message."""
        self._require_leader("alter connector offsets")
        if not offsets:
            raise BadConfig("Partitions / offsets need to be provided for an alter offsets request")
        config = self._require_stopped(name)
        for entry in offsets:
            if any(isinstance(v, (dict, list)) for m in (entry.partition, entry.offset or {}) for v in m.values()):
                raise BadConfig("Partition and offset maps may only contain primitive values")
        try:
            connector_instance(self._plugins, config).alter_offsets(config, {
                str(i): (e.partition, e.offset) for i, e in enumerate(offsets)})
        except (ValueError, TypeError) as exc:
            raise BadConfig(f"Failed to alter offsets: {exc}") from None
        self._write_offsets(name, offsets)
        return "The offsets for this connector have been altered successfully"

    def reset_offsets(self, name: str) -> str:
        """Remove every offset of a STOPPED connector; returns Connect's message."""
        self._require_leader("reset connector offsets")
        self._require_stopped(name)
        self._offsets.refresh(10)
        self._write_offsets(name, [PartitionOffset(p, None) for p, _ in self._offsets.connector_offsets(name)])
        return "The offsets for this connector have been reset successfully"

    def _write_offsets(self, name: str, offsets: list[PartitionOffset]) -> None:
        for fut in self._offsets.put(name, [(e.partition, e.offset) for e in offsets]):
            self._offsets.flush(10)
            fut.result(10)
        self._offsets.refresh(10)

    def reset_topics(self, name: str) -> None:
        """Forget the topics the connector has used."""
        if not self._settings.topic_tracking_enable:
            raise Forbidden("Topic tracking is disabled.")
        if not self._settings.topic_tracking_allow_reset:
            raise Forbidden("Topic tracking reset is disabled.")
        self.connector_config(name)
        self._statuses.refresh(10)
        for topic in self._statuses.topics(name):
            self._statuses.delete_topic(name, topic)
        self._statuses.flush(10)
