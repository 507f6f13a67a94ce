"""Connect-style log context: every line logged by a connector or task carries `[name|task-0] `
(`[name|worker] ` for the connector instance), like Connect's MDC; optional JSON lines.

In a process that runs several workers (dedicated MirrorMaker mode: one per flow), every thread a
worker runs also carries that worker's scope (its flow, e.g. `A->B`): lines show it as `[A->B] `,
and the scope picks the logger levels that apply to the record (`pyconnect.runtime.logs.flow_loggers`).
"""

from __future__ import annotations

import contextvars
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_context: contextvars.ContextVar[str] = contextvars.ContextVar("connect_context", default="")
_scope: contextvars.ContextVar[str] = contextvars.ContextVar("connect_scope", default="")


def set_context(connector: str, task: int | None = None) -> None:
    """Tag the current thread's log lines (runner threads call this first)."""
    _context.set(f"[{connector}|{'worker' if task is None else f'task-{task}'}] ")


def current_scope() -> str:
    """The worker scope of the running thread ("" outside any worker's scope: the process)."""
    return _scope.get()


@contextmanager
def scope(name: str) -> Iterator[None]:
    """Run the block, and the threads it starts with `context_thread`, in a worker's scope."""
    token = _scope.set(name)
    try:
        yield
    finally:
        _scope.reset(token)


def context_thread(target: Callable[[], object], name: str, daemon: bool = True) -> threading.Thread:
    """A thread running `target` in a copy of the caller's context, so the worker scope and the
    `[connector|task]` tag carry over (Python 3.11 starts every thread with an empty context)."""
    return threading.Thread(target=contextvars.copy_context().run, args=(target,), name=name, daemon=daemon)


class ContextFilter(logging.Filter):
    """Puts the scope and the connector/task tag on each record: `connect_context` is the text prefix
    (`[A->B] [name|task-0] `), `connect_scope` and `connect_tag` its two parts (for JSON lines)."""

    def filter(self, record: logging.LogRecord) -> bool:
        tag, scope_name = _context.get(), _scope.get()
        record.connect_tag, record.connect_scope = tag, scope_name
        record.connect_context = f"[{scope_name}] {tag}" if scope_name else tag
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"
        entry = {"time": stamp, "level": record.levelname, "logger": record.name,
                 "context": getattr(record, "connect_tag", "").strip(), "message": record.getMessage()}
        scope_name = getattr(record, "connect_scope", "")
        if scope_name:
            entry["scope"] = scope_name
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry)


TEXT_FORMAT = "[%(asctime)s] %(levelname)s %(connect_context)s%(message)s (%(name)s)"


def configure(level: str = "INFO", fmt: str = "text", filters: tuple[logging.Filter, ...] = (),
              log_file: str | None = None) -> None:
    """One handler on the root logger (stderr, or `log_file` when given), tagging records and applying
    `filters` (the runtime's per-scope level filter) to every record that reaches it."""
    handler: logging.Handler = logging.FileHandler(log_file) if log_file else logging.StreamHandler()
    handler.addFilter(ContextFilter())
    for extra in filters:
        handler.addFilter(extra)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(getattr(logging, level.upper(), logging.INFO))
