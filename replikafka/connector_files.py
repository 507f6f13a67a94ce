"""The connector files of `replikafka standalone worker.properties connector1.properties ...`.

As Connect's ConnectStandalone.parseConnectorConfigurationFile reads them, a file is one of:
1. a JSON object of connector settings (`{"name": ..., "connector.class": ...}`);
2. a JSON creation request, as POST /connectors takes (`{"name": ..., "config": {...}, "initial_state": ...}`);
3. a Java properties file.
Each must name the connector (`name`). Problems are ConfigFileErrors naming the file (and, for a
properties file, the line and key).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pyconnect.config.properties import ConfigFileError, load_properties

NAME = "name"


@dataclass(frozen=True)
class ConnectorFile:
    """One connector to create: its name, config and initial state (None: RUNNING)."""

    path: str
    name: str
    config: dict[str, str]
    initial_state: str | None = None


def _string_map(value: Any) -> dict[str, str] | None:
    """A JSON object of scalars as Connect's Map<String, String> reads it (numbers and booleans as text)."""
    if not isinstance(value, dict):
        return None
    out: dict[str, str] = {}
    for key, item in value.items():
        if isinstance(item, bool):
            out[key] = "true" if item else "false"
        elif isinstance(item, (str, int, float)):
            out[key] = str(item)
        elif item is None:
            continue  # Connect drops null values of a config map
        else:
            return None
    return out


def _missing_name(path: str) -> ConfigFileError:
    return ConfigFileError(path, None, NAME,
                           f"Connector configuration at '{path}' is missing the mandatory '{NAME}' configuration")


def _from_json(path: str, document: Any) -> ConnectorFile | None:
    flat = _string_map(document)
    if flat is not None:
        if NAME not in flat:
            raise _missing_name(path)
        return ConnectorFile(path, flat[NAME], flat)
    if not isinstance(document, dict) or not isinstance(document.get(NAME), str):
        return None
    config = _string_map(document.get("config"))
    if config is None:
        return None
    name = document[NAME]
    if config.setdefault(NAME, name) != name:
        raise ConfigFileError(path, None, NAME, "Connector name configuration in 'config' doesn't match the one "
                              f"specified in 'name' at '{path}'")
    state = document.get("initial_state")
    return ConnectorFile(path, name, config, state if isinstance(state, str) else None)


def load_connector_file(path: str) -> ConnectorFile:
    """The connector a file describes (JSON or properties); ConfigFileError if it is not readable or valid."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigFileError(path, None, None, f"cannot read file: {exc.strerror}") from exc
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError:
        document = None
    if document is not None:
        found = _from_json(path, document)
        if found is not None:
            return found
    props = load_properties(path)
    values = props.values()
    if NAME not in values:
        raise _missing_name(path)
    return ConnectorFile(path, values[NAME], values)
