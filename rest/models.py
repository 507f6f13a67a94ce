"""Connect's REST entities (compat-spec §A.2) as pydantic models, so /openapi.json documents them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


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


class ConnectorState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    state: str
    worker_id: str
    trace: str | None = Field(default=None, description="left out when empty")


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
    definition: ConfigKeyInfo
    value: ConfigValueInfo


class ConfigInfos(BaseModel):
    name: str
    error_count: int
    groups: list[str]
    configs: list[ConfigInfo]


class LoggerLevel(BaseModel):
    level: str
    last_modified: int | None


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": text} for code, text in (
        (400, "Bad request"), (404, "Not found"), (409, "Conflict (exists, or rebalance/forwarding)"),
        (500, "Internal error"))}
