"""`/` (server info) and `/health` (KIP-1017)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from pyconnect.runtime.herder.herder import Herder
from rest import bodies
from rest.models import ServerInfo, WorkerStatus

HEALTH_STATUS = {"healthy": 200, "starting": 503, "unhealthy": 500}


def router(herder: Herder) -> APIRouter:
    """The root resource and the health probe."""
    api = APIRouter(tags=["admin"])

    @api.get("/", responses={200: {"model": ServerInfo}})
    def root() -> Any:
        return bodies.server_info(herder.server_info())

    @api.get("/health", responses={200: {"model": WorkerStatus}, 500: {"model": WorkerStatus},
                                   503: {"model": WorkerStatus}})
    def health() -> Response:
        found = herder.health()
        return JSONResponse(bodies.worker_health(found), HEALTH_STATUS[found.status])

    return api
