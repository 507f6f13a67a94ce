"""Errors as Connect's REST API answers them: `{"error_code": <status>, "message": ...}`.

Herder errors get their status here and only here (Connect's ConnectExceptionMapper):

    NotFound   404        Conflict   409        BadConfig  400        Forbidden  403
    anything else (NotLeader or NotAssigned that no forwarding handled, any other exception)  500

A request that timed out (TimeoutError: e.g. an internal topic that could not be read to its end) is a 500
with its reason and one log line, as Connect's "Request timed out"; any other unexpected exception is a 500
whose stack trace the server logs (Connect's ConnectExceptionMapper logs those at ERROR too).

`RestError` is the REST layer's own failure with its status: a malformed request, a forwarding hop
that is not allowed, or the answer relayed from the worker a request was forwarded to.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from pyconnect.runtime.herder.request_errors import BadConfig, Conflict, Forbidden, HerderError, NotFound

log = logging.getLogger(__name__)
STATUS: dict[type[HerderError], int] = {NotFound: 404, Conflict: 409, BadConfig: 400, Forbidden: 403}


class RestError(Exception):
    """A REST-level failure with its HTTP status (Connect's ConnectRestException)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def status_of(exc: HerderError) -> int:
    """The HTTP status of a herder error: its kind's (a subclass counts as its base), else 500."""
    return next((STATUS[kind] for kind in type(exc).__mro__ if kind in STATUS), 500)


def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """Connect's error body, with `status` as the HTTP status too."""
    return JSONResponse({"error_code": status, "message": message}, status_code=status, headers=headers)


def _validation_message(exc: RequestValidationError) -> str:
    first: dict[str, Any] = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    msg = str(first.get("msg", "malformed request"))
    return f"Invalid request body: {where}: {msg}" if where else f"Invalid request body: {msg}"


def install(app: FastAPI) -> None:
    """Answer every failure of `app` with Connect's error body; unknown paths are 404 and wrong
    methods 405, request bodies that do not parse 400 (FastAPI would say 422)."""

    @app.exception_handler(HerderError)
    async def herder_error(_r: Request, exc: HerderError) -> JSONResponse:
        return error(status_of(exc), exc.message)

    @app.exception_handler(RestError)
    async def rest_error(_r: Request, exc: RestError) -> JSONResponse:
        return error(exc.status, exc.message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_r: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error(exc.status_code, f"HTTP {exc.status_code} {exc.detail}")

    @app.exception_handler(RequestValidationError)
    async def bad_request(_r: Request, exc: RequestValidationError) -> JSONResponse:
        return error(400, _validation_message(exc))

    @app.exception_handler(TimeoutError)
    async def timed_out(request: Request, exc: TimeoutError) -> JSONResponse:
        # Connect answers a request that timed out 500 "Request timed out" (a ConnectRestException: no stack
        # trace in its log). Here too: one line in the log, not the trace Starlette prints for the 500s below.
        message = str(exc) or "Request timed out"
        log.warning("%s %s timed out: %s", request.method, request.url.path, message)
        return error(500, message)

    @app.exception_handler(Exception)
    async def internal(_r: Request, exc: Exception) -> JSONResponse:
        return error(500, str(exc) or type(exc).__name__)
