"""Dedicated MirrorMaker 2 mode: one herder (a worker cluster on the target) per flow of mm2.properties.

Each herder's leader writes the flow's three connector configs when they differ from what is stored
(MM2's MirrorHerder), so a changed file takes effect on restart. Several processes started with the
same file join the same herder groups and share the tasks. Unlike MM2's dedicated mode, the public
REST API is served: each flow under `/{source}/{target}` on the `listeners` address (and at `/` too
when the process runs a single flow).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from connectors.mirror.maker_config import CONNECTORS, Flow, MirrorMakerConfig, redacted
from pyconnect.config.properties import Properties
from pyconnect.config.worker import WorkerConfig
from pyconnect.runtime.worker import Worker

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


def build_workers(config: MirrorMakerConfig, listener: str) -> dict[Flow, Worker]:
    """Create (not start) one worker per flow; `listener` is the REST address they advertise."""
    workers = {}
    for flow in config.flows:
        values = {**config.worker_config(flow), "listeners": listener}
        source = Properties(f"{config.path} ({flow})", {})
        workers[flow] = Worker(WorkerConfig(values, source), leader_duty=FlowHerder(config, flow))
    return workers
