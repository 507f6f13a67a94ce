"""The connector/task SPI, shaped like Kafka Connect's.

A plugin is a `SourceConnector` subclass (the control plane: reads config, splits the work)
and a `SourceTask` subclass (the data plane: `poll()` returns records). The runtime owns all
Kafka I/O, offset commits and status reporting.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from pyconnect.api.config import ConfigDef, ConfigValue
from pyconnect.api.metrics import TaskMetrics
from pyconnect.api.plugin_version import plugin_version
from pyconnect.api.records import MessageRun, SourceOffset, SourcePartition, SourceRecord

if TYPE_CHECKING:  # batch.py and sink.py build on this module
    from pyconnect.api.batch import BatchTask
    from pyconnect.api.sink import SinkTask


class ConnectorContext(Protocol):
    """What a running connector may ask of the runtime."""

    def request_task_reconfiguration(self) -> None:
        """Ask the runtime to call `task_configs()` again (e.g. the set of inputs changed)."""

    def raise_error(self, error: BaseException) -> None:
        """Mark the connector FAILED with this error."""

    @property
    def offset_storage_reader(self) -> OffsetStorageReader:
        """Reader of this connector's committed source offsets (as Connect's SourceConnectorContext)."""

    @property
    def metrics(self) -> TaskMetrics:
        """Where the connector registers the metrics it exposes (read while the connector runs)."""


class OffsetStorageReader(Protocol):
    """Reads committed source offsets of this connector."""

    def offset(self, partition: SourcePartition) -> dict[str, Any] | None:
        """The last committed offset of one source partition, or None."""

    def offsets(self, partitions: Sequence[SourcePartition]) -> dict[str, dict[str, Any] | None]:
        """Committed offsets keyed by the partition's canonical JSON text."""


class SourceTaskContext(Protocol):
    """What a running source task may ask of the runtime."""

    @property
    def offset_storage_reader(self) -> OffsetStorageReader:
        """Reader of this connector's committed offsets."""

    @property
    def configs(self) -> Mapping[str, str]:
        """The task's configuration."""

    @property
    def metrics(self) -> TaskMetrics:
        """Where the task registers the metrics it exposes (read while the task runs)."""

    def keep_polling(self) -> bool:
        """For a poll that waits long for data (MirrorSourceTask waits up to `consumer.poll.timeout.ms`):
        call it between waits of at most ~100 ms. The runtime meanwhile serves the task's producer (so
        `commit_record`/`commit_run` and `commit` may be called from inside the poll: the task must be
        consistent whenever it calls this) and makes the offset commit that is due. Returns False when the
        poll should return now (the task is asked to stop or pause, or a delivery failed)."""


class Connector(ABC):
    """Base of every connector plugin."""

    context: ConnectorContext | None = None

    def initialize(self, context: ConnectorContext) -> None:
        self.context = context

    def version(self) -> str:
        """The version of the distribution providing this class (pyconnect.api.plugin_version)."""
        return plugin_version(type(self))

    @abstractmethod
    def config_def(self) -> ConfigDef:
        """The keys this connector accepts (drives validation and plugin description)."""

    @abstractmethod
    def start(self, config: Mapping[str, str]) -> None:
        """Start with a validated configuration."""

    @abstractmethod
    def task_class(self) -> type[SourceTask] | type[SinkTask]:
        """The task implementation (of every task, unless `task_class_for` says otherwise)."""

    def task_class_for(self, task_config: Mapping[str, str]) -> type[SourceTask] | type[BatchTask] | type[SinkTask]:
        """The class that runs one of this connector's task configs: `task_class()` unless the
        connector hands out another kind for some tasks (e.g. a `BatchTask` for a bulk copy). The
        runtime asks this, never the config, so a user's config cannot change what a task runs."""
        return self.task_class()

    @abstractmethod
    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """Split the work into at most `max_tasks` task configurations."""

    @abstractmethod
    def stop(self) -> None:
        """Release resources; called once."""

    def validate(self, config: Mapping[str, str]) -> dict[str, ConfigValue]:
        """Per-key validation; override to add cross-key checks."""
        return self.config_def().validate_all(config)

    def alter_offsets(self, config: Mapping[str, str],
                      offsets: Mapping[str, tuple[SourcePartition, SourceOffset | None]]) -> bool:
        """Check user-supplied offsets before they are written; raise ValueError to reject."""
        return False


class ExactlyOnceSupport(StrEnum):
    """Connect's ExactlyOnceSupport: whether a source connector can run exactly once as configured."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class ConnectorTransactionBoundaries(StrEnum):
    """Connect's ConnectorTransactionBoundaries: whether a connector can define its own transactions."""

    SUPPORTED = "SUPPORTED"
    UNSUPPORTED = "UNSUPPORTED"


class SourceConnector(Connector, ABC):
    """A connector whose tasks produce records into Kafka."""

    connector_type = "source"

    def exactly_once_support(self, config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Whether this connector, so configured, can run with exactly-once support (KIP-618). None,
        the default, means "not known": `exactly.once.support=required` is then refused."""
        return None

    def can_define_transaction_boundaries(self, config: Mapping[str, str]) -> ConnectorTransactionBoundaries:
        """Whether `transaction.boundary=connector` can be used. No task of this runtime can yet define
        its own transactions, so the answer is UNSUPPORTED unless a connector says otherwise."""
        return ConnectorTransactionBoundaries.UNSUPPORTED


class SourceTask(ABC):
    """Produces records; `poll` is called in a loop on the task's own thread."""

    context: SourceTaskContext | None = None
    #: Set True when every record carries an explicit `partition` and all records of one source
    #: partition go to one target topic-partition (a mirror). The runtime then tracks
    #: acknowledgements in produce order, without a per-record object.
    ordered_partitions: bool = False

    def initialize(self, context: SourceTaskContext) -> None:
        self.context = context

    def version(self) -> str:
        """The version of the distribution providing this class (pyconnect.api.plugin_version)."""
        return plugin_version(type(self))

    @abstractmethod
    def start(self, config: Mapping[str, str]) -> None:
        """Start with the task configuration produced by the connector."""

    @abstractmethod
    def poll(self) -> list[SourceRecord] | None:
        """Return the next batch (possibly empty or None); should block at most ~1 s, or longer only
        in waits of ~100 ms separated by `context.keep_polling()` calls."""

    @abstractmethod
    def stop(self) -> None:
        """Signal the task to stop; may be called from another thread while poll() runs."""

    def commit(self) -> None:  # noqa: B027 - optional hook
        """Called after the runtime committed offsets (a flush cycle)."""

    def commit_record(self, record: SourceRecord, partition: int, offset: int) -> None:  # noqa: B027
        """Called when Kafka acknowledged one record (where it landed); optional hook."""


class MessageRunTask(SourceTask, ABC):
    """A source task that copies Kafka messages as they are (a mirror).

    The runtime calls `poll_runs` instead of `poll`, produces each run in order with one delivery
    callback for its first and one for its last message (no Python object or call per record), and
    reports each acknowledged run to `commit_run`. `poll` gives the same records one by one, for
    callers that want `SourceRecord`s (their acknowledgements then reach `commit_record`).
    """

    ordered_partitions = True

    @abstractmethod
    def poll_runs(self) -> list[MessageRun] | None:
        """Return the next runs (possibly empty or None); blocks as `poll` may."""

    def commit_run(self, run: MessageRun, first_offset: int, last_offset: int) -> None:  # noqa: B027
        """Kafka acknowledged the whole run: its first message is at `first_offset` of the target
        partition and its last at `last_offset`. `last_offset - first_offset == len(messages) - 1`
        unless another producer wrote to that partition in between. Optional hook."""

    def poll(self) -> list[SourceRecord] | None:
        runs = self.poll_runs()
        if runs is None:
            return None
        return [SourceRecord(run.source_partition, {"offset": m.offset()}, run.topic, m.value(), m.key(),
                             run.partition, m.timestamp()[1], m.headers())
                for run in runs for m in run.messages]
