"""What the herder answers: Connect's entities (compat-spec §A.2) as plain typed values.

They carry no wire format; `rest.bodies` turns them into Connect's JSON. Config maps are typed
`dict[str, str]` but may hold None, as Java's `Map<String, String>` does (see ConfigSnapshot).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyconnect.api.states import State
from pyconnect.api.task_id import TaskId
from pyconnect.storage.status_store import AutoRestartRecord


@dataclass(frozen=True)
class ConnectorInfo:
    """A connector's config and tasks; `type` is source, sink or unknown."""

    name: str
    config: dict[str, str]
    tasks: list[TaskId]
    type: str


@dataclass(frozen=True)
class ConnectorState:
    """The state of a connector instance as its status record gives it."""

    state: State
    worker_id: str | None  # None when a Java worker wrote none
    trace: str | None = None
    #: A batch task's progress (records, rate, ETA); an extension of Connect's entity.
    progress: dict[str, Any] | None = None
    #: A connector's auto-restart count and last restart (runtime/auto_restart.py); an extension too.
    auto_restart: AutoRestartRecord | None = None
    #: The installed version of the connector's plugin (KIP-891); None when it is not installed.
    version: str | None = None


@dataclass(frozen=True, kw_only=True)
class TaskState(ConnectorState):
    """The state of one task."""

    id: int


@dataclass(frozen=True)
class ConnectorStateInfo:
    """A connector's state and its tasks' states, tasks in id order."""

    name: str
    connector: ConnectorState
    tasks: list[TaskState]
    type: str


@dataclass(frozen=True)
class TaskInfo:
    """One task's config."""

    id: TaskId
    config: dict[str, str]


@dataclass(frozen=True)
class PartitionOffset:
    """A source partition and its offset (None: no offset)."""

    partition: dict[str, Any]
    offset: dict[str, Any] | None


@dataclass(frozen=True)
class ConnectorOffsets:
    """A connector's committed offsets."""

    offsets: list[PartitionOffset]


@dataclass(frozen=True)
class ActiveTopics:
    """The topics a connector has used since its topic tracking was last reset, sorted."""

    connector: str
    topics: list[str]


@dataclass(frozen=True)
class PluginDesc:
    """An installed plugin (or a built-in converter): its Java class name, lower-case type and version."""

    class_name: str
    type: str
    version: str


@dataclass(frozen=True)
class ConfigKeyInfo:
    """A config key's definition as Connect describes it (`default_value` None for a required key)."""

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


@dataclass(frozen=True)
class ConfigValueInfo:
    """A key's validated value: shown as parsed, passwords hidden, with its errors."""

    name: str
    value: str | None
    recommended_values: list[str]
    errors: list[str]
    visible: bool


@dataclass(frozen=True)
class ConfigInfo:
    """One key of a validation answer (`definition` None for a key outside the definition that has
    errors, e.g. a null value, as Connect answers)."""

    definition: ConfigKeyInfo | None
    value: ConfigValueInfo


@dataclass(frozen=True)
class ConfigInfos:
    """A validation answer: `name` is `connector.class` as given."""

    name: str
    error_count: int
    groups: list[str]
    configs: list[ConfigInfo] = field(default_factory=list)


@dataclass(frozen=True)
class LoggerLevel:
    """A logger's effective level and when it was last set (epoch ms, None if never)."""

    level: str
    last_modified: int | None


@dataclass(frozen=True)
class ServerInfo:
    """What the root resource tells about this worker."""

    version: str
    commit: str
    kafka_cluster_id: str


@dataclass(frozen=True)
class WorkerHealth:
    """`status` is healthy, starting or unhealthy."""

    status: str
    message: str
