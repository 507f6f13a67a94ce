"""`WorkerSettings`: the worker keys the runtime reads, typed, built from `WORKER_CONFIG`'s parse.

Each field is one key of the ConfigDef, named by the key with `.` as `_` (`offset.flush.interval.ms`
is `offset_flush_interval_ms`), so the ConfigDef stays the one place that declares keys, defaults
and validators (and what `/validate` reports); this class only gives the runtime typed access.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any


def key_of(field_name: str) -> str:
    """The worker key a settings field stands for."""
    return field_name.replace("_", ".")


@dataclass(frozen=True)
class WorkerSettings:
    """The parsed values of the worker keys the runtime uses (see WORKER_CONFIG for their docs)."""

    bootstrap_servers: str
    group_id: str
    config_storage_topic: str
    offset_storage_topic: str
    status_storage_topic: str
    membership_storage_topic: str
    config_storage_replication_factor: int
    offset_storage_replication_factor: int
    status_storage_replication_factor: int
    offset_storage_partitions: int
    status_storage_partitions: int
    offset_flush_interval_ms: int
    offset_flush_timeout_ms: int
    task_shutdown_graceful_timeout_ms: int
    session_timeout_ms: int
    heartbeat_interval_ms: int
    key_converter: str
    value_converter: str
    header_converter: str
    key_converter_schemas_enable: bool
    value_converter_schemas_enable: bool
    topic_tracking_enable: bool
    topic_tracking_allow_reset: bool
    exactly_once_source_support: str
    connector_config_unknown_keys: str
    metrics_prometheus_port: int
    listeners: list[str]
    rest_advertised_host_name: str | None
    rest_advertised_port: int | None
    rest_advertised_listener: str | None
    console_read_only: bool
    console_sample_interval_ms: int

    @property
    def refuse_unknown_keys(self) -> bool:
        """`connector.config.unknown.keys=refuse`: a typo'd connector key is an error, not a warning."""
        return self.connector_config_unknown_keys.strip().lower() == "refuse"

    @property
    def exactly_once(self) -> bool:
        """`exactly.once.source.support=enabled`: source tasks are transactional and fenced."""
        return self.exactly_once_source_support.strip().lower() == "enabled"

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> WorkerSettings:
        """From `WORKER_CONFIG.parse(...)` (every key present, defaults applied, types parsed)."""
        return cls(**{f.name: values[key_of(f.name)] for f in fields(cls)})
