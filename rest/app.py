"""The worker's REST API: Connect's paths, bodies, status codes and error bodies (compat-spec §A).

Every error is `{"error_code": <status>, "message": ...}`, including unknown paths (404) and wrong
methods (405). A trailing slash is ignored. With BasicAuthSecurityRestExtension configured, every
request needs valid credentials (401 otherwise).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

import pyconnect
from pyconnect.logging_context import scope as log_scope
from pyconnect.runtime.herder import Herder, HerderError
from pyconnect.runtime.worker import Worker
from rest import admin, connectors, plugins
from rest.forwarding import Forwarder
from rest.security import BasicAuth, client_verify


def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error_code": status, "message": message}, status_code=status, headers=headers)


class _StripTrailingSlash:
    """`/connectors/` answers like `/connectors` (no redirect)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path = scope["path"]
            if len(path) > 1 and path.endswith("/"):
                scope = dict(scope, path=path.rstrip("/") or "/", raw_path=path.rstrip("/").encode() or b"/")
        await self.app(scope, receive, send)


class _InLogScope:
    """Each request runs in the worker's log scope (dedicated mode: its flow), so what the handlers log
    carries the flow and follows the flow's logger levels (handler threads copy the request's context)."""

    def __init__(self, app: ASGIApp, name: str) -> None:
        self.app, self.name = app, name

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with log_scope(self.name):
            await self.app(scope, receive, send)


def _validation_message(exc: RequestValidationError) -> str:
    first: dict[str, Any] = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    msg = str(first.get("msg", "malformed request"))
    return f"Invalid request body: {where}: {msg}" if where else f"Invalid request body: {msg}"


def create_app(worker: Worker) -> FastAPI:
    herder = Herder(worker)
    forwarder = Forwarder(client_verify(worker.config.raw))
    auth = BasicAuth.from_worker(worker.config.raw)
    app = FastAPI(title="pyconnect REST API (Kafka Connect compatible)", version=pyconnect.__version__,
                  redirect_slashes=False)

    @app.exception_handler(HerderError)
    async def herder_error(_r: Request, exc: HerderError) -> JSONResponse:
        return error(exc.status, exc.message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_r: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error(exc.status_code, f"HTTP {exc.status_code} {exc.detail}")

    @app.exception_handler(RequestValidationError)
    async def bad_request(_r: Request, exc: RequestValidationError) -> JSONResponse:
        return error(400, _validation_message(exc))

    @app.exception_handler(Exception)
    async def internal(_r: Request, exc: Exception) -> JSONResponse:
        return error(500, str(exc) or type(exc).__name__)

    if auth is not None:
        @app.middleware("http")
        async def basic_auth(request: Request, call_next: Any) -> Any:
            # /health stays open for liveness/readiness probes, which carry no credentials.
            if request.url.path != "/health" and not auth.allows(request.headers.get("authorization")):
                return error(401, "Unauthorized: valid credentials are required",
                             {"WWW-Authenticate": 'Basic realm="connect"'})
            return await call_next(request)

    def openapi() -> dict[str, Any]:
        # Request validation errors answer 400 with Connect's error body, not FastAPI's 422.
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, routes=app.routes)
            for path in schema.get("paths", {}).values():
                for operation in path.values():
                    operation.get("responses", {}).pop("422", None)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.include_router(admin.router(herder, worker.cluster_id))
    app.include_router(connectors.router(herder, forwarder))
    app.include_router(plugins.router(herder))
    app.add_middleware(_StripTrailingSlash)
    if worker.scope.name:
        app.add_middleware(_InLogScope, name=worker.scope.name)
    return app
