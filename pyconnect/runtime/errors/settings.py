"""`ErrorSettings`: a connector's `errors.*` configuration, parsed once per task."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyconnect.runtime.errors import config_keys as keys
from pyconnect.runtime.errors.stage import ToleranceType


@dataclass(frozen=True)
class ErrorSettings:
    """What ConnectorConfig and SinkConnectorConfig read from the `errors.*` keys.

    `retry_timeout_ms` -1 retries for ever, 0 never retries; `dlq_topic` "" disables the dead letter
    queue (sinks only; a source's config never sets it)."""

    tolerance: ToleranceType = ToleranceType.NONE
    retry_timeout_ms: int = keys.RETRY_TIMEOUT_DEFAULT
    retry_delay_max_ms: int = keys.RETRY_DELAY_MAX_MS_DEFAULT
    log_enable: bool = False
    log_include_messages: bool = False
    dlq_topic: str = ""
    dlq_replication_factor: int = keys.DLQ_REPLICATION_FACTOR_DEFAULT
    dlq_context_headers: bool = False

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ErrorSettings:
        """Parse the `errors.*` keys of a connector config (raw strings or typed values; absent keys take
        their defaults); raise ConfigException naming every bad key."""
        values = keys.SINK_ERROR_KEYS.parse(config)
        return cls(
            tolerance=ToleranceType.parse(values[keys.TOLERANCE]),
            retry_timeout_ms=values[keys.RETRY_TIMEOUT],
            retry_delay_max_ms=values[keys.RETRY_DELAY_MAX_MS],
            log_enable=values[keys.LOG_ENABLE],
            log_include_messages=values[keys.LOG_INCLUDE_MESSAGES],
            # SinkConnectorConfig trims the name (DeadLetterQueueReporter's dlqTopicName).
            dlq_topic=values[keys.DLQ_TOPIC_NAME].strip(),
            dlq_replication_factor=values[keys.DLQ_REPLICATION_FACTOR],
            dlq_context_headers=values[keys.DLQ_CONTEXT_HEADERS_ENABLE],
        )

    @property
    def dlq_enabled(self) -> bool:
        """A dead letter queue topic is named."""
        return bool(self.dlq_topic)

    @property
    def errant_record_reporter_enabled(self) -> bool:
        """SinkConnectorConfig.enableErrantRecordReporter: a DLQ or the error log is on, so a sink task
        gets an errant record reporter."""
        return self.dlq_enabled or self.log_enable
