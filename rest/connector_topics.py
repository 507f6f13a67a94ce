"""`/connectors/{name}/topics` and `/topics/reset`: topic tracking (KIP-558), any worker."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from pyconnect.runtime.herder.herder import Herder
from rest import bodies
from rest.models import ERRORS, ErrorBody


def router(herder: Herder) -> APIRouter:
    """The topics a connector has used, and forgetting them."""
    api = APIRouter(prefix="/connectors", tags=["connectors"])

    @api.get("/{name}/topics", responses={200: {"model": dict[str, dict[str, list[str]]]}, 403: {"model": ErrorBody}})
    def topics(name: str) -> Any:
        return bodies.active_topics(herder.active_topics(name))

    @api.put("/{name}/topics/reset", status_code=202, responses={403: {"model": ErrorBody}, **ERRORS})
    def reset_topics(name: str) -> Response:
        herder.reset_topics(name)
        return Response(status_code=202)

    return api
