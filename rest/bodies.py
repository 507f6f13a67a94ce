"""The herder's answers as Connect's JSON bodies (compat-spec §A.2), field for field as Jackson
writes them; `rest.models` documents the same shapes for /openapi.json.

Written out rather than derived from the models so that Connect's inclusion rules stay visible: a
state's `trace` is left out when empty, `progress` (our extension) when absent, while null config
values and defaults stay in.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pyconnect.api.task_id import TaskId
from pyconnect.runtime.results import (
    ActiveTopics,
    ConfigInfos,
    ConfigKeyInfo,
    ConnectorInfo,
    ConnectorOffsets,
    ConnectorState,
    ConnectorStateInfo,
    LoggerLevel,
    PluginDesc,
    ServerInfo,
    TaskInfo,
    TaskState,
    WorkerHealth,
)

Json = dict[str, Any]


def iso_utc_ms(epoch_ms: int) -> str:
    """An epoch-ms time as ISO 8601 in UTC with milliseconds (`2026-11-26T07:01:02.345Z`, as Strimzi's)."""
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def task_id(task: TaskId) -> Json:
    """`{"connector", "task"}`."""
    return {"connector": task.connector, "task": task.task}


def connector_info(info: ConnectorInfo) -> Json:
    """ConnectorInfo: name, config, tasks, type."""
    return {"name": info.name, "config": info.config, "tasks": [task_id(t) for t in info.tasks], "type": info.type}


def _state_fields(state: ConnectorState) -> Json:
    out: Json = {"state": state.state, "worker_id": state.worker_id}
    if state.version is not None:  # KIP-891 (Kafka 4.1): the plugin version the connector runs with
        out["version"] = state.version
    if state.trace:
        out["trace"] = state.trace  # @JsonInclude(NON_EMPTY)
    if state.progress is not None:
        out["progress"] = state.progress  # batch tasks only (an extension)
    if state.auto_restart is not None:  # a connector auto-restarted since it last ran stably (an extension)
        out["auto_restart"] = {"count": state.auto_restart.count,
                               "last_restart_timestamp": iso_utc_ms(state.auto_restart.last_restart_ms)}
    return out


def task_state(state: TaskState) -> Json:
    """A task's `{"id", "state", "worker_id", "version"?, "trace"?}`."""
    return {"id": state.id, **_state_fields(state)}


def connector_state_info(info: ConnectorStateInfo) -> Json:
    """ConnectorStateInfo: name, connector state, task states, type."""
    return {"name": info.name, "connector": _state_fields(info.connector),
            "tasks": [task_state(t) for t in info.tasks], "type": info.type}


def task_infos(tasks: list[TaskInfo]) -> list[Json]:
    """The `/tasks` answer: `[{"id": {...}, "config": {...}}]`."""
    return [{"id": task_id(t.id), "config": t.config} for t in tasks]


def tasks_config(tasks: list[TaskInfo]) -> dict[str, dict[str, str]]:
    """The deprecated `/tasks-config` answer: configs by `<connector>-<task>`."""
    return {f"{t.id.connector}-{t.id.task}": t.config for t in tasks}


def connector_offsets(offsets: ConnectorOffsets) -> Json:
    """`{"offsets": [{"partition", "offset"}]}`."""
    return {"offsets": [{"partition": o.partition, "offset": o.offset} for o in offsets.offsets]}


def active_topics(topics: ActiveTopics) -> Json:
    """`{"<connector>": {"topics": [...]}}`."""
    return {topics.connector: {"topics": topics.topics}}


def message(text: str) -> Json:
    """Connect's Message entity."""
    return {"message": text}


def plugin(desc: PluginDesc) -> Json:
    """PluginInfo: class, type, version."""
    return {"class": desc.class_name, "type": desc.type, "version": desc.version}


def config_key(key: ConfigKeyInfo) -> Json:
    """ConfigKeyInfo as output (`order`, not `order_in_group`)."""
    return {"name": key.name, "type": key.type, "required": key.required, "default_value": key.default_value,
            "importance": key.importance, "documentation": key.documentation, "group": key.group,
            "order": key.order, "width": key.width, "display_name": key.display_name,
            "dependents": key.dependents}


def config_infos(infos: ConfigInfos) -> Json:
    """The validation answer."""
    configs = [{"definition": None if c.definition is None else config_key(c.definition),
                "value": {"name": c.value.name, "value": c.value.value,
                          "recommended_values": c.value.recommended_values, "errors": c.value.errors,
                          "visible": c.value.visible}} for c in infos.configs]
    return {"name": infos.name, "error_count": infos.error_count, "groups": infos.groups, "configs": configs}


def logger_level(level: LoggerLevel) -> Json:
    """`{"level", "last_modified"}`."""
    return {"level": level.level, "last_modified": level.last_modified}


def server_info(info: ServerInfo) -> Json:
    """The root resource's answer."""
    return {"version": info.version, "commit": info.commit, "kafka_cluster_id": info.kafka_cluster_id}


def worker_health(health: WorkerHealth) -> Json:
    """WorkerStatus: status, message."""
    return {"status": health.status, "message": health.message}
