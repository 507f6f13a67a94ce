"""Connect's quickstart (docs "Kafka Connect" / connect-file-source.properties and connect-file-sink.properties),
with the transforms example of Connect's documentation and a RegexRouter: the configs both modes use."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

JSON = "org.apache.kafka.connect.json.JsonConverter"

#: Worker settings of Kafka's config/connect-distributed.properties and connect-standalone.properties.
WORKER_CONVERTERS = {"key.converter": JSON, "value.converter": JSON, "key.converter.schemas.enable": "true",
                     "value.converter.schemas.enable": "true"}


def source_config(name: str, path: Path, topic: str) -> dict[str, str]:
    """connect-file-source.properties, plus the HoistField/InsertField example of the Connect docs and a
    RegexRouter that renames `connect-<x>` to `quickstart-<x>`."""
    return {"name": name, "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
            "tasks.max": "1", "file": str(path), "topic": topic,
            "transforms": "MakeMap,InsertSource,Route",
            "transforms.MakeMap.type": "org.apache.kafka.connect.transforms.HoistField$Value",
            "transforms.MakeMap.field": "line",
            "transforms.InsertSource.type": "org.apache.kafka.connect.transforms.InsertField$Value",
            "transforms.InsertSource.static.field": "data_source",
            "transforms.InsertSource.static.value": "test-file-source",
            "transforms.Route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.Route.regex": "connect-(.*)", "transforms.Route.replacement": "quickstart-$1"}


def sink_config(name: str, path: Path, topic: str) -> dict[str, str]:
    """connect-file-sink.properties, reading the renamed topic."""
    return {"name": name, "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
            "tasks.max": "1", "file": str(path), "topics": topic}


def expected_line(line: str) -> str:
    """What the sink writes for an input line: the struct HoistField and InsertField made, as Java prints it."""
    return f"Struct{{line={line},data_source=test-file-source}}"


def curl(method: str, url: str, body: Any = None) -> tuple[int, Any]:
    """One request with curl, as the quickstart's runbook makes it; (status, parsed body)."""
    args = ["curl", "-s", "-o", "-", "-w", "\n%{http_code}", "-X", method, "-H", "Content-Type: application/json", url]
    if body is not None:
        args += ["-d", json.dumps(body)]
    out = subprocess.run(args, capture_output=True, text=True, timeout=60, check=True).stdout
    text, _, code = out.rpartition("\n")
    return int(code), (json.loads(text) if text.strip() else None)


def properties(config: dict[str, str]) -> str:
    """A connector config as a .properties file (values escaped where Java properties need it)."""
    return "".join(f"{k}={v.replace(chr(92), chr(92) * 2)}\n" for k, v in config.items())
