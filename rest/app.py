"""Connect-compatible REST API served by every worker (core connector endpoints).

Shapes, status codes and error bodies follow compat-spec §A. Writes go straight to the config
topic, whose single partition orders them; forwarding to the leader is not needed for these.
"""

from __future__ import annotations

import time
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

import pyconnect
from pyconnect.plugins import PluginNotFound
from pyconnect.runtime.connector_runner import connector_instance, validation_errors
from pyconnect.runtime.worker import Worker


class ConnectError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error_code": status, "message": message}, status_code=status)


def create_app(worker: Worker) -> FastAPI:
    app = FastAPI(title="pyconnect REST API", version=pyconnect.__version__, redirect_slashes=False)

    @app.exception_handler(ConnectError)
    async def connect_error(_r: Request, exc: ConnectError) -> JSONResponse:
        return _error(exc.status, exc.message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_r: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_request(_r: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(400, f"Invalid request: {exc.errors()[0].get('msg', 'malformed body')}")

    @app.exception_handler(Exception)
    async def internal(_r: Request, exc: Exception) -> JSONResponse:
        return _error(500, str(exc))

    def snapshot() -> Any:
        worker.configs.refresh(10)
        return worker.configs.snapshot()

    def require(name: str) -> dict[str, str]:
        snap = snapshot()
        if name not in snap.connectors:
            raise ConnectError(404, f"Connector {name} not found")
        config: dict[str, str] = snap.connectors[name]
        return config

    def info(name: str) -> dict[str, Any]:
        snap = worker.configs.snapshot()
        config = snap.connectors[name]
        tasks = snap.task_configs.get(name, [])
        return {"name": name, "config": config,
                "tasks": [{"connector": name, "task": i} for i in range(len(tasks))],
                "type": _connector_type(config)}

    def _connector_type(config: dict[str, str]) -> str:
        try:
            return worker.plugins.resolve(config.get("connector.class", "")).type
        except PluginNotFound:
            return "unknown"

    def status(name: str) -> dict[str, Any]:
        worker.statuses.refresh(10)
        conn = worker.statuses.connector(name)
        if conn is None:
            raise ConnectError(404, f"No status found for connector {name}")
        tasks = []
        for i, st in sorted(worker.statuses.tasks(name).items()):
            if i < len(worker.configs.snapshot().task_configs.get(name, [])):
                tasks.append({"id": i, "state": st.state, "worker_id": st.worker_id,
                              **({"trace": st.trace} if st.trace else {})})
        return {"name": name,
                "connector": {"state": conn.state, "worker_id": conn.worker_id,
                              **({"trace": conn.trace} if conn.trace else {})},
                "tasks": tasks, "type": _connector_type(worker.configs.snapshot().connectors.get(name, {}))}

    def validate(name: str, config: dict[str, str]) -> None:
        try:
            connector = connector_instance(worker.plugins, config)
        except PluginNotFound as exc:
            raise ConnectError(400, f"Connector configuration is invalid and contains the following 1 "
                                    f"error(s):\n{exc}") from None
        except ValueError as exc:
            raise ConnectError(400, str(exc)) from None
        errors = validation_errors(connector, config)
        if errors:
            raise ConnectError(400, f"Connector configuration is invalid and contains the following "
                                    f"{len(errors)} error(s):\n" + "\n".join(errors))

    def wait_for_config(name: str, present: bool = True) -> None:
        deadline = time.monotonic() + 10
        while (name in worker.configs.snapshot().connectors) != present and time.monotonic() < deadline:
            time.sleep(0.02)

    @app.get("/")
    def root() -> dict[str, Any]:
        return {"version": pyconnect.__version__, "commit": "", "kafka_cluster_id": ""}

    @app.get("/connectors")
    def list_connectors(request: Request) -> Any:
        names = sorted(snapshot().connectors)
        expand = request.query_params.getlist("expand")
        if not expand:
            return names
        out: dict[str, Any] = {}
        for name in names:
            entry: dict[str, Any] = {}
            try:
                if "status" in expand:
                    entry["status"] = status(name)
                if "info" in expand:
                    entry["info"] = info(name)
            except (ConnectError, KeyError):
                continue
            out[name] = entry
        return out

    @app.post("/connectors")
    async def create(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            raise ConnectError(400, "Malformed JSON body") from None
        if not isinstance(body, dict) or not isinstance(body.get("config", {}), dict):
            raise ConnectError(400, "Request body must be {\"name\": ..., \"config\": {...}}")
        name = str(body.get("name") or "").strip()
        config = {str(k): str(v) for k, v in (body.get("config") or {}).items()}
        if not name:
            raise ConnectError(400, "Connector name must not be empty: String may not be empty")
        if config.get("name", name) != name:
            raise ConnectError(400, f"Connector name configuration ({config['name']}) doesn't match "
                                    f"connector name in the URL ({name})")
        config["name"] = name
        if name in snapshot().connectors:
            raise ConnectError(409, f"Connector {name} already exists")
        validate(name, config)
        initial = body.get("initial_state")
        state = str(initial).upper() if initial else None
        if state is not None and state not in ("RUNNING", "PAUSED", "STOPPED"):
            raise ConnectError(400, f"Invalid initial_state {initial}")
        worker.configs.put_connector_config(name, config, None if state is None else
                                            ("STARTED" if state == "RUNNING" else state))
        wait_for_config(name)
        return JSONResponse(info(name), status_code=201, headers={"Location": f"/connectors/{name}"})

    @app.get("/connectors/{name}")
    def get_connector(name: str) -> Any:
        require(name)
        return info(name)

    @app.get("/connectors/{name}/config")
    def get_config(name: str) -> Any:
        return require(name)

    @app.put("/connectors/{name}/config")
    async def put_config(name: str, request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            raise ConnectError(400, "Malformed JSON body") from None
        config = {str(k): str(v) for k, v in body.items()}
        if config.get("name", name) != name:
            raise ConnectError(400, f"Connector name configuration ({config['name']}) doesn't match "
                                    f"connector name in the URL ({name})")
        config["name"] = name
        created = name not in snapshot().connectors
        validate(name, config)
        worker.configs.put_connector_config(name, config)
        wait_for_config(name)
        if created:
            return JSONResponse(info(name), status_code=201, headers={"Location": f"/connectors/{name}"})
        return JSONResponse(info(name))

    @app.delete("/connectors/{name}")
    def delete(name: str) -> Response:
        require(name)
        worker.configs.remove_connector(name)
        wait_for_config(name, present=False)
        return Response(status_code=204)

    @app.get("/connectors/{name}/status")
    def get_status(name: str) -> Any:
        return status(name)

    @app.get("/connectors/{name}/tasks")
    def get_tasks(name: str) -> Any:
        require(name)
        tasks = worker.configs.snapshot().task_configs.get(name, [])
        return [{"id": {"connector": name, "task": i}, "config": c} for i, c in enumerate(tasks)]

    @app.get("/connectors/{name}/tasks/{task}/status")
    def task_status(name: str, task: int) -> Any:
        worker.statuses.refresh(10)
        st = worker.statuses.task(name, task)
        if st is None:
            raise ConnectError(404, f"No status found for task {name}-{task}")
        return {"id": task, "state": st.state, "worker_id": st.worker_id, **({"trace": st.trace} if st.trace else {})}

    @app.put("/connectors/{name}/pause")
    def pause(name: str) -> Response:
        require(name)
        worker.configs.put_target_state(name, "PAUSED")
        return Response(status_code=202)

    @app.put("/connectors/{name}/resume")
    def resume(name: str) -> Response:
        require(name)
        worker.configs.put_target_state(name, "STARTED")
        return Response(status_code=202)

    @app.put("/connectors/{name}/stop")
    def stop(name: str) -> Response:
        require(name)
        worker.configs.put_task_configs(name, [])
        worker.configs.put_target_state(name, "STOPPED")
        return Response(status_code=204)

    @app.post("/connectors/{name}/restart")
    def restart(name: str, includeTasks: bool = False, onlyFailed: bool = False) -> Response:  # noqa: N803
        require(name)
        worker.configs.request_restart(name, includeTasks, onlyFailed)
        if not includeTasks and not onlyFailed:
            return Response(status_code=204)
        body = status(name)
        if not onlyFailed or body["connector"]["state"] == "FAILED":
            body["connector"]["state"] = "RESTARTING"
        for task in body["tasks"]:
            if includeTasks and (not onlyFailed or task["state"] == "FAILED"):
                task["state"] = "RESTARTING"
        return JSONResponse(body, status_code=202)

    @app.post("/connectors/{name}/tasks/{task}/restart")
    def restart_task(name: str, task: int) -> Response:
        snap = snapshot()
        if name not in snap.connectors:
            raise ConnectError(404, f"Unknown connector: {name}")
        if task >= len(snap.task_configs.get(name, [])):
            raise ConnectError(404, f"Unknown task: {name}-{task}")
        worker.configs.request_restart(name, True, False)
        return Response(status_code=204)

    @app.get("/connectors/{name}/offsets")
    def offsets(name: str) -> Any:
        require(name)
        worker.offsets.refresh(10)
        return {"offsets": [{"partition": p, "offset": o} for p, o in worker.offsets.connector_offsets(name)]}

    @app.get("/connector-plugins")
    def plugins(connectorsOnly: bool = True) -> Any:  # noqa: N803
        return [{"class": p.java_class, "type": p.type, "version": p.version()} for p in worker.plugins.all()]

    @app.put("/connector-plugins/{plugin}/config/validate")
    async def validate_config(plugin: str, request: Request) -> Any:
        try:
            body = await request.json()
        except ValueError:
            raise ConnectError(400, "Malformed JSON body") from None
        config = {str(k): str(v) for k, v in body.items()}
        class_name = config.get("connector.class", "")

        def strip(n: str) -> str:
            n = n.rsplit(".", 1)[-1]
            return n[: -len("Connector")] if n.endswith("Connector") else n
        if strip(class_name) != strip(plugin):
            raise ConnectError(400, "Connector class name must be the same as the plugin name in the URL: "
                                    f"{class_name} vs {plugin}")
        try:
            info_ = worker.plugins.resolve(plugin)
        except PluginNotFound as exc:
            raise ConnectError(404, str(exc)) from None
        connector = info_.cls()
        values = connector.validate(config)
        definition = connector.config_def()
        configs: list[dict[str, Any]] = []
        for name, value in values.items():
            key = definition.keys.get(name)
            configs.append({
                "definition": {
                    "name": name, "type": key.type.value if key else "STRING",
                    "required": key.required if key else False,
                    "default_value": None if key is None or key.required or key.default is None
                    else (",".join(key.default) if isinstance(key.default, list) else str(key.default)),
                    "importance": key.importance.value if key else "LOW",
                    "documentation": key.documentation if key else "", "group": key.group if key else None,
                    "order": key.order if key else -1, "width": key.width if key else "NONE",
                    "display_name": (key.display_name or name) if key else name, "dependents": [],
                },
                "value": {"name": name, "value": config.get(name), "recommended_values": value.recommended_values,
                          "errors": value.errors, "visible": value.visible},
            })
        return {"name": info_.java_class, "error_count": sum(len(v.errors) for v in values.values()),
                "groups": sorted({c["definition"]["group"] for c in configs if c["definition"]["group"]}),
                "configs": configs}

    return app
