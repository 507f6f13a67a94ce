"""`/`, `/health` and `/admin/loggers`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response

import pyconnect
from pyconnect.runtime.herder import Herder, HerderError
from pyconnect.runtime.loggers import LEVELS
from rest.models import ERRORS, LoggerLevel, ServerInfo, WorkerStatus


def router(herder: Herder, cluster_id: str) -> APIRouter:
    api = APIRouter(tags=["admin"])
    worker = herder.worker

    @api.get("/", responses={200: {"model": ServerInfo}})
    def root() -> Any:
        return {"version": pyconnect.__version__, "commit": "", "kafka_cluster_id": cluster_id}

    @api.get("/health", responses={200: {"model": WorkerStatus}, 500: {"model": WorkerStatus},
                                   503: {"model": WorkerStatus}})
    def health() -> Response:
        if not worker.started.is_set() or worker.membership.assignment is None:
            return JSONResponse({"status": "starting", "message": "Worker is still starting up."}, 503)
        if not worker.membership.in_sync():
            return JSONResponse({"status": "unhealthy", "message": "Worker has not been able to read the "
                                 "cluster's membership topic within the session timeout."}, 500)
        if not worker.loop_alive():
            return JSONResponse({"status": "unhealthy", "message": "Worker's main loop is not progressing."}, 500)
        return JSONResponse({"status": "healthy",
                             "message": "Worker has completed startup and is ready to handle requests."})

    # The worker's levels: the process's in distributed mode, its flow's in dedicated mode.
    levels = worker.log_levels

    @api.get("/admin/loggers", responses={200: {"model": dict[str, LoggerLevel]}})
    def all_loggers() -> Any:
        return levels.all_levels()

    @api.get("/admin/loggers/{name}", responses={200: {"model": LoggerLevel}, **ERRORS})
    def get_logger(name: str) -> Any:
        found = levels.describe(name)
        if found is None:
            raise HerderError(404, f"Logger {name} not found.")
        return found

    @api.put("/admin/loggers/{name}", responses={200: {"model": list[str]}, 204: {}, **ERRORS})
    def set_logger(name: str, body: dict[str, Any], scope: str = Query(default="worker")) -> Response:
        level = body.get("level")
        if not isinstance(level, str) or not level:
            raise HerderError(400, "Desired 'level' parameter was not specified in request.")
        if level.upper() not in LEVELS:
            raise HerderError(404, f"invalid log level '{level}'.")
        if scope.lower() == "cluster":
            worker.configs.put_logger_level(name, level.upper())
            return Response(status_code=204)
        return JSONResponse(levels.set_level(name, level))

    return api
