"""The plugin SPI: connectors, tasks, records and config definitions."""

from pyconnect.api.batch import BatchTask, BatchTaskContext
from pyconnect.api.config import (
    ConfigDef,
    ConfigException,
    ConfigKey,
    ConfigType,
    ConfigValue,
    Importance,
)
from pyconnect.api.connector import (
    Connector,
    ConnectorContext,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    MessageRunTask,
    OffsetStorageReader,
    SourceConnector,
    SourceTask,
    SourceTaskContext,
)
from pyconnect.api.metrics import MetricSample, MetricsProvider, TaskMetrics
from pyconnect.api.records import Header, MessageRun, SourceOffset, SourcePartition, SourceRecord

__all__ = [
    "BatchTask", "BatchTaskContext",
    "ConfigDef", "ConfigException", "ConfigKey", "ConfigType", "ConfigValue", "Importance",
    "Connector", "ConnectorContext", "ConnectorTransactionBoundaries", "ExactlyOnceSupport",
    "MessageRunTask", "OffsetStorageReader", "SourceConnector", "SourceTask",
    "SourceTaskContext", "Header", "MessageRun", "SourceOffset", "SourcePartition", "SourceRecord",
    "MetricSample", "MetricsProvider", "TaskMetrics",
]
