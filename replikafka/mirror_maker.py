"""Dedicated MirrorMaker 2 mode: one herder (a worker cluster on the target) per flow of mm2.properties.

Each herder's leader writes the flow's three connector configs when they differ from what is stored
(MM2's MirrorHerder), so a changed file takes effect on restart. Several processes started with the
same file join the same herder groups and share the tasks. Unlike MM2's dedicated mode, the public
REST API is served: each flow under `/{source}/{target}` on the `listeners` address (and at `/` too
when the process runs a single flow).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping

from connectors.mirror.maker_config import CONNECTORS, WORKER_PREFIXES, Flow, MirrorMakerConfig, redacted
from pyconnect.config.properties import Entry, Properties
from pyconnect.config.worker import WorkerConfig
from pyconnect.kafka.clients import KafkaClientError
from pyconnect.runtime.worker import Worker
from pyconnect.runtime.worker_scope import WorkerScope
from rest.app import create_app
from rest.server import RestServer

log = logging.getLogger(__name__)


class FlowHerder:
    """Leader duty of one flow's worker cluster: the connector configs follow the file."""

    def __init__(self, config: MirrorMakerConfig, flow: Flow) -> None:
        self.flow = flow
        self.wanted = {name: config.connector_config(flow, name) for name in CONNECTORS}
        self._written: dict[str, Mapping[str, str]] = {}

    def __call__(self, worker: Worker) -> None:
        stored = worker.configs.snapshot().connectors
        for name, config in self.wanted.items():
            if stored.get(name) != config and self._written.get(name) != config:
                log.info("[%s] writing %s config from the file: %s", self.flow, name, redacted(config))
                worker.configs.put_connector_config(name, config)
                self._written[name] = config


class MirrorMaker:
    """All herders of one process plus the REST server that exposes them."""

    def __init__(self, config: MirrorMakerConfig, listeners: str | None = None) -> None:
        self.config = config
        self.listener = listeners or config.values.get("listeners", "http://:8083")
        self.workers = build_workers(config, self.listener)
        if not self.workers:
            raise ValueError("no flow to run (enable one with '<source>-><target>.enabled = true')")
        self.rest: RestServer | None = None

    def start(self) -> None:
        from starlette.applications import Starlette
        from starlette.routing import Mount

        routes = [Mount(f"/{flow.source}/{flow.target}", app=create_app(w)) for flow, w in self.workers.items()]
        if len(self.workers) == 1:
            routes.append(Mount("/", app=create_app(next(iter(self.workers.values())))))
        for flow, worker in self.workers.items():
            worker.start()
            log.info("herder %s started (group %s)", flow, worker.config.group_id)
        self.rest = RestServer(next(iter(self.workers.values())), Starlette(routes=routes)).start()
        log.info("REST API for %s under %s/<source>/<target>", ", ".join(map(str, self.workers)), self.listener)

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


def build_workers(config: MirrorMakerConfig, listener: str) -> dict[Flow, Worker]:
    """Create (not start) one worker per flow; `listener` is the REST address they advertise."""
    workers = {}
    for flow in config.flows:
        values = {**config.worker_config(flow), "listeners": listener}
        source = worker_source(config, flow, values)
        # The flow's scope: its own logger levels, its log lines tagged `[A->B]`, its metrics labelled.
        scope = WorkerScope(str(flow), {"source": flow.source, "target": flow.target})
        try:
            workers[flow] = Worker(WorkerConfig(values, source), leader_duty=FlowHerder(config, flow), scope=scope)
        except KafkaClientError as exc:  # the worker's own clients know the bootstrap servers, not the alias
            raise KafkaClientError(f"herder {flow} (internal topics on cluster {flow.target}): {exc}") from exc
    return workers
