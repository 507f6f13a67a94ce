"""`/` and `/health` of a dedicated MirrorMaker process that runs several flows (one herder each).

Each flow keeps its full REST API under `/{source}/{target}`; this app answers at the root for all of
them, so that one probe (the image's HEALTHCHECK, the chart's liveness and readiness probes) covers the
process whatever its topology. With a single flow the process mounts that flow's own API at `/`
instead, and this app is not used.

Health follows Connect's statuses and codes (KIP-1017, `WorkerStatus`): the process is as healthy as
its least healthy flow. Any flow unhealthy: 500; else any flow starting: 503; else 200. The message
names each flow that is not healthy with that flow's own message, so an operator reading the probe's
output knows which herder (which target cluster) to look at.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

import pyconnect
from pyconnect.runtime.herder.herder import Herder
from pyconnect.runtime.results import WorkerHealth
from rest import bodies, errors
from rest.models import WorkerStatus
from rest.root import HEALTH_STATUS
from rest.security import BasicAuth

HEALTHY = "Worker has completed startup and is ready to handle requests."
# Worst first: the process reports the worst status any of its flows has.
SEVERITY = ("unhealthy", "starting", "healthy")


def combined_health(healths: Mapping[str, WorkerHealth]) -> WorkerHealth:
    """One status for all flows (the worst), naming in the message every flow that is not plainly healthy."""
    status = next(s for s in SEVERITY if any(h.status == s for h in healths.values()))
    notes = [f"{flow}: {h.message}" for flow, h in healths.items() if h.status != "healthy" or h.message != HEALTHY]
    if status == "healthy":
        flows = ", ".join(healths)
        message = f"All flows ({flows}) have completed startup and are ready to handle requests."
        return WorkerHealth(status, " ".join([message, *notes]))
    bad = [flow for flow, h in healths.items() if h.status != "healthy"]
    what = "Flow" if len(bad) == 1 else "Flows"
    return WorkerHealth(status, f"{what} {', '.join(bad)} not healthy. " + " ".join(notes))


def server_info(herders: Mapping[str, Herder]) -> dict[str, Any]:
    """Connect's ServerInfo, plus each flow's Kafka cluster id under `flows`. `kafka_cluster_id` is the
    one cluster all flows keep their state on when they share it (the chart's topology: one target),
    otherwise the first flow's (Connect clients read one id; `flows` has them all)."""
    infos = {flow: herder.server_info() for flow, herder in herders.items()}
    ids = {info.kafka_cluster_id for info in infos.values()}
    first = next(iter(infos.values()))
    body = bodies.server_info(first)
    body["kafka_cluster_id"] = ids.pop() if len(ids) == 1 else first.kafka_cluster_id
    body["flows"] = {flow: {"kafka_cluster_id": info.kafka_cluster_id} for flow, info in infos.items()}
    return body


def create_root_app(herders: Mapping[str, Herder], auth: BasicAuth | None) -> FastAPI:
    """The root app of a multi-flow process: `/` and `/health` for all `herders` (by flow name); every
    other root path answers Connect's 404 body."""
    app = FastAPI(title="replikafka MirrorMaker root", version=pyconnect.__version__, redirect_slashes=False,
                  openapi_url=None, docs_url=None, redoc_url=None)
    errors.install(app)

    @app.get("/")
    def root(request: Request) -> Any:
        # As on each flow's API: `/` needs credentials when BasicAuth is on, `/health` never does (probes).
        if auth is not None and not auth.allows(request.headers.get("authorization")):
            return errors.error(401, "Unauthorized: valid credentials are required",
                                {"WWW-Authenticate": 'Basic realm="connect"'})
        return server_info(herders)

    @app.get("/health", responses={200: {"model": WorkerStatus}, 500: {"model": WorkerStatus},
                                   503: {"model": WorkerStatus}})
    def health() -> Response:
        found = combined_health({flow: herder.health() for flow, herder in herders.items()})
        return JSONResponse(bodies.worker_health(found), HEALTH_STATUS[found.status])

    return app
