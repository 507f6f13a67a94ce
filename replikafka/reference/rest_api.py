"""The REST API's paths, methods and summaries, from the app's `/openapi.json`."""

from __future__ import annotations

from typing import Any

from pyconnect.config.worker import WorkerConfig
from pyconnect.runtime.worker import Worker
from pyconnect.storage.log import Log, MemoryLog, MemoryTopic
from rest.app import create_app

_METHODS = ("get", "post", "put", "patch", "delete")
#: The smallest worker config the app is built from (the worker is never started: only the schema is asked for).
_WORKER = {"bootstrap.servers": "127.0.0.1:1", "group.id": "reference", "config.storage.topic": "c",
           "offset.storage.topic": "o", "status.storage.topic": "s"}


def _memory_log(_name: str, partitions: int) -> Log:
    """An in-memory internal topic: the reference's worker never reaches a broker."""
    return MemoryLog(MemoryTopic(partitions))


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document a worker's REST API serves at `/openapi.json` (on an in-memory worker: no broker)."""
    worker = Worker(WorkerConfig(_WORKER), log_factory=_memory_log)
    document: dict[str, Any] = create_app(worker).openapi()
    return document


def _summary(operation: dict[str, Any]) -> str:
    """An operation's summary (else its description) for a table cell."""
    text = str(operation.get("summary") or operation.get("description") or "")
    return text.replace("|", "\\|").replace("\n", " ")


def rest_page() -> str:
    """The REST API reference page (Markdown)."""
    document = openapi_document()
    lines = ["# REST API reference", "",
             f"Generated from the app's OpenAPI document ({document['info']['title']}), which every worker also "
             "serves at `/openapi.json`.", "",
             "| Method | Path | Summary | Tags |", "|---|---|---|---|"]
    for path, item in document["paths"].items():
        for method in _METHODS:
            if method in item:
                operation = item[method]
                tags = ", ".join(operation.get("tags", []))
                lines.append(f"| {method.upper()} | `{path}` | {_summary(operation)} | {tags} |")
    return "\n".join([*lines, ""])
