"""`/connectors/{name}/offsets`: read (any worker), alter and reset (the leader; the connector must
be STOPPED)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse, Response

from pyconnect.runtime.herder.herder import Herder
from pyconnect.runtime.results import PartitionOffset
from rest import bodies
from rest.forwarding import Routing, ServeOrForward
from rest.models import ERRORS, ConnectorOffsets, Message, OffsetsRequest


def router(herder: Herder, routing: Routing) -> APIRouter:
    """GET, PATCH and DELETE of a connector's offsets."""
    api = APIRouter(prefix="/connectors", tags=["connectors"])
    with_body = Depends(routing.with_body)
    without_body = Depends(routing.without_body)

    @api.get("/{name}/offsets", responses={200: {"model": ConnectorOffsets}, **ERRORS})
    def get_offsets(name: str) -> Any:
        return bodies.connector_offsets(herder.offsets(name))

    @api.patch("/{name}/offsets", responses={200: {"model": Message}, **ERRORS})
    def alter_offsets(name: str, body: OffsetsRequest, leader: ServeOrForward = with_body) -> Response:
        offsets = None if body.offsets is None else [PartitionOffset(e.partition, e.offset) for e in body.offsets]
        return leader(lambda: JSONResponse(bodies.message(herder.alter_offsets(name, offsets))))

    @api.delete("/{name}/offsets", responses={200: {"model": Message}, **ERRORS})
    def reset_offsets(name: str, leader: ServeOrForward = without_body) -> Response:
        return leader(lambda: JSONResponse(bodies.message(herder.reset_offsets(name))))

    return api
