"""`/connectors/{name}/status`, `/tasks`, `/tasks-config` and `/tasks/{task}/status`: reads any
worker answers."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from pyconnect.runtime.herder.herder import Herder
from rest import bodies
from rest.config_secrets import ConfigSecrets
from rest.models import ERRORS, ConnectorStateInfo, TaskInfo, TaskState


def router(herder: Herder, secrets: ConfigSecrets) -> APIRouter:
    """A connector's and its tasks' states, and its task configs (secrets hidden)."""
    api = APIRouter(prefix="/connectors", tags=["connectors"])

    @api.get("/{name}/status", responses={200: {"model": ConnectorStateInfo}, **ERRORS})
    def status(name: str) -> Any:
        return bodies.connector_state_info(herder.connector_status(name))

    @api.get("/{name}/tasks", responses={200: {"model": list[TaskInfo]}, **ERRORS})
    def tasks(name: str) -> Any:
        return bodies.task_infos(secrets.tasks(name, herder.task_configs(name)))

    @api.get("/{name}/tasks-config", deprecated=True,
             responses={200: {"model": dict[str, dict[str, str]]}, **ERRORS})
    def tasks_config(name: str) -> Any:
        return bodies.tasks_config(secrets.tasks(name, herder.task_configs(name)))

    @api.get("/{name}/tasks/{task}/status", responses={200: {"model": TaskState}, **ERRORS})
    def task_status(name: str, task: int) -> Any:
        return bodies.task_state(herder.task_status(name, task))

    return api
