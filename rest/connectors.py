"""`/connectors` and `/connectors/{name}`: listing, creation, info and deletion (compat-spec §A.3).

The rest of the resource has a router per sub-resource: `connector_config`, `connector_tasks`
(status and task configs), `connector_lifecycle` (restart, pause, resume, stop), `connector_offsets`
and `connector_topics`. All are tagged "connectors", so the API docs show one resource.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, Response

from pyconnect.runtime.herder.herder import Herder
from pyconnect.runtime.herder.request_errors import NotFound
from rest import bodies
from rest.config_secrets import ConfigSecrets
from rest.forwarding import PATH_SAFE, Routing, ServeOrForward
from rest.models import ERRORS, ConnectorInfo, CreateConnectorRequest, connector_config


def trimmed_name(name: str | None) -> str:
    """The name a create request stands for: Java's String.trim strips every code point up to
    U+0020 (so \\b too); a missing name is "", which the name validator then rejects."""
    return (name or "").strip("".join(map(chr, range(0x21))))


def created(request: Request, name: str, response: Response) -> Response:
    """A 201 names the connector with an absolute Location on the URL the caller used, as JAX-RS
    resolves `Response.created(/connectors/<name>)`; other answers pass unchanged."""
    if response.status_code == 201:
        response.headers["Location"] = f"{str(request.base_url).rstrip('/')}/connectors/{quote(name, safe=PATH_SAFE)}"
    return response


def router(herder: Herder, routing: Routing, secrets: ConfigSecrets) -> APIRouter:
    """Listing (optionally expanded), creation, info and deletion; configs shown with secrets hidden."""
    api = APIRouter(prefix="/connectors", tags=["connectors"])
    with_body = Depends(routing.with_body)
    without_body = Depends(routing.without_body)

    @api.get("", summary="List connectors (optionally expanded with status and/or info)",
             responses={200: {"model": list[str] | dict[str, dict[str, Any]]}, **ERRORS})
    def list_connectors(expand: list[str] = Query(default=[])) -> Any:  # noqa: B008
        names = herder.connectors()
        if not expand:
            return names
        out: dict[str, Any] = {}
        for name in names:
            entry: dict[str, Any] = {}
            try:
                if "status" in expand:
                    entry["status"] = bodies.connector_state_info(herder.connector_status(name))
                if "info" in expand:
                    entry["info"] = bodies.connector_info(secrets.info(herder.connector_info(name)))
            except NotFound:
                continue  # vanished meanwhile
            out[name] = entry
        return out

    @api.get("/{name}", responses={200: {"model": ConnectorInfo}, **ERRORS})
    def get_connector(name: str) -> Any:
        return bodies.connector_info(secrets.info(herder.connector_info(name)))

    @api.post("", status_code=201, summary="Create a connector", responses={201: {"model": ConnectorInfo}, **ERRORS})
    def create(request: Request, body: CreateConnectorRequest, leader: ServeOrForward = with_body) -> Response:
        name = trimmed_name(body.name)

        def serve() -> Response:
            config = secrets.restored(name, connector_config(body.config), secrets.stored(name))
            info = herder.create(name, config, body.initial_state)
            return JSONResponse(bodies.connector_info(secrets.info(info)), status_code=201)
        return created(request, name, leader(serve))

    @api.delete("/{name}", status_code=204, responses=ERRORS)
    def delete(name: str, leader: ServeOrForward = without_body) -> Response:
        def serve() -> Response:
            herder.delete(name)
            return Response(status_code=204)
        return leader(serve)

    return api
