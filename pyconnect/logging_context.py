"""Connect-style log context: every line logged by a connector or task carries `[name|task-0] `
(`[name|worker] ` for the connector instance), like Connect's MDC; optional JSON lines."""

from __future__ import annotations

import contextvars
import json
import logging
import time

_context: contextvars.ContextVar[str] = contextvars.ContextVar("connect_context", default="")


def set_context(connector: str, task: int | None = None) -> None:
    """Tag the current thread's log lines (runner threads call this first)."""
    _context.set(f"[{connector}|{'worker' if task is None else f'task-{task}'}] ")


class ContextFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.connect_context = _context.get()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"
        entry = {"time": stamp, "level": record.levelname, "logger": record.name,
                 "context": getattr(record, "connect_context", "").strip(), "message": record.getMessage()}
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry)


TEXT_FORMAT = "[%(asctime)s] %(levelname)s %(connect_context)s%(message)s (%(name)s)"


def configure(level: str = "INFO", fmt: str = "text") -> None:
    handler = logging.StreamHandler()
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(getattr(logging, level.upper(), logging.INFO))
