"""Runs one Connector instance on a thread of its own: start it, turn its work into task configs, stop it.

Threading invariant (the worker's whole rule is in pyconnect/runtime/worker.py):
- Every call into the plugin (validate, initialize, start, task_configs, stop) runs on the runner's own thread,
  `connector-<name>`. The worker's loop only records what it wants (`start`, `set_target_state`,
  `refresh_task_configs`, `stop`) and returns at once, so a connector that blocks (an unreachable cluster, a
  plugin that hangs) delays nothing but itself.
- The runner's thread applies the newest wish, never a queue of them: wishes do not pile up behind a call that
  blocks, and after it returns the thread goes straight to what is wanted now.
- Once stop is asked the runner writes nothing more (no task configs, no states): its assignment may be someone
  else's by then. The worker gives the plugin's stop STOP_TIMEOUT_S, as Connect's Worker gives a connector's
  (`CONNECTOR_GRACEFUL_SHUTDOWN_TIMEOUT_MS`); a runner still busy then is abandoned (a daemon thread, it ends with
  the process or whenever the plugin returns).
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable, Mapping

from pyconnect.api.batch import BatchTask
from pyconnect.api.connector import Connector, OffsetStorageReader
from pyconnect.api.sink import SinkConnector
from pyconnect.api.states import State, TargetState
from pyconnect.config.providers import resolve_config, restore_placeholders
from pyconnect.logging_context import context_thread
from pyconnect.plugins import PluginRegistry
from pyconnect.runtime.connector_config import common_errors
from pyconnect.runtime.metrics.worker_metrics import TaskMetricsRegistry
from pyconnect.runtime.tasks_max import check_task_count, max_tasks
from pyconnect.storage.config_store import ConfigStore

log = logging.getLogger(__name__)

STOP_TIMEOUT_S = 5.0  # Connect's Worker.CONNECTOR_GRACEFUL_SHUTDOWN_TIMEOUT_MS


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
    """Owner-side lifecycle of one connector (see the module's threading invariant)."""

    def __init__(self, name: str, config: Mapping[str, str], plugins: PluginRegistry, configs: ConfigStore,
                 report: Callable[[State, str | None], None], offset_reader: OffsetStorageReader | None = None
                 ) -> None:
        self.name = name
        self.config = dict(config)
        self._plugins = plugins
        self._configs = configs
        self._report = report
        self._offset_reader = offset_reader
        self._connector: Connector | None = None  # the runner's thread only
        self.state: State = State.UNASSIGNED
        self.reconfigure_requested = threading.Event()
        self.metrics = TaskMetricsRegistry()  # what the connector registers; its worker's collector reads it
        self._wake = threading.Event()
        self._target: TargetState | None = None  # the newest wish
        self._refresh = False
        self._error: BaseException | None = None
        self.stop_asked: float | None = None  # monotonic time of the first stop()
        self._thread = context_thread(self._run, f"connector-{name}")

    # ConnectorContext (called from any thread, the plugin's own included) ----------------------

    def request_task_reconfiguration(self) -> None:
        self.reconfigure_requested.set()

    def raise_error(self, error: BaseException) -> None:
        self._error = error
        self._wake.set()

    @property
    def offset_storage_reader(self) -> OffsetStorageReader:
        if self._offset_reader is None:
            raise RuntimeError("this runtime gives the connector no offset reader")
        return self._offset_reader

    # what the worker asks (returns at once) ---------------------------------------------------

    def start(self, target_state: TargetState) -> None:
        self._target = target_state
        self._wake.set()
        self._thread.start()

    def set_target_state(self, target_state: TargetState) -> None:
        if target_state != self._target:
            self._target = target_state
            self._wake.set()

    def refresh_task_configs(self) -> None:
        """Ask the connector for task configs (on its thread) and publish them if they changed."""
        self._refresh = True
        self._wake.set()

    def stop(self) -> None:
        if self.stop_asked is None:
            self.stop_asked = time.monotonic()
        self._wake.set()

    def join(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the runner's thread to end; False if it is still busy."""
        if self._thread.ident is None:  # never started
            return True
        self._thread.join(max(0.0, timeout))
        return not self._thread.is_alive()

    def done(self) -> bool:
        """True once the runner's thread has ended (or never started)."""
        return self._thread.ident is None or not self._thread.is_alive()

    # the runner's thread ----------------------------------------------------------------------

    def _run(self) -> None:
        applied: TargetState | None = None
        while True:
            self._wake.wait()
            self._wake.clear()
            if self.stop_asked is not None:
                self._close()
                return
            if self._error is not None:
                error, self._error = self._error, None
                self._fail(error)
            target = self._target
            if target is not None and target != applied:
                applied = target
                self._apply(target)
            if self._refresh:
                self._refresh = False
                self._refresh_now()

    def _apply(self, target: TargetState) -> None:
        if self.state == State.FAILED:
            return  # a restart (a new runner) is what brings a failed connector back
        if target == TargetState.STOPPED:
            self._close()
            self._set(State.STOPPED)
            self._ensure_task_configs([])
        elif self._connector is None:
            self._start_plugin(target)
        else:
            self._set(State.PAUSED if target == TargetState.PAUSED else State.RUNNING)

    def _start_plugin(self, target: TargetState) -> None:
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
        except Exception as exc:
            self._fail(exc)
            return
        self._refresh_now()
        if self.state != State.FAILED:  # refreshing may fail it (more task configs than tasks.max, say)
            self._set(State.PAUSED if target == TargetState.PAUSED else State.RUNNING)

    def _refresh_now(self) -> None:
        self.reconfigure_requested.clear()
        connector = self._connector
        if connector is None or self.state == State.FAILED:
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
        if self.stop_asked is not None:
            return  # stopped meanwhile: the connector may be another worker's now
        current = self._configs.snapshot().task_configs.get(self.name)
        if current != configs and (current is not None or configs):
            self._configs.put_task_configs(self.name, configs)

    def _close(self) -> None:
        connector, self._connector = self._connector, None
        self.metrics.close()  # a connector's series exist while it runs
        if connector is not None:
            try:
                connector.stop()
            except Exception:
                log.exception("[%s] error while stopping the connector", self.name)

    def _fail(self, exc: BaseException) -> None:
        if self.stop_asked is None:
            log.error("[%s] connector failed: %s", self.name, exc)
        self._close()
        self.state = State.FAILED
        if self.stop_asked is None:
            self._report(State.FAILED, "".join(traceback.format_exception(exc)))

    def _set(self, state: State) -> None:
        if state != self.state:
            self.state = state
            if self.stop_asked is None:
                self._report(state, None)
