"""`/admin/loggers`: log levels of this worker, or of every worker (`scope=cluster`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response

from pyconnect.runtime.herder.herder import Herder
from rest import bodies
from rest.errors import RestError
from rest.models import ERRORS, LoggerLevel


def router(herder: Herder) -> APIRouter:
    """Reading and setting log levels."""
    api = APIRouter(tags=["admin"])

    @api.get("/admin/loggers", responses={200: {"model": dict[str, LoggerLevel]}})
    def all_loggers() -> Any:
        return {name: bodies.logger_level(level) for name, level in herder.logger_levels().items()}

    @api.get("/admin/loggers/{name}", responses={200: {"model": LoggerLevel}, **ERRORS})
    def get_logger(name: str) -> Any:
        return bodies.logger_level(herder.logger_level(name))

    @api.put("/admin/loggers/{name}", responses={200: {"model": list[str]}, 204: {}, **ERRORS})
    def set_logger(name: str, body: dict[str, Any], scope: str = Query(default="worker")) -> Response:
        level = body.get("level")
        if not isinstance(level, str) or not level:
            raise RestError(400, "Desired 'level' parameter was not specified in request.")
        if scope.lower() == "cluster":
            herder.set_cluster_logger_level(name, level)
            return Response(status_code=204)
        # Any other scope is the worker's, as in Connect.
        return JSONResponse(herder.set_worker_logger_level(name, level))

    return api
