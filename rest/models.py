"""Connect's REST entities (compat-spec §A.2) as pydantic models, so /openapi.json documents them;
the request bodies, and how a config map in a body is read.

The models have no docstrings on purpose: pydantic would publish them in /openapi.json as schema
descriptions. `rest.bodies` writes the response bodies these models describe.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, Field

from rest.errors import RestError


class ErrorBody(BaseModel):
    error_code: int
    message: str


class ServerInfo(BaseModel):
    version: str
    commit: str
    kafka_cluster_id: str


class WorkerStatus(BaseModel):
    status: str = Field(description="healthy, starting or unhealthy")
    message: str


class ConnectorTaskId(BaseModel):
    connector: str
    task: int


class ConnectorInfo(BaseModel):
    name: str
    config: dict[str, str]
    tasks: list[ConnectorTaskId]
    type: str = Field(description="source, sink or unknown")


class AutoRestartStatus(BaseModel):
    count: int = Field(description="restarts made since the connector last ran stably")
    last_restart_timestamp: str = Field(description="ISO 8601, UTC")


class ConnectorState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    state: str
    worker_id: str
    trace: str | None = Field(default=None, description="left out when empty")
    version: str | None = Field(default=None, description="the installed version of the connector's plugin "
                                "(KIP-891); left out when the plugin is not installed")
    auto_restart: AutoRestartStatus | None = Field(
        default=None, description="a connector's entry only, after an auto-restart (auto.restart.enabled); "
        "left out when no restart was made since the count was last reset")


class TaskState(ConnectorState):
    id: int
    progress: dict[str, Any] | None = Field(default=None, description="batch (backfill) tasks only: records "
                                            "copied/total, rate and ETA, overall and per topic")


class ConnectorStateInfo(BaseModel):
    name: str
    connector: ConnectorState
    tasks: list[TaskState]
    type: str


class TaskInfo(BaseModel):
    id: ConnectorTaskId
    config: dict[str, str]


class PartitionOffset(BaseModel):
    partition: dict[str, Any]
    offset: dict[str, Any] | None


class ConnectorOffsets(BaseModel):
    offsets: list[PartitionOffset]


class Message(BaseModel):
    message: str


class PluginInfo(BaseModel):
    class_: str = Field(alias="class")
    type: str
    version: str


class ConfigKeyInfo(BaseModel):
    name: str
    type: str
    required: bool
    default_value: str | None
    importance: str
    documentation: str
    group: str | None
    order: int
    width: str
    display_name: str
    dependents: list[str]


class ConfigValueInfo(BaseModel):
    name: str
    value: str | None
    recommended_values: list[str]
    errors: list[str]
    visible: bool


class ConfigInfo(BaseModel):
    definition: ConfigKeyInfo | None
    value: ConfigValueInfo


class ConfigInfos(BaseModel):
    name: str
    error_count: int
    groups: list[str]
    configs: list[ConfigInfo]


class LoggerLevel(BaseModel):
    level: str
    last_modified: int | None


# POST /connectors
class CreateConnectorRequest(BaseModel):
    name: str | None = None  # missing: "", which the name validator rejects, as Connect does
    config: dict[str, Any] = Field(default_factory=dict)
    initial_state: str | None = None


# PATCH /connectors/{name}/offsets: one entry, and the body
class OffsetEntry(BaseModel):
    partition: dict[str, Any]
    offset: dict[str, Any] | None = None


class OffsetsRequest(BaseModel):
    offsets: list[OffsetEntry] | None = None


def string_map(body: Mapping[str, Any]) -> dict[str, str | None]:
    """Connect's Map<String,String> as Jackson reads it: scalars become strings (booleans in lower
    case), null stays null, a nested value is a 400."""
    out: dict[str, str | None] = {}
    for key, value in body.items():
        if isinstance(value, (dict, list)):
            raise RestError(400, f"Cannot deserialize value of type `java.lang.String` from {type(value).__name__} "
                                 f"for configuration {key}")
        out[str(key)] = ("true" if value else "false") if isinstance(value, bool) else (
            None if value is None else str(value))
    return out


def connector_config(body: Mapping[str, Any]) -> dict[str, str]:
    """A connector config from a request body. A null value is kept, as Java keeps it: the runtime
    types config maps `dict[str, str]` and lets them hold None (see ConfigSnapshot)."""
    return cast(dict[str, str], string_map(body))


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": text} for code, text in (
        (400, "Bad request"), (404, "Not found"), (409, "Conflict (exists, or rebalance/forwarding)"),
        (500, "Internal error"))}
