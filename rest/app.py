"""The worker's REST API: Connect's paths, bodies, status codes and error bodies (compat-spec §A).

Every error is `{"error_code": <status>, "message": ...}`, including unknown paths (404) and wrong
methods (405); `rest.errors` maps the herder's errors to status codes. A trailing slash is ignored.
With BasicAuthSecurityRestExtension configured, every request needs valid credentials (401
otherwise).

One router per resource:

    rest.root                  /, /health
    rest.console               /ui, /ui/state (the operator console; not Connect's)
    rest.admin                 /admin/loggers, /admin/loggers/{name} (on `admin.listeners` when set)
    rest.connectors            /connectors, /connectors/{name}
    rest.connector_tasks       /connectors/{name}/status, /tasks, /tasks-config, /tasks/{task}/status
    rest.connector_config      /connectors/{name}/config
    rest.connector_lifecycle   /connectors/{name}/tasks/{task}/restart, /restart, /pause, /resume, /stop
    rest.connector_offsets     /connectors/{name}/offsets
    rest.connector_topics      /connectors/{name}/topics, /topics/reset
    rest.plugins               /connector-plugins, /{plugin}/config, /{plugin}/config/validate

Configs in answers show secrets as `[hidden]`, and a write that sends `[hidden]` back keeps the stored
secret (`rest.config_secrets`). Leader-only writes take `rest.forwarding.Routing`'s dependency, which
forwards them when the herder answers NotLeader.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.utils import get_openapi
from starlette.types import ASGIApp, Receive, Scope, Send

import pyconnect
from pyconnect.logging_context import scope as log_scope
from pyconnect.runtime.herder.herder import Herder
from pyconnect.runtime.worker import Worker
from rest import admin as admin_routes
from rest import (
    connector_config,
    connector_lifecycle,
    connector_offsets,
    connector_tasks,
    connector_topics,
    connectors,
    console,
    errors,
    plugins,
    root,
)
from rest.config_secrets import ConfigSecrets
from rest.errors import error
from rest.forwarding import Forwarder, Routing
from rest.security import BasicAuth, client_verify


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


class _ConnectApi(FastAPI):
    """FastAPI with an OpenAPI document that lists no 422 answers."""

    def openapi(self) -> dict[str, Any]:
        """The document /openapi.json serves, built once."""
        # Request validation errors answer 400 with Connect's error body, not FastAPI's 422.
        if self.openapi_schema is None:
            schema = get_openapi(title=self.title, version=self.version, routes=self.routes)
            for path in schema.get("paths", {}).values():
                for operation in path.values():
                    operation.get("responses", {}).pop("422", None)
            self.openapi_schema = schema
        return self.openapi_schema


class _InLogScope:
    """Each request runs in the worker's log scope (dedicated mode: its flow), so what the handlers log
    carries the flow and follows the flow's logger levels (handler threads copy the request's context)."""

    def __init__(self, app: ASGIApp, name: str) -> None:
        self.app, self.name = app, name

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with log_scope(self.name):
            await self.app(scope, receive, send)


def _base_app(worker: Worker) -> FastAPI:
    """An app with Connect's error bodies and, when configured, basic auth on every path but /health."""
    auth = BasicAuth.from_worker(worker.config.raw)
    app = _ConnectApi(title="replikafka REST API (Kafka Connect compatible)", version=pyconnect.__version__,
                      redirect_slashes=False)
    errors.install(app)

    if auth is not None:
        @app.middleware("http")
        async def basic_auth(request: Request, call_next: Any) -> Any:
            # /health stays open for liveness/readiness probes, which carry no credentials. Mounted under a
            # flow's /{source}/{target} (dedicated mode), the path is the mount's root_path plus the route's.
            route = request.url.path.removeprefix(request.scope.get("root_path", ""))
            if route != "/health" and not auth.allows(request.headers.get("authorization")):
                # A page's script (the console's, marked X-Requested-With) gets no challenge: the browser
                # would hold its request behind a login dialog instead of letting the page report the 401.
                scripted = "x-requested-with" in request.headers
                return error(401, "Unauthorized: valid credentials are required",
                             None if scripted else {"WWW-Authenticate": 'Basic realm="connect"'})
            return await call_next(request)
    return app


def _finish(app: FastAPI, worker: Worker) -> FastAPI:
    app.add_middleware(_StripTrailingSlash)
    if worker.scope.name:
        app.add_middleware(_InLogScope, name=worker.scope.name)
    return app


def create_app(worker: Worker, admin: bool = True) -> FastAPI:
    """The REST API of `worker` (one app per worker: dedicated MirrorMaker mounts one per flow); `admin`:
    with /admin/loggers (False when `admin.listeners` serves them, or disables them)."""
    herder = Herder(worker)
    routing = Routing(herder, Forwarder(client_verify(worker.config.raw)))
    secrets = ConfigSecrets(herder)
    app = _base_app(worker)
    # Registered in the order of the paths in /openapi.json.
    app.include_router(root.router(herder))
    if admin:
        app.include_router(admin_routes.router(herder))
    app.include_router(connectors.router(herder, routing, secrets))
    app.include_router(connector_tasks.router(herder, secrets))
    app.include_router(connector_config.router(herder, routing, secrets))
    app.include_router(connector_lifecycle.router(herder, routing))
    app.include_router(connector_offsets.router(herder, routing))
    app.include_router(connector_topics.router(herder))
    app.include_router(plugins.router(herder))
    app.include_router(console.router(console.Console(herder, worker.history, worker.worker_id,
                                                      worker.config.settings.console_read_only)))
    return _finish(app, worker)


def create_admin_app(worker: Worker) -> FastAPI:
    """What an `admin.listeners` listener serves (KIP-495): /admin/loggers only; any other path is a 404."""
    app = _base_app(worker)
    app.include_router(admin_routes.router(Herder(worker)))
    return _finish(app, worker)
