"""The `errors.*` keys of a connector config: ConnectorConfig's error group (every connector) and
SinkConnectorConfig's dead letter queue keys (sinks only), with Java's names, types, defaults,
documentation, group and order."""

from __future__ import annotations

from typing import Any

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance

ERROR_GROUP = "Error Handling"

TOLERANCE = "errors.tolerance"
RETRY_TIMEOUT = "errors.retry.timeout"
RETRY_DELAY_MAX_MS = "errors.retry.delay.max.ms"
LOG_ENABLE = "errors.log.enable"
LOG_INCLUDE_MESSAGES = "errors.log.include.messages"
DLQ_TOPIC_NAME = "errors.deadletterqueue.topic.name"
DLQ_REPLICATION_FACTOR = "errors.deadletterqueue.topic.replication.factor"
DLQ_CONTEXT_HEADERS_ENABLE = "errors.deadletterqueue.context.headers.enable"

RETRY_TIMEOUT_DEFAULT = 0
RETRY_DELAY_MAX_MS_DEFAULT = 60000
DLQ_REPLICATION_FACTOR_DEFAULT = 3


def _tolerance(_name: str, value: Any) -> str | None:
    # Java's ConnectorConfig reads the value case-insensitively (errorToleranceType); the validator
    # accepts what the reader understands (Connect's CaseInsensitiveValidString).
    return None if str(value).strip().lower() in ("none", "all") else \
        "String must be one of (case insensitive): none, all"


def _at_least(minimum: int) -> Any:
    def check(_name: str, value: Any) -> str | None:
        return f"Value must be at least {minimum}" if value < minimum else None
    return check


def _replication_factor(_name: str, value: Any) -> str | None:
    # A Java SHORT; -1 asks for the broker's default.replication.factor, 0 is never valid.
    if not -32768 <= value <= 32767:
        return "Value must be a SHORT (-32768 to 32767)"
    return None if value == -1 or value >= 1 else "Value must be at least 1, or -1 for the broker's default"


ERROR_KEYS = ConfigDef([
    ConfigKey(RETRY_TIMEOUT, ConfigType.LONG, RETRY_TIMEOUT_DEFAULT, Importance.MEDIUM,
              "The maximum duration in milliseconds that a failed operation will be reattempted. The default is 0, "
              "which means no retries will be attempted. Use -1 for infinite retries.",
              group=ERROR_GROUP, order=1, width="MEDIUM", display_name="Retry Timeout for Errors",
              validator=_at_least(-1)),
    ConfigKey(RETRY_DELAY_MAX_MS, ConfigType.LONG, RETRY_DELAY_MAX_MS_DEFAULT, Importance.MEDIUM,
              "The maximum duration in milliseconds between consecutive retry attempts. Jitter will be added to "
              "the delay once this limit is reached to prevent thundering herd issues.",
              group=ERROR_GROUP, order=2, width="MEDIUM", display_name="Maximum Delay Between Retries for Errors",
              validator=_at_least(0)),
    ConfigKey(TOLERANCE, ConfigType.STRING, "none", Importance.MEDIUM,
              "Behavior for tolerating errors during connector operation. 'none' is the default value and signals "
              "that any error will result in an immediate connector task failure; 'all' changes the behavior to "
              "skip over problematic records.",
              group=ERROR_GROUP, order=3, width="SHORT", display_name="Error Tolerance", validator=_tolerance),
    ConfigKey(LOG_ENABLE, ConfigType.BOOLEAN, False, Importance.MEDIUM,
              "If true, write each error and the details of the failed operation and problematic record to the "
              "Connect application log. This is 'false' by default, so that only errors that are not tolerated "
              "are reported.",
              group=ERROR_GROUP, order=4, width="SHORT", display_name="Log Errors"),
    ConfigKey(LOG_INCLUDE_MESSAGES, ConfigType.BOOLEAN, False, Importance.MEDIUM,
              "Whether to include in the log the Connect record that resulted in a failure. For sink records, the "
              "topic, partition, offset, and timestamp will be logged. For source records, the key and value (and "
              "their schemas), all headers, and the timestamp, Kafka topic, Kafka partition, source partition, and "
              "source offset will be logged. This is 'false' by default, which will prevent record keys, values, "
              "and headers from being written to log files.",
              group=ERROR_GROUP, order=5, width="SHORT", display_name="Log Error Details"),
])
"""ConnectorConfig's error-handling keys: every connector has them."""

DLQ_KEYS = ConfigDef([
    ConfigKey(DLQ_TOPIC_NAME, ConfigType.STRING, "", Importance.MEDIUM,
              "The name of the topic to be used as the dead letter queue (DLQ) for messages that result in an "
              "error when processed by this sink connector, or its transformations or converters. The topic name "
              "is blank by default, which means that no messages are to be recorded in the DLQ.",
              group=ERROR_GROUP, order=6, width="MEDIUM", display_name="Dead Letter Queue Topic Name"),
    ConfigKey(DLQ_REPLICATION_FACTOR, ConfigType.SHORT, DLQ_REPLICATION_FACTOR_DEFAULT, Importance.MEDIUM,
              "Replication factor used to create the dead letter queue topic when it doesn't already exist.",
              group=ERROR_GROUP, order=7, width="MEDIUM", display_name="Dead Letter Queue Topic Replication Factor",
              validator=_replication_factor),
    ConfigKey(DLQ_CONTEXT_HEADERS_ENABLE, ConfigType.BOOLEAN, False, Importance.MEDIUM,
              "If true, add headers containing error context to the messages written to the dead letter queue. To "
              "avoid clashing with headers from the original record, all error context header keys, all error "
              "context header keys will start with <code>__connect.errors.</code>",
              group=ERROR_GROUP, order=8, width="MEDIUM", display_name="Enable Error Context Headers"),
])
"""SinkConnectorConfig's dead letter queue keys: sink connectors only."""

SINK_ERROR_KEYS = ERROR_KEYS.merge(DLQ_KEYS)
"""Both: the error group of a sink connector."""
