"""The worker: internal stores + membership + the loop that runs the leader's duties
(pyconnect.runtime.leader_duties) while it leads, and reconciles its runners with its share of the assignment.
Each runner gets a lease and a status reporter bound to the assignment it started under
(pyconnect.runtime.cluster.lease).

Isolation: which threads may block on what. Nothing a connector or task does (an unreachable or slow cluster, a
plugin that hangs in start, stop or poll, a flood of client errors) may delay the worker's membership, its loop,
the REST API or any other connector or task.
- `membership-heartbeat-<id>` writes the worker's heartbeat, `membership-reader-<id>` reads the membership topic
  to its end (cluster/membership.py). They block on the worker's own cluster only, each call bounded; no plugin
  code runs on them, so no plugin can make its worker look dead or out of sync.
- `worker-loop` runs the leader's duties and the reconcile. It blocks on the worker's own cluster (its internal
  topics) only, never on a plugin: a connector's calls run on `connector-<name>` (connector_runner.py), a task's on
  `task-<connector>-<n>` (task_thread.py), and the loop never waits for a runner to stop (retiring.py), but at
  shutdown, within one budget.
- `connector-<name>` and `task-...` threads run plugin code: they may block on anything, and only their own unit
  waits for them.
- REST requests (uvicorn's threads) read the internal topics and write the config topic; they call a plugin only
  to validate a config.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable

from pyconnect.api.states import State, TargetState
from pyconnect.api.task_id import TaskId
from pyconnect.config.providers import resolve_config
from pyconnect.config.worker import WorkerConfig
from pyconnect.converters import converter_for, header_converter_for, schema_serializer_for, side_settings
from pyconnect.kafka.native_memory import release
from pyconnect.logging_context import context_thread
from pyconnect.logging_context import scope as log_scope
from pyconnect.plugins import PluginRegistry, registry
from pyconnect.runtime.auto_restart import AutoRestarter
from pyconnect.runtime.cluster.assignment import WorkerAssignment
from pyconnect.runtime.cluster.lease import StatusReport, assignment_lease, status_reporter
from pyconnect.runtime.cluster.membership import Assignment, Membership
from pyconnect.runtime.connector_runner import STOP_TIMEOUT_S, ConnectorRunner
from pyconnect.runtime.internal_topics import InternalTopics, LogFactory, kafka_log_factory, own_offset_store
from pyconnect.runtime.leader_duties import ExactlyOnceFencing, LeaderDuties
from pyconnect.runtime.logs.worker_scope import WorkerScope
from pyconnect.runtime.metrics import endpoint as metrics
from pyconnect.runtime.metrics.history import MetricHistory
from pyconnect.runtime.metrics.worker_metrics import WorkerCollector
from pyconnect.runtime.retiring import Retiring
from pyconnect.runtime.source.runner import ConnectorOffsetReader, RunnerSettings
from pyconnect.runtime.source.task_setup import TaskSetup
from pyconnect.runtime.task_factory import FailedTask, TaskFactory, TaskRunner
from pyconnect.runtime.task_thread import TaskThread
from pyconnect.storage.config_store import ConfigSnapshot, ConfigStore
from pyconnect.storage.offset_store import OffsetStore
from pyconnect.storage.status_store import StatusStore

log = logging.getLogger(__name__)

class Worker:
    """One member of a Connect cluster."""

    def __init__(self, config: WorkerConfig, plugins: PluginRegistry = registry,
                 log_factory: LogFactory | None = None,
                 leader_duty: Callable[[Worker], None] | None = None, scope: WorkerScope | None = None) -> None:
        self.config = config
        self.scope = scope or WorkerScope()  # a flow's, in dedicated mode: its logger levels and metric labels
        self.log_levels = self.scope.log_levels()
        self.leader_duty = leader_duty  # e.g. MirrorMaker's: keep the flow's connector configs as the file says
        self.plugins = plugins
        self.worker_id = config.worker_id
        self.url = config.advertised_url
        factory, self.cluster_id = (log_factory, "") if log_factory else kafka_log_factory(config)
        settings = config.settings
        self.topics = InternalTopics(settings.config_storage_topic, settings.offset_storage_topic,
                                     settings.status_storage_topic, config.membership_topic)
        self.configs = ConfigStore(factory(self.topics.config, 1))
        self.offsets = OffsetStore(factory(self.topics.offsets, settings.offset_storage_partitions))
        self.statuses = StatusStore(factory(self.topics.status, settings.status_storage_partitions))
        self._wake = threading.Event()
        self.membership = Membership(factory(self.topics.membership, 1), self.worker_id, self.url,
                                     settings.session_timeout_ms, settings.heartbeat_interval_ms,
                                     on_change=self._wake.set)
        self.configs.add_listener(self._wake.set)
        self._settings = RunnerSettings(
            producer_conf=config.task_client_config("producer"),
            key_converter=converter_for(settings.key_converter, side_settings(config.raw, "key"), True),
            value_converter=converter_for(settings.value_converter, side_settings(config.raw, "value"), False),
            schema_converters=(
                schema_serializer_for(settings.key_converter, side_settings(config.raw, "key"), True),
                schema_serializer_for(settings.value_converter, side_settings(config.raw, "value"), False)),
            header_converter=header_converter_for(settings.header_converter, side_settings(config.raw, "header")),
            flush_interval=settings.offset_flush_interval_ms / 1000.0,
            flush_timeout=settings.offset_flush_timeout_ms / 1000.0,
            shutdown_timeout=settings.task_shutdown_graceful_timeout_ms / 1000.0,
        )
        self._setup = TaskSetup(config, self._settings, self.offsets, self.topics.offsets,
                                lambda topic, producer, committed: own_offset_store(config, topic, producer, committed))
        self._factory = TaskFactory(config, plugins, self._settings, self._setup, self.offsets, self.configs.snapshot,
                                    self._owns)
        self.connectors: dict[str, ConnectorRunner] = {}
        self.tasks: dict[TaskId, TaskRunner] = {}
        self._retiring_connectors: Retiring[str] = Retiring("connector")
        self._retiring_tasks: Retiring[TaskId] = Retiring("task")
        self._task_configs: dict[TaskId, dict[str, str]] = {}
        self._restarts_seen: dict[str, int] = {}
        self._task_restarts: set[TaskId] = set()
        self._lock = threading.Lock()
        self._logger_levels: dict[str, str] = {}
        self._collector = WorkerCollector(self, self.scope.labels)
        self.history = MetricHistory(self, self.scope.labels, config.settings.console_sample_interval_ms / 1000.0)
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._generation = 0
        self._lapses_seen = 0
        self.auto_restarter = AutoRestarter(self.configs, self.statuses, self.membership.clock, config.values)
        fencing = (ExactlyOnceFencing(config.group_id, self._settings.producer_conf, self._settings.flush_timeout + 25)
                   if settings.exactly_once else None)
        self._leader = LeaderDuties(self.membership, self.configs, self.auto_restarter, fencing, self._owner_duty)
        self._last_tick = time.monotonic()
        self.started = threading.Event()

    # lifecycle -------------------------------------------------------------------------------

    def start(self) -> None:
        with log_scope(self.scope.name):  # the threads started here inherit the worker's scope
            self._start()

    def stop(self) -> None:
        with log_scope(self.scope.name):
            self._stop()

    def _start(self) -> None:
        self.membership.start()  # first: WorkerIdInUse (another live process has this id) before anything runs
        self.configs.start()
        self.offsets.start()
        self.statuses.start()
        self._restarts_seen = {n: r.seq for n, r in self.configs.snapshot().restarts.items()}
        metrics.register(self._collector)
        self.history.start()
        if self.config.settings.metrics_prometheus_port:
            metrics.start_endpoint(self.config.settings.metrics_prometheus_port)
        self._thread = context_thread(self._loop, "worker-loop")
        self._thread.start()
        self.started.set()
        log.info("worker %s started (group %s)", self.worker_id, self.config.group_id)

    def _stop(self) -> None:
        # One budget for the whole stop, task.shutdown.graceful.timeout.ms (Connect's default 5 s), so that
        # a worker whose clusters are gone still ends before Kubernetes' kill (30 s after SIGTERM).
        deadline = time.monotonic() + self._settings.shutdown_timeout
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(_left(deadline))
        self._stop_tasks(list(self.tasks))
        for name in list(self.connectors):
            self._stop_connector(name)
        self._retiring_tasks.wait(deadline)
        self._retiring_connectors.wait(deadline)
        self.membership.stop(_left(deadline, 0.5))
        for store in (self.statuses, self.offsets, self.configs):
            store.stop(_left(deadline, 0.1))
        metrics.unregister(self._collector)
        self.history.stop()
        self.log_levels.close()
        log.info("worker %s stopped", self.worker_id)

    # main loop -------------------------------------------------------------------------------

    def _loop(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(0.25)
            self._wake.clear()
            self._last_tick = time.monotonic()
            if self._stopping.is_set():
                break
            try:
                self._after_lapse()
                self.membership.maybe_claim()
                if self.membership.is_leader():
                    self._leader.run()
                self._after_lapse()  # again: the membership's reader may have ended a lapse meanwhile
                self._reconcile()
            except Exception:
                log.exception("worker loop error")
                time.sleep(0.5)

    def _owner_duty(self) -> None:
        if self.leader_duty is not None:
            self.leader_duty(self)

    def _after_lapse(self) -> None:
        """A worker that was out of sync for a session timeout has been replaced: its tasks and
        connectors ran elsewhere, and exactly-once tasks were fenced. Like a Connect worker that lost
        its group membership, it stops everything and takes work again from the current assignment."""
        lapses = self.membership.lapses
        if lapses == self._lapses_seen:
            return
        self._lapses_seen = lapses
        log.warning("worker %s was out of sync with its cluster for a session timeout or more: stopping its "
                    "%d task(s) and %d connector(s), which may have run elsewhere meanwhile", self.worker_id,
                    len(self.tasks), len(self.connectors))
        self._stop_tasks(list(self.tasks))
        for name in list(self.connectors):
            self._stop_connector(name)

    def loop_alive(self, within: float = 30.0) -> bool:
        """False if the main loop has not come round for `within` seconds (a hung reconcile)."""
        return time.monotonic() - self._last_tick < within

    def my_assignment(self, assignment: Assignment | None = None) -> WorkerAssignment:
        """This worker's share of `assignment` (default: the newest accepted), nothing while self-fenced."""
        assignment = assignment or self.membership.assignment
        if assignment is None or not self.membership.in_sync() or self.membership.fenced is not None:
            return WorkerAssignment()  # self-fenced: we may have been replaced (or were: `fenced`)
        return assignment.of(self.worker_id)

    def _reconcile(self) -> None:
        snapshot = self.configs.snapshot()
        assignment = self.membership.assignment  # read once: `applied` below must name what was applied
        mine = self.my_assignment(assignment)
        self._generation = assignment.generation if assignment else self._generation
        self._handle_restarts(snapshot, mine)
        with self._lock:
            restarts, self._task_restarts = self._task_restarts, set()
        self._stop_tasks(sorted(restarts))
        for namespace, level in snapshot.logger_levels.items():
            if self._logger_levels.get(namespace) != level:
                self._logger_levels[namespace] = level
                self.log_levels.set_level(namespace, level)
        # Tasks to stop: no longer ours, connector gone/stopped, or config changed.
        stale = [t for t, runner in self.tasks.items()
                 if t not in mine.tasks or self._wanted_task_config(snapshot, t) != self._task_configs.get(t)]
        self._stop_tasks(stale)
        for name in [c for c in self.connectors if c not in mine.connectors or c not in snapshot.connectors]:
            self._stop_connector(name)
            if name not in snapshot.connectors:  # deleted: its statuses go too, as in Connect
                self.statuses.delete_connector(name, max(self.statuses.tasks(name), default=-1) + 1)
        self._reap()
        if assignment is not None and self._retiring_tasks.settled() and self._retiring_connectors.settled():
            # All outside our share has ended (or was abandoned): the leader may hand it on.
            self.membership.report_applied(assignment.generation)
        for name in sorted(mine.connectors):
            if name in snapshot.connectors:
                self._reconcile_connector(name, snapshot)
        for task_id in sorted(mine.tasks):
            task_config = self._wanted_task_config(snapshot, task_id)
            runner_t = self.tasks.get(task_id)
            if runner_t is None and task_config is not None and not self._retiring_tasks.holds(task_id):
                self._start_task(task_id, task_config, snapshot)
            elif runner_t is not None:
                if snapshot.target_state(task_id.connector) == TargetState.PAUSED:
                    runner_t.pause()
                else:
                    runner_t.resume()

    def _reconcile_connector(self, name: str, snapshot: ConfigSnapshot) -> None:
        runner = self.connectors.get(name)
        if runner is not None and runner.config != snapshot.connectors[name]:
            self._stop_connector(name)
            runner = None
        if runner is None:
            if not self._retiring_connectors.holds(name):  # its previous runner first ends (retiring.py)
                self._start_connector(name, snapshot)
            return
        runner.set_target_state(snapshot.target_state(name))
        # An inconsistent connector (its commit names task configs the log lacks) runs no
        # tasks until its owner writes them again, as Connect's leader does.
        if runner.reconfigure_requested.is_set() or name in snapshot.inconsistent:
            runner.refresh_task_configs()

    @staticmethod
    def _wanted_task_config(snapshot: ConfigSnapshot, task_id: TaskId) -> dict[str, str] | None:
        name, i = task_id.connector, task_id.task
        configs = snapshot.task_configs.get(name)
        if name not in snapshot.connectors or configs is None or snapshot.target_state(name) == TargetState.STOPPED:
            return None
        return configs[i] if i < len(configs) else None

    def _handle_restarts(self, snapshot: ConfigSnapshot, mine: WorkerAssignment) -> None:
        for name, request in snapshot.restarts.items():
            if self._restarts_seen.get(name, 0) >= request.seq:
                continue
            self._restarts_seen[name] = request.seq
            runner = self.connectors.get(name)
            if runner is not None and (not request.only_failed or runner.state == State.FAILED):
                self._stop_connector(name)
            if request.include_tasks:
                restart = [t for t, r in self.tasks.items() if t.connector == name
                           and (not request.only_failed or r.state == State.FAILED)]
                self._stop_tasks(restart)

    # connectors and tasks --------------------------------------------------------------------

    def _report(self, connector: str, task: int | None) -> StatusReport:
        # The generation of the assignment the runner was started under, not the worker's latest.
        return status_reporter(self.membership, self.statuses, self.worker_id, self._generation, connector, task)

    def _start_connector(self, name: str, snapshot: ConfigSnapshot) -> None:
        runner = ConnectorRunner(name, snapshot.connectors[name], self.plugins, self.configs,
                                 self._report(name, None), ConnectorOffsetReader(self.offsets, name))
        self.connectors[name] = runner
        log.info("[%s] starting connector", name)
        runner.start(snapshot.target_state(name))

    def _stop_connector(self, name: str) -> None:
        runner = self.connectors.pop(name, None)
        if runner is not None:
            log.info("[%s] stopping connector", name)
            self._retiring_connectors.add(name, runner, STOP_TIMEOUT_S)

    def _start_task(self, task_id: TaskId, task_config: dict[str, str], snapshot: ConfigSnapshot) -> None:
        name, index = task_id.connector, task_id.task
        report = self._report(name, index)
        self._task_configs[task_id] = task_config
        on_topic = ((lambda topic: self.statuses.put_topic(name, topic, index))
                    if self.config.settings.topic_tracking_enable else None)
        try:
            # Placeholders are resolved only in memory.
            runner = self._factory.create(task_id, resolve_config(task_config), snapshot.connectors[name], report,
                                          on_topic)
        except Exception as exc:
            report(State.FAILED, "".join(traceback.format_exception(exc)))
            self.tasks[task_id] = FailedTask(task_id)
            return
        if isinstance(runner, TaskThread):
            runner.lease = assignment_lease(self.membership)
        self.tasks[task_id] = runner
        log.info("[%s] starting task", task_id)
        runner.start(paused=snapshot.target_state(name) == TargetState.PAUSED)

    def restart_task(self, task_id: TaskId) -> bool:
        """Owner side of POST /connectors/{c}/tasks/{i}/restart: the worker loop stops the task and the
        next reconcile starts it afresh. Returns False if this worker does not run it."""
        if task_id not in self.tasks:
            return False
        with self._lock:
            self._task_restarts.add(task_id)
        self._wake.set()
        return True

    def _owns(self, task_id: TaskId) -> bool:
        return task_id in self.my_assignment().tasks

    def _stop_tasks(self, task_ids: list[TaskId]) -> None:
        """Tell the tasks to stop; they end on their own threads (retiring.py), within the graceful timeout."""
        for task_id in task_ids:
            self._task_configs.pop(task_id, None)
            runner = self.tasks.pop(task_id, None)
            if runner is not None:
                log.info("[%s] stopping task", runner.id)
                self._retiring_tasks.add(task_id, runner, self._settings.shutdown_timeout + 5)

    def _reap(self) -> None:
        self._retiring_connectors.reap()
        if self._retiring_tasks.reap() and not self._stopping.is_set():
            # Their clients went with the runners, which are cyclic: collect them now, and give the memory back.
            release()


def _left(deadline: float, at_least: float = 0.0) -> float:
    """Seconds left before `deadline` (at least `at_least`: a last short try even when it has passed)."""
    return max(at_least, deadline - time.monotonic())

