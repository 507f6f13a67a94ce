"""Dedicated MirrorMaker 2 mode: one herder (a worker cluster on the target) per flow of mm2.properties.

Each herder's leader writes the flow's three connector configs when they differ from what is stored
(MM2's MirrorHerder), so a changed file takes effect on restart. Several processes started with the
same file join the same herder groups and share the tasks. Unlike MM2's dedicated mode, the public
REST API is served: each flow under `/{source}/{target}` on the `listeners` address, and at `/` the
single flow's API, or with several flows `/` and `/health` for all of them (`rest.flows_root`).

Invariant: the REST API (its writes, the console's pause and stop buttons) is served beyond this machine
only when asked: with neither `--listeners`, nor `listeners`, nor `dedicated.mode.enable.internal.rest` in
the file, it listens on 127.0.0.1 alone (Java's dedicated MirrorMaker serves nothing by default).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

from connectors.mirror.maker_config import CONNECTORS, WORKER_PREFIXES, Flow, MirrorMakerConfig
from pyconnect.config.properties import Entry, Properties
from pyconnect.config.worker import WorkerConfig
from pyconnect.kafka.clients import KafkaClientError
from pyconnect.kafka.config import redact
from pyconnect.runtime.herder.herder import Herder
from pyconnect.runtime.logs.worker_scope import WorkerScope
from pyconnect.runtime.worker import Worker
from rest.app import create_app
from rest.flows_root import create_root_app
from rest.listener import bind_listeners
from rest.security import BasicAuth
from rest.server import RestServers

log = logging.getLogger(__name__)

# Where the REST API listens when nothing says: this machine only, on Connect's port.
LOOPBACK_LISTENER = "http://127.0.0.1:8083"
# Connect's own default (every interface): what `dedicated.mode.enable.internal.rest` asks for in Java.
WORKER_DEFAULT_LISTENER = "http://:8083"


class FlowHerder:
    """Leader duty of one flow's worker cluster: the connector configs follow the file, and a connector
    whose state the file sets (`<flow>.<connector>.state`) is given it once per process, as a REST
    pause/resume/stop would (a later REST call stands until the next start)."""

    def __init__(self, config: MirrorMakerConfig, flow: Flow) -> None:
        self.flow = flow
        # A connector the file turns off (replikafka.mirror_validation) is neither written nor kept.
        self.not_started = set(config.not_started.get(flow, {}))
        self.wanted = {name: config.connector_config(flow, name) for name in CONNECTORS if name not in self.not_started}
        self.states = {name: state for name in CONNECTORS if (state := config.connector_state(flow, name))}
        self._written: dict[str, Mapping[str, str]] = {}
        self._states_written: set[str] = set()

    def __call__(self, worker: Worker) -> None:
        snapshot = worker.configs.snapshot()
        for name in sorted(self.not_started & set(snapshot.connectors)):
            log.info("removing %s, stored by an earlier run: the file turns it off", name)  # the scope names the flow
            worker.configs.remove_connector(name)
        for name, config in self.wanted.items():
            state = self.states.get(name) if name not in self._states_written else None
            if state is not None and (name not in snapshot.connectors or snapshot.target_state(name) != state):
                log.info("[%s] %s: state %s from the file", self.flow, name, state)
                worker.configs.put_target_state(name, state, wait=False)  # before the config, as Connect writes it
            self._states_written.add(name)
            if snapshot.connectors.get(name) != config and self._written.get(name) != config:
                log.info("[%s] writing %s config from the file: %s", self.flow, name, redact(config))
                worker.configs.put_connector_config(name, config)
                self._written[name] = config


class MirrorMaker:
    """All herders of one process plus the REST server that exposes them. The REST listener is bound at
    construction, before anything touches Kafka (`rest.listener`): a taken port stops the process before
    any herder is created (which creates its internal topics) or joins its group."""

    def __init__(self, config: MirrorMakerConfig, listeners: str | None = None) -> None:
        self.config = config
        self.configs = worker_configs(config, rest_listeners(config, listeners))
        if not self.configs:
            raise ValueError("no flow to run (enable one with '<source>-><target>.enabled = true')")
        if any(c.admin_listeners is not None for c in self.configs.values()):
            # Kafka's dedicated MirrorMaker serves no admin endpoints of its own either: refused, not ignored.
            raise ValueError("admin.listeners: not supported by a dedicated MirrorMaker process (its /admin/loggers "
                             "is served on `listeners`); remove the setting")
        self.listener = bind_listeners(next(iter(self.configs.values())).listeners)  # every entry of `listeners`
        self.workers: dict[Flow, Worker] = {}
        self.rest: RestServers | None = None

    def build(self) -> None:
        """Create the herders (their internal topics) and the REST app; the port is released on failure."""
        try:
            self.workers = build_workers(self.config, self.configs)
            self.rest = RestServers(next(iter(self.workers.values())), self.listener, self._app())
        except BaseException:
            self.close()
            raise

    def _app(self) -> Any:
        """Each flow's API under /{source}/{target}; at `/` the single flow's API, or with several flows
        `/` and `/health` for all of them (probes see the whole process)."""
        from starlette.applications import Starlette
        from starlette.routing import Mount

        routes = [Mount(f"/{flow.source}/{flow.target}", app=create_app(w)) for flow, w in self.workers.items()]
        first = next(iter(self.workers.values()))
        if len(self.workers) == 1:
            routes.append(Mount("/", app=create_app(first)))
        else:
            herders = {str(flow): Herder(w) for flow, w in self.workers.items()}
            routes.append(Mount("/", app=create_root_app(herders, BasicAuth.from_worker(first.config.raw))))
        return Starlette(routes=routes)

    def start(self) -> None:
        """Start every herder, then serve REST (ListenerBindError if it does not start)."""
        if self.rest is None:
            self.build()
        assert self.rest is not None
        for flow, worker in self.workers.items():
            worker.start()
            log.info("herder %s started (group %s)", flow, worker.config.group_id)
        self.rest.start()
        first = next(iter(self.workers.values()))
        log.info("REST API for %s under %s/<source>/<target>, health of all flows at %s/health (advertised %s)",
                 ", ".join(map(str, self.workers)), self.listener.urls, self.listener.url, first.config.advertised_url)

    def close(self) -> None:
        """Release the REST port of a process that stops before it starts (nothing else is held yet)."""
        self.listener.close()

    def stop(self) -> None:
        if self.rest is not None:
            self.rest.stop()
        # In parallel: each worker's stop has a budget of task.shutdown.graceful.timeout.ms, and the
        # process must end within one budget, not one per flow.
        threads = [threading.Thread(target=w.stop, name=f"stop-{flow}") for flow, w in self.workers.items()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()


def rest_listeners(config: MirrorMakerConfig, given: str | None) -> str:
    """The REST listeners of the process: `given` (--listeners), else the file's `listeners`; with neither,
    Connect's default when the file sets `dedicated.mode.enable.internal.rest` (it asks for a served API),
    else 127.0.0.1 only, said once at INFO with how to serve it further."""
    if given:
        return given
    if "listeners" in config.values:
        return config.values["listeners"]
    if "dedicated.mode.enable.internal.rest" in config.values:
        return WORKER_DEFAULT_LISTENER
    log.info("REST API on %s only (this machine): %s sets no `listeners`; to serve it on other interfaces set "
             "`listeners = http://0.0.0.0:8083` (or run with --listeners)", LOOPBACK_LISTENER, config.path)
    return LOOPBACK_LISTENER


def worker_source(config: MirrorMakerConfig, flow: Flow, values: Mapping[str, str]) -> Properties:
    """Where each worker setting of `flow` comes from in the file (`<target>.<key>` or `<key>`), so that
    worker config errors name the file's line."""
    entries = {}
    for key, value in values.items():
        # Top-level worker settings win over the target's (MirrorMakerConfig.workerConfig): name their line.
        top_first = key.startswith(WORKER_PREFIXES)
        for candidate in ((key, f"{flow.target}.{key}") if top_first else (f"{flow.target}.{key}", key)):
            line = config.props.line_of(candidate)
            if line is not None:
                entries[key] = Entry(value, line)
                break
    return Properties(config.path, entries)


def worker_configs(config: MirrorMakerConfig, listener: str) -> dict[Flow, WorkerConfig]:
    """Each flow's validated worker settings (no Kafka contacted); `listener` is the REST address of all."""
    configs = {}
    for flow in config.flows:
        values = {**config.worker_config(flow), "listeners": listener}
        configs[flow] = WorkerConfig(values, worker_source(config, flow, values))
    return configs


def build_workers(config: MirrorMakerConfig, configs: Mapping[Flow, WorkerConfig]) -> dict[Flow, Worker]:
    """Create (not start) one worker per flow from its settings."""
    workers = {}
    for flow, worker_config in configs.items():
        # The flow's scope: its own logger levels, its log lines tagged `[A->B]`, its metrics labelled.
        scope = WorkerScope(str(flow), {"source": flow.source, "target": flow.target}, config.not_started_notes(flow))
        try:
            workers[flow] = Worker(worker_config, leader_duty=FlowHerder(config, flow), scope=scope)
        except KafkaClientError as exc:  # the worker's own clients know the bootstrap servers, not the alias
            raise KafkaClientError(f"herder {flow} (internal topics on cluster {flow.target}): {exc}") from exc
    return workers
