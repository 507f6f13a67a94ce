"""`/ui` (the operator console) and `/ui/state` (what its script polls).

The console shows the connectors and tasks as `GET /connectors/{name}/status` reports them (the same
herder reads), and the worker's metric history (`pyconnect.runtime.metrics.history`) as charts and a
topic-partition table. Its actions are calls of the REST API from the page's script; with
`console.read.only=true` the page has no action buttons. `GET /` stays Connect's server info.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, JSONResponse

from pyconnect.runtime.herder.request_errors import NotFound
from pyconnect.runtime.metrics.history import KINDS, MetricHistory
from pyconnect.runtime.results import ConnectorStateInfo
from rest import bodies
from rest.console_charts import charts_html, partitions_html
from rest.console_flows import backfill_html, flows, flows_html
from rest.console_page import Json, connectors_html, page

POLL_MS = 3000


class StatusSource(Protocol):
    """What the console reads of the herder."""

    def connectors(self) -> list[str]: ...

    def connector_status(self, name: str) -> ConnectorStateInfo: ...

    def connector_config(self, name: str) -> dict[str, str]: ...


class Console:
    """The console of one worker: its statuses, its history, whether actions are offered."""

    def __init__(self, herder: StatusSource, history: MetricHistory, worker_id: str, read_only: bool) -> None:
        self.herder, self.history = herder, history
        self.worker_id, self.read_only = worker_id, read_only

    def statuses(self) -> list[Json]:
        """Each connector's status body, as `/connectors/{name}/status` answers it."""
        out = []
        for name in self.herder.connectors():
            try:
                out.append(bodies.connector_state_info(self.herder.connector_status(name)))
            except NotFound:  # deleted, or its status not written yet: the next poll shows it
                continue
        return out

    def configs(self, statuses: list[Json]) -> dict[str, dict[str, str]]:
        out = {}
        for status in statuses:
            try:
                out[str(status["name"])] = self.herder.connector_config(str(status["name"]))
            except NotFound:
                continue
        return out

    def sections(self, statuses: list[Json]) -> dict[str, str]:
        """The page's sections by element id (the page and `/ui/state` render the same)."""
        now = time.time()
        hops = self.history.current("_upstream_replication_hops")
        checkpoints = self.history.current("_checkpoint_timestamp_seconds")
        return {"flows": flows_html(flows(statuses, self.configs(statuses), hops, checkpoints), now),
                "backfills": backfill_html(statuses),
                "connectors": connectors_html(statuses, self.read_only),
                "charts": charts_html(self.history, now),
                "partitions": partitions_html(self.history, now)}

    def state(self) -> dict[str, Any]:
        """`/ui/state`: the statuses, each figure's series sizes and the rendered sections."""
        statuses = self.statuses()
        points = {kind.key: {name: len(p) for name, p in self.history.series(kind.key).items()} for kind in KINDS}
        return {"worker_id": self.worker_id, "read_only": self.read_only, "connectors": statuses,
                "points": points, "html": self.sections(statuses)}

    def page(self) -> str:
        return page(self.sections(self.statuses()), self.worker_id, self.read_only, POLL_MS)


def router(console: Console) -> APIRouter:
    """The console's two read-only routes (left out of the OpenAPI document: they are not Connect's)."""
    api = APIRouter(tags=["console"], include_in_schema=False)

    @api.get("/ui")
    def ui() -> HTMLResponse:
        return HTMLResponse(console.page(), headers={"Cache-Control": "no-store"})

    @api.get("/ui/state")
    def state() -> JSONResponse:
        return JSONResponse(console.state(), headers={"Cache-Control": "no-store"})

    return api
