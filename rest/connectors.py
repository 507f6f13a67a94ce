"""`/connectors` resource (compat-spec §A.3)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import orjson
from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from pyconnect.runtime.herder import Herder, HerderError
from rest.forwarding import PATH_SAFE, Forwarder
from rest.models import (
    ERRORS,
    ConnectorInfo,
    ConnectorOffsets,
    ConnectorStateInfo,
    ErrorBody,
    Message,
    TaskInfo,
    TaskState,
)


class CreateConnectorRequest(BaseModel):
    name: str | None = None  # missing: "", which the name validator rejects, as Connect does
    config: dict[str, Any] = Field(default_factory=dict)
    initial_state: str | None = None


class OffsetEntry(BaseModel):
    partition: dict[str, Any]
    offset: dict[str, Any] | None = None


class OffsetsRequest(BaseModel):
    offsets: list[OffsetEntry] | None = None


def _strings(config: dict[str, Any]) -> dict[str, str]:
    """Connect's Map<String,String>: scalars become strings, nested values are an error."""
    out = {}
    for key, value in config.items():
        if isinstance(value, (dict, list)):
            raise HerderError(400, f"Cannot deserialize value of type `java.lang.String` from {type(value).__name__} "
                                   f"for configuration {key}")
        out[str(key)] = ("true" if value else "false") if isinstance(value, bool) else (
            None if value is None else str(value))
    return out  # type: ignore[return-value]


class LeaderOnly:
    """Connect's leader-only writes: None when this worker leads (serve the request here), else the
    answer of the leader it was forwarded to."""

    def __init__(self, herder: Herder, forwarder: Forwarder) -> None:
        self.membership, self.forwarder = herder.worker.membership, forwarder

    def __call__(self, request: Request, body: bytes) -> Response | None:
        membership = self.membership
        if not membership.is_leader() and membership.leader_url() is None and request.query_params.get(
                "forward") != "false":
            membership.await_leader(membership.session_timeout + 5.0)
        if membership.is_leader():
            return None
        return self.forwarder.forward(request, body, membership.leader_url())


def created(request: Request, name: str, response: Response) -> Response:
    """A 201 names the connector with an absolute Location on the URL the caller used, as JAX-RS
    resolves `Response.created(/connectors/<name>)`; other answers pass unchanged."""
    if response.status_code == 201:
        response.headers["Location"] = f"{str(request.base_url).rstrip('/')}/connectors/{quote(name, safe=PATH_SAFE)}"
    return response


def router(herder: Herder, forwarder: Forwarder) -> APIRouter:
    """The `/connectors` resource, its routes grouped by what they act on."""
    api = APIRouter(prefix="/connectors", tags=["connectors"])
    leader_only = LeaderOnly(herder, forwarder)
    _read_routes(api, herder)
    _config_routes(api, herder, leader_only)
    _lifecycle_routes(api, herder, forwarder, leader_only)
    _offset_and_topic_routes(api, herder, leader_only)
    return api


def _read_routes(api: APIRouter, herder: Herder) -> None:
    """Listing, info, status and task configs: answered by any worker."""
    @api.get("", summary="List connectors (optionally expanded with status and/or info)",
             responses={200: {"model": list[str] | dict[str, dict[str, Any]]}, **ERRORS})
    def list_connectors(expand: list[str] = Query(default=[])) -> Any:  # noqa: B008
        names = sorted(herder.snapshot().connectors)
        if not expand:
            return names
        out: dict[str, Any] = {}
        for name in names:
            entry: dict[str, Any] = {}
            try:
                if "status" in expand:
                    entry["status"] = herder.status(name)
                if "info" in expand:
                    entry["info"] = herder.info(name)
            except (HerderError, KeyError):
                continue  # vanished meanwhile
            out[name] = entry
        return out

    @api.get("/{name}", responses={200: {"model": ConnectorInfo}, **ERRORS})
    def get_connector(name: str) -> Any:
        herder.require(name)
        return herder.info(name)

    @api.get("/{name}/status", responses={200: {"model": ConnectorStateInfo}, **ERRORS})
    def status(name: str) -> Any:
        return herder.status(name)

    @api.get("/{name}/tasks", responses={200: {"model": list[TaskInfo]}, **ERRORS})
    def tasks(name: str) -> Any:
        return herder.tasks(name)

    @api.get("/{name}/tasks-config", deprecated=True,
             responses={200: {"model": dict[str, dict[str, str]]}, **ERRORS})
    def tasks_config(name: str) -> Any:
        return herder.tasks_config(name)

    @api.get("/{name}/tasks/{task}/status", responses={200: {"model": TaskState}, **ERRORS})
    def task_status(name: str, task: int) -> Any:
        return herder.task_status(name, task)


def _config_routes(api: APIRouter, herder: Herder, leader_only: LeaderOnly) -> None:
    """Create, delete and connector configs: leader-only writes."""
    @api.post("", status_code=201, summary="Create a connector", responses={201: {"model": ConnectorInfo}, **ERRORS})
    async def create(request: Request, body: CreateConnectorRequest) -> Response:
        raw = await request.body()

        def run() -> Response:
            forwarded = leader_only(request, raw)
            if forwarded is not None:
                return created(request, herder.trimmed_name(body.name), forwarded)
            info = herder.create(body.name, _strings(body.config), body.initial_state)
            return created(request, info["name"], JSONResponse(info, status_code=201))
        return await run_in_threadpool(run)

    @api.delete("/{name}", status_code=204, responses=ERRORS)
    def delete(name: str, request: Request) -> Response:
        forwarded = leader_only(request, b"")
        if forwarded is not None:
            return forwarded
        herder.delete(name)
        return Response(status_code=204)

    @api.get("/{name}/config", responses={200: {"model": dict[str, str]}, **ERRORS})
    def get_config(name: str) -> dict[str, str]:
        return herder.require(name)

    @api.put("/{name}/config", responses={200: {"model": ConnectorInfo}, 201: {"model": ConnectorInfo}, **ERRORS})
    async def put_config(name: str, request: Request, config: dict[str, Any]) -> Response:
        raw = await request.body()

        def run() -> Response:
            forwarded = leader_only(request, raw)
            if forwarded is not None:
                return created(request, name, forwarded)
            is_new, info = herder.put_config(name, _strings(config))
            return created(request, name, JSONResponse(info, status_code=201 if is_new else 200))
        return await run_in_threadpool(run)

    @api.patch("/{name}/config", responses={200: {"model": ConnectorInfo}, **ERRORS})
    async def patch_config(name: str, request: Request, patch: dict[str, Any]) -> Response:
        raw = await request.body()

        def run() -> Response:
            forwarded = leader_only(request, raw)
            if forwarded is not None:
                return forwarded
            return JSONResponse(herder.patch_config(name, _strings(patch)))
        return await run_in_threadpool(run)


def _lifecycle_routes(api: APIRouter, herder: Herder, forwarder: Forwarder, leader_only: LeaderOnly) -> None:
    """Restarts (sent to the owner or the leader), pause and resume (any worker), stop (the leader)."""
    @api.post("/{name}/tasks/{task}/restart", status_code=204, responses=ERRORS)
    def restart_task(name: str, task: int, request: Request) -> Response:
        herder.check_task(name, task)
        if herder.worker.restart_task(f"{name}-{task}"):
            return Response(status_code=204)
        return forwarder.forward(request, b"", herder.task_owner_url(name, task))

    @api.post("/{name}/restart", status_code=204,
              responses={202: {"model": ConnectorStateInfo, "description": "restart requested"}, **ERRORS})
    def restart(name: str, request: Request, includeTasks: bool = False,  # noqa: N803
                onlyFailed: bool = False) -> Response:  # noqa: N803
        forwarded = leader_only(request, b"")
        if forwarded is not None:
            return forwarded
        body = herder.restart(name, includeTasks, onlyFailed)
        return Response(status_code=204) if body is None else JSONResponse(body, status_code=202)

    @api.put("/{name}/pause", status_code=202, responses=ERRORS)
    def pause(name: str) -> Response:
        herder.set_target_state(name, "PAUSED")
        return Response(status_code=202)

    @api.put("/{name}/resume", status_code=202, responses=ERRORS)
    def resume(name: str) -> Response:
        herder.set_target_state(name, "STARTED")
        return Response(status_code=202)

    @api.put("/{name}/stop", status_code=204, responses=ERRORS)
    def stop(name: str, request: Request) -> Response:
        herder.require_known(name)  # any worker knows the connectors: no forwarding for an unknown one
        forwarded = leader_only(request, b"")
        if forwarded is not None:
            return forwarded
        herder.set_target_state(name, "STOPPED")
        return Response(status_code=204)


def _offset_and_topic_routes(api: APIRouter, herder: Herder, leader_only: LeaderOnly) -> None:
    """Offsets (the leader modifies them) and topic tracking."""
    @api.get("/{name}/offsets", responses={200: {"model": ConnectorOffsets}, **ERRORS})
    def get_offsets(name: str) -> Any:
        return herder.offsets(name)

    @api.patch("/{name}/offsets", responses={200: {"model": Message}, **ERRORS})
    async def alter_offsets(name: str, request: Request, body: OffsetsRequest) -> Response:
        raw = await request.body()

        def run() -> Response:
            forwarded = leader_only(request, raw)
            if forwarded is not None:
                return forwarded
            return JSONResponse(herder.alter_offsets(name, orjson.loads(raw)))
        return await run_in_threadpool(run)

    @api.delete("/{name}/offsets", responses={200: {"model": Message}, **ERRORS})
    def reset_offsets(name: str, request: Request) -> Response:
        forwarded = leader_only(request, b"")
        if forwarded is not None:
            return forwarded
        return JSONResponse(herder.reset_offsets(name))

    @api.get("/{name}/topics", responses={200: {"model": dict[str, dict[str, list[str]]]}, 403: {"model": ErrorBody}})
    def topics(name: str) -> Any:
        return herder.active_topics(name)

    @api.put("/{name}/topics/reset", status_code=202, responses={403: {"model": ErrorBody}, **ERRORS})
    def reset_topics(name: str) -> Response:
        herder.reset_topics(name)
        return Response(status_code=202)
