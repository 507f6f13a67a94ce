"""`/connectors/{name}/config`: read, replace (or create) and patch a connector's config."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response

from pyconnect.runtime.herder.herder import Herder
from rest import bodies
from rest.config_secrets import ConfigSecrets
from rest.connectors import created
from rest.forwarding import Routing, ServeOrForward
from rest.models import ERRORS, ConnectorInfo, connector_config, string_map


def router(herder: Herder, routing: Routing, secrets: ConfigSecrets) -> APIRouter:
    """GET answers on any worker, secrets hidden; PUT and PATCH are leader-only writes, where a secret sent
    back as `[hidden]` keeps its stored value (`rest.config_secrets`)."""
    api = APIRouter(prefix="/connectors", tags=["connectors"])
    with_body = Depends(routing.with_body)

    @api.get("/{name}/config", responses={200: {"model": dict[str, str]}, **ERRORS})
    def get_config(name: str) -> dict[str, str]:
        return secrets.shown(herder.connector_config(name))

    @api.put("/{name}/config", responses={200: {"model": ConnectorInfo}, 201: {"model": ConnectorInfo}, **ERRORS})
    def put_config(name: str, request: Request, config: dict[str, Any], leader: ServeOrForward = with_body) -> Response:
        def serve() -> Response:
            given = secrets.restored(name, connector_config(config), secrets.stored(name))
            is_new, info = herder.put_config(name, given)
            return JSONResponse(bodies.connector_info(secrets.info(info)), status_code=201 if is_new else 200)
        return created(request, name, leader(serve))

    @api.patch("/{name}/config", responses={200: {"model": ConnectorInfo}, **ERRORS})
    def patch_config(name: str, patch: dict[str, Any], leader: ServeOrForward = with_body) -> Response:
        def serve() -> Response:
            # A patch needs the connector: its absence is the 404 the herder answers, before any [hidden] key.
            given = secrets.restored(name, string_map(patch), herder.connector_config(name))
            return JSONResponse(bodies.connector_info(secrets.info(herder.patch_config(name, given))))
        return leader(serve)

    return api
