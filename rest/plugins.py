"""`/connector-plugins` resource."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from pyconnect.runtime.herder import Herder, HerderError
from rest.connectors import _strings
from rest.models import ERRORS, ConfigInfos, ConfigKeyInfo, PluginInfo

ALIAS_SUFFIX = "Connector"


def normalized_plugin_name(name: str) -> str:
    """Connect's alias rule: a trailing "Connector" is dropped (full or simple class names alike)."""
    return name[: -len(ALIAS_SUFFIX)] if name.endswith(ALIAS_SUFFIX) and len(name) > len(ALIAS_SUFFIX) else name


def router(herder: Herder) -> APIRouter:
    """The plugin listing, config definitions and config validation."""
    api = APIRouter(prefix="/connector-plugins", tags=["connector-plugins"])

    @api.get("", responses={200: {"model": list[PluginInfo]}, **ERRORS})
    def plugins(connectorsOnly: bool = True) -> Any:  # noqa: N803
        return herder.plugins(connectorsOnly)

    @api.get("/{plugin}/config", responses={200: {"model": list[ConfigKeyInfo]}, **ERRORS})
    def plugin_config(plugin: str) -> Any:
        return herder.plugin_config(plugin)

    @api.put("/{plugin}/config/validate", responses={200: {"model": ConfigInfos}, **ERRORS})
    def validate(plugin: str, config: dict[str, Any]) -> Any:
        values = _strings(config)
        included = values.get("connector.class")
        # Only a class that is given is checked against the path; the herder reports a missing one.
        if included is not None and not normalized_plugin_name(included).endswith(normalized_plugin_name(plugin)):
            raise HerderError(400, f"Included connector type {included} does not match request type {plugin}")
        return herder.validate(values)

    return api
