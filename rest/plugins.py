"""`/connector-plugins` resource: the plugin listing, config definitions and config validation."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from pyconnect.runtime.herder.herder import Herder
from rest import bodies
from rest.errors import RestError
from rest.models import ERRORS, ConfigInfos, ConfigKeyInfo, PluginInfo, connector_config

ALIAS_SUFFIX = "Connector"


def normalized_plugin_name(name: str) -> str:
    """Connect's alias rule: a trailing "Connector" is dropped (full or simple class names alike)."""
    return name[: -len(ALIAS_SUFFIX)] if name.endswith(ALIAS_SUFFIX) and len(name) > len(ALIAS_SUFFIX) else name


def router(herder: Herder) -> APIRouter:
    """The plugin listing, config definitions and config validation."""
    api = APIRouter(prefix="/connector-plugins", tags=["connector-plugins"])

    @api.get("", responses={200: {"model": list[PluginInfo]}, **ERRORS})
    def plugins(connectorsOnly: bool = True) -> Any:  # noqa: N803
        return [bodies.plugin(p) for p in herder.plugins(connectorsOnly)]

    @api.get("/{plugin}/config", responses={200: {"model": list[ConfigKeyInfo]}, **ERRORS})
    def plugin_config(plugin: str, version: str | None = None) -> Any:
        return [bodies.config_key(k) for k in herder.plugin_config(plugin, version)]

    @api.put("/{plugin}/config/validate", responses={200: {"model": ConfigInfos}, **ERRORS})
    def validate(plugin: str, config: dict[str, Any]) -> Any:
        values = connector_config(config)
        included = values.get("connector.class")
        # Only a class that is given is checked against the path; the herder reports a missing one.
        if included is not None and not normalized_plugin_name(included).endswith(normalized_plugin_name(plugin)):
            raise RestError(400, f"Included connector type {included} does not match request type {plugin}")
        return bodies.config_infos(herder.validate(values))

    return api
