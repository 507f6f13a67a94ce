"""Restarts, pause, resume and stop of a connector.

Restarts go to the leader (which writes the restart request), a task restart to the worker running
the task; pause and resume are written by any worker; stop is the leader's.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse, Response

from pyconnect.runtime.herder.herder import Herder
from rest import bodies
from rest.forwarding import Routing, ServeOrForward
from rest.models import ERRORS, ConnectorStateInfo


def router(herder: Herder, routing: Routing) -> APIRouter:
    """`/tasks/{task}/restart`, `/restart`, `/pause`, `/resume` and `/stop`."""
    api = APIRouter(prefix="/connectors", tags=["connectors"])
    without_body = Depends(routing.without_body)

    @api.post("/{name}/tasks/{task}/restart", status_code=204, responses=ERRORS)
    def restart_task(name: str, task: int, owner: ServeOrForward = without_body) -> Response:
        def serve() -> Response:
            herder.restart_task(name, task)
            return Response(status_code=204)
        return owner(serve)

    @api.post("/{name}/restart", status_code=204,
              responses={202: {"model": ConnectorStateInfo, "description": "restart requested"}, **ERRORS})
    def restart(name: str, leader: ServeOrForward = without_body, includeTasks: bool = False,  # noqa: N803
                onlyFailed: bool = False) -> Response:  # noqa: N803
        def serve() -> Response:
            planned = herder.restart(name, includeTasks, onlyFailed)
            if planned is None:
                return Response(status_code=204)
            return JSONResponse(bodies.connector_state_info(planned), status_code=202)
        return leader(serve)

    @api.put("/{name}/pause", status_code=202, responses=ERRORS)
    def pause(name: str) -> Response:
        herder.pause(name)
        return Response(status_code=202)

    @api.put("/{name}/resume", status_code=202, responses=ERRORS)
    def resume(name: str) -> Response:
        herder.resume(name)
        return Response(status_code=202)

    @api.put("/{name}/stop", status_code=204, responses=ERRORS)
    def stop(name: str, leader: ServeOrForward = without_body) -> Response:
        def serve() -> Response:
            herder.stop(name)
            return Response(status_code=204)
        return leader(serve)

    return api
