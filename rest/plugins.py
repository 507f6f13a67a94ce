"""`/connector-plugins` resource."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from pyconnect.runtime.herder import Herder, HerderError, _strip_suffix
from rest.connectors import _strings
from rest.models import ERRORS, ConfigInfos, ConfigKeyInfo, PluginInfo


def router(herder: Herder) -> APIRouter:
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
        class_name = values.get("connector.class", "")
        if _strip_suffix(class_name) != _strip_suffix(plugin):
            raise HerderError(400, "Connector class name must be the same as the plugin name in the URL: "
                                   f"connector.class={class_name}, plugin={plugin}")
        return herder.validate(values)

    return api
