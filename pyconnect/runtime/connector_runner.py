"""Runs one Connector instance: start it, turn its work into task configs, stop it."""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable, Mapping

from pyconnect.api.batch import BatchTask
from pyconnect.api.connector import Connector, OffsetStorageReader
from pyconnect.api.sink import SinkConnector
from pyconnect.api.states import State, TargetState
from pyconnect.config.providers import resolve_config, restore_placeholders
from pyconnect.plugins import PluginRegistry
from pyconnect.runtime.connector_config import common_errors
from pyconnect.runtime.metrics.worker_metrics import TaskMetricsRegistry
from pyconnect.runtime.tasks_max import check_task_count, max_tasks
from pyconnect.storage.config_store import ConfigStore

log = logging.getLogger(__name__)


def connector_instance(plugins: PluginRegistry, config: Mapping[str, str]) -> Connector:
    """Instantiate the plugin named by `connector.class` (raises with a readable message)."""
    class_name = config.get("connector.class")
    if not class_name:
        raise ValueError(f"Connector config {dict(config)} contains no connector type")
    return plugins.resolve(class_name).cls()


def validation_errors(connector: Connector, config: Mapping[str, str]) -> list[str]:
    """The plugin's errors and those of the common keys (converters, transforms, error handling)."""
    own = [f"{name}: {msg}" for name, value in connector.validate(config).items() for msg in value.errors]
    return own + common_errors(connector.config_def(), config, isinstance(connector, SinkConnector))


class ConnectorRunner:
    """Owner-side lifecycle of one connector."""

    def __init__(self, name: str, config: Mapping[str, str], plugins: PluginRegistry, configs: ConfigStore,
                 report: Callable[[State, str | None], None], offset_reader: OffsetStorageReader | None = None
                 ) -> None:
        self.name = name
        self.config = dict(config)
        self._plugins = plugins
        self._configs = configs
        self._report = report
        self._offset_reader = offset_reader
        self._connector: Connector | None = None
        self.state: State = State.UNASSIGNED
        self.reconfigure_requested = threading.Event()
        self.metrics = TaskMetricsRegistry()  # what the connector registers; its worker's collector reads it

    # ConnectorContext --------------------------------------------------------------------------

    def request_task_reconfiguration(self) -> None:
        self.reconfigure_requested.set()

    def raise_error(self, error: BaseException) -> None:
        self._fail(error)

    @property
    def offset_storage_reader(self) -> OffsetStorageReader:
        if self._offset_reader is None:
            raise RuntimeError("this runtime gives the connector no offset reader")
        return self._offset_reader

    # lifecycle -------------------------------------------------------------------------------

    def start(self, target_state: TargetState) -> None:
        if target_state == TargetState.STOPPED:
            self._set(State.STOPPED)
            self._ensure_task_configs([])
            return
        try:
            resolved = resolve_config(self.config)  # ${env:..}/${file:..} only now, never stored
            connector = connector_instance(self._plugins, resolved)
            errors = validation_errors(connector, resolved)
            if errors:
                raise ValueError("Connector configuration is invalid and contains the following "
                                 f"{len(errors)} error(s):\n" + "\n".join(errors))
            connector.initialize(self)
            connector.start(resolved)
            self._connector = connector
            self.refresh_task_configs()
        except Exception as exc:
            self._fail(exc)
            return
        if self.state == State.FAILED:  # refresh_task_configs failed it (more task configs than tasks.max, say)
            return
        self._set(State.PAUSED if target_state == TargetState.PAUSED else State.RUNNING)

    def set_target_state(self, target_state: TargetState) -> None:
        if self.state == State.FAILED:
            return
        if target_state == TargetState.STOPPED:
            self.stop()
            self.start(TargetState.STOPPED)
        elif self._connector is None:
            self.start(target_state)
        else:
            self._set(State.PAUSED if target_state == TargetState.PAUSED else State.RUNNING)

    def refresh_task_configs(self) -> None:
        """Ask the connector for task configs and publish them if they changed."""
        self.reconfigure_requested.clear()
        connector = self._connector
        if connector is None:
            return
        try:
            configs = connector.task_configs(max_tasks(self.config))
            classes = [connector.task_class_for(c) for c in configs]
            # Batch tasks (a bulk copy next to the source tasks) do not count against tasks.max.
            check_task_count(self.name, self.config, sum(1 for cls in classes if not issubclass(cls, BatchTask)))
            # `task.class` is written after the connector's keys, as Connect's Worker writes it: it
            # records what runs the task, for readers of the config topic (Java's included).
            self._ensure_task_configs([restore_placeholders({**c, "task.class": f"{cls.__module__}:{cls.__qualname__}"},
                                                            self.config)
                                       for c, cls in zip(configs, classes, strict=True)])
        except Exception as exc:
            self._fail(exc)

    def _ensure_task_configs(self, configs: list[dict[str, str]]) -> None:
        current = self._configs.snapshot().task_configs.get(self.name)
        if current != configs and (current is not None or configs):
            self._configs.put_task_configs(self.name, configs)

    def stop(self) -> None:
        connector, self._connector = self._connector, None
        self.metrics.close()  # a connector's series exist while it runs
        if connector is not None:
            try:
                connector.stop()
            except Exception:
                log.exception("[%s] error while stopping the connector", self.name)

    def _fail(self, exc: BaseException) -> None:
        log.error("[%s] connector failed: %s", self.name, exc)
        self.stop()
        self.state = State.FAILED
        self._report(State.FAILED, "".join(traceback.format_exception(exc)))

    def _set(self, state: State) -> None:
        if state != self.state:
            self.state = state
            self._report(state, None)
