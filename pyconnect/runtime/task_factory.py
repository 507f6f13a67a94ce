"""Builds the runner of one task from its configs: the connector, never the task config, says what runs
it (`Connector.task_class_for`), and each kind of task gets its runner — a source task its producer and
offset stores, a batch task its offset writer, a sink task its consumer group and converters."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Protocol

from pyconnect.api.batch import BatchTask
from pyconnect.api.connector import SourceTask
from pyconnect.api.sink import SinkTask
from pyconnect.api.states import State
from pyconnect.api.task_id import TaskId
from pyconnect.config.providers import resolve_config
from pyconnect.config.worker import WorkerConfig
from pyconnect.kafka.admin import Admin
from pyconnect.kafka.config import to_librdkafka
from pyconnect.plugins import PluginRegistry
from pyconnect.runtime.client_overrides import task_overrides
from pyconnect.runtime.connector_runner import connector_instance
from pyconnect.runtime.errors import (
    ErrorHandlingMetrics,
    ErrorSettings,
    ToleranceOperator,
    ToleranceType,
    source_task_reporters,
)
from pyconnect.runtime.sink.conversion import SinkRecordConversion
from pyconnect.runtime.sink.runner import SinkTaskRunner
from pyconnect.runtime.sink.setup import SinkSetup
from pyconnect.runtime.source.batch_runner import BatchTaskRunner
from pyconnect.runtime.source.fencing import TaskPreflight
from pyconnect.runtime.source.runner import RunnerSettings, SourceTaskRunner
from pyconnect.runtime.source.task_setup import TaskSetup
from pyconnect.runtime.source.topic_creation import TopicCreation, uses_topic_creation
from pyconnect.runtime.tasks_max import check_task_count
from pyconnect.storage.config_store import ConfigSnapshot
from pyconnect.storage.offset_store import OffsetStore
from pyconnect.transforms.connector_config import TRANSFORMS, aliases, build_chain

log = logging.getLogger(__name__)

Report = Callable[..., None]


class TaskRunner(Protocol):
    """What the worker does with a running task, whatever its kind."""

    id: str
    state: State

    def start(self, paused: bool = False) -> None: ...

    def stop(self) -> None: ...

    def join(self, timeout: float) -> bool: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...


class TaskFactory:
    """Creates task runners for one worker."""

    def __init__(self, config: WorkerConfig, plugins: PluginRegistry, settings: RunnerSettings, setup: TaskSetup,
                 offsets: OffsetStore, snapshot: Callable[[], ConfigSnapshot], owns: Callable[[TaskId], bool]) -> None:
        self._config, self._plugins, self._settings, self._setup = config, plugins, settings, setup
        self._offsets, self._snapshot, self._owns = offsets, snapshot, owns
        self._sinks = SinkSetup(config, settings.flush_interval, settings.shutdown_timeout)

    def create(self, task_id: TaskId, task_config: Mapping[str, str], connector_config: Mapping[str, str],
               report: Report, on_topic: Callable[[str], None] | None) -> TaskRunner:
        """The runner of `task_config` (placeholders already resolved); raises if it cannot be built."""
        connector = connector_instance(self._plugins, connector_config)
        task_class = connector.task_class_for(task_config)
        if not issubclass(task_class, BatchTask):
            # As Connect's Worker.startTask: task configs written before tasks.max was lowered (or before an
            # upgrade to enforcement) fail their tasks at start; batch tasks do not count (tasks_max.py).
            published = self._snapshot().task_configs.get(task_id.connector, [])
            check_task_count(task_id.connector, connector_config,
                             sum(1 for c in published if not issubclass(connector.task_class_for(c), BatchTask)))
        if issubclass(task_class, BatchTask):
            return BatchTaskRunner(task_id.connector, task_id.task, task_class(), task_config, self._offsets, report,
                                   self._settings.flush_timeout + 25)
        if issubclass(task_class, SinkTask):
            return self._sink_runner(task_id, task_class(), task_config, connector_config, report, on_topic)
        return self._source_runner(task_id, task_class(), task_config, connector_config, report, on_topic)

    def _source_runner(self, task_id: TaskId, task: SourceTask, task_config: Mapping[str, str],
                       connector_config: Mapping[str, str], report: Report,
                       on_topic: Callable[[str], None] | None) -> SourceTaskRunner:
        setup = self._setup
        settings = setup.settings(connector_config)
        stores = setup.offset_stores(settings, connector_config)
        preflight = None
        if self._config.settings.exactly_once:
            settings = setup.transactional(settings, task_id, connector_config, stores,
                                           setup.primary_topic(connector_config, stores))
            preflight = TaskPreflight(task_id, self._snapshot, self._owns, settings.flush_timeout + 55)
        chain = build_chain(resolve_config(connector_config)) if aliases(connector_config, TRANSFORMS) else None
        return SourceTaskRunner(task_id.connector, task_id.task, task, task_config, stores, settings, report,
                                on_topic, preflight, chain, self._source_errors(task_id, connector_config),
                                self._converter_names(connector_config),
                                self._topic_creation(task_id, resolve_config(connector_config)))

    def _topic_creation(self, task_id: TaskId, connector_config: Mapping[str, str]) -> Callable[[str], None] | None:
        """The task's topic creation (KIP-158), when the worker allows it and the connector asks for it."""
        if not uses_topic_creation(connector_config):
            return None
        if not self._config.values.get("topic.creation.enable", True):
            log.warning("[%s] the connector's topic.creation.* settings are not used: the worker has "
                        "topic.creation.enable=false", task_id)
            return None

        def admin() -> Admin:  # made on the task's thread, at its first new topic
            conf = {**self._config.client_config("admin", "admin."),
                    **to_librdkafka(task_overrides(self._config, connector_config, "admin"), "admin")}
            return Admin(conf)
        return TopicCreation(connector_config, admin).ensure

    @staticmethod
    def _source_errors(task_id: TaskId, connector_config: Mapping[str, str]) -> ToleranceOperator | None:
        """The task's error handling, when its config asks for any (errors.tolerance=all, retries, the
        error log); without, a failing transform or converter fails the task, as under Connect's defaults."""
        settings = ErrorSettings.from_config(connector_config)
        if settings.tolerance is ToleranceType.NONE and settings.retry_timeout_ms == 0 and not settings.log_enable:
            return None
        metrics = ErrorHandlingMetrics()
        return ToleranceOperator(settings, metrics, source_task_reporters(task_id, settings, metrics))

    def _converter_names(self, connector_config: Mapping[str, str]) -> tuple[str, str]:
        worker = self._config.settings
        return (connector_config.get("key.converter") or worker.key_converter,
                connector_config.get("value.converter") or worker.value_converter)

    def _sink_runner(self, task_id: TaskId, task: SinkTask, task_config: Mapping[str, str],
                     connector_config: Mapping[str, str], report: Report,
                     on_topic: Callable[[str], None] | None) -> SinkTaskRunner:
        resolved, sinks = resolve_config(connector_config), self._sinks
        settings = sinks.settings(task_id.connector, task_id.task, resolved)
        sinks.conversion(resolved, ToleranceOperator(ErrorSettings())).operator.close()  # bad converters fail here

        def conversion() -> SinkRecordConversion:  # on the task's thread: it may create the DLQ topic
            return sinks.conversion(resolved, sinks.operator(task_id, resolved))
        return SinkTaskRunner(task_id.connector, task_id.task, task, task_config, settings, conversion, report,
                              on_topic)


class FailedTask:
    """Placeholder for a task that could not even be created (its FAILED status is written)."""

    def __init__(self, task_id: TaskId) -> None:
        self.id = str(task_id)
        self.state = State.FAILED

    def start(self, paused: bool = False) -> None:
        return None

    def stop(self) -> None:
        return None

    def join(self, timeout: float) -> bool:
        return True

    def pause(self) -> None:
        return None

    def resume(self) -> None:
        return None
