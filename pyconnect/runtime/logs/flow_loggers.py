"""Logger levels per flow in a process that runs several workers (dedicated MirrorMaker mode).

A level set through one flow (its REST `/admin/loggers` or a `logger-cluster-*` record in its config
topic) applies to the records that flow's threads log, not to the other flows'. Python keeps one
level per logger for the whole process, so:

- each flow keeps its own levels (Connect's semantics: setting a namespace sets it and every logger
  below it; loggers created later inherit from the closest namespace that has a level);
- a logger some flow has a level for is set to the most verbose level any flow or the process wants,
  so that the records are created at all;
- `LevelFilter`, on the log handler, then drops a record below the level of the flow whose thread
  logged it (`logging_context.current_scope()`), or below the process's own level for threads that
  belong to no flow.

The process's own level of a logger is the one it had before any flow changed it (kept in `_saved`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator

from pyconnect.logging_context import current_scope
from pyconnect.runtime.logs.loggers import LEVELS, level_name
from pyconnect.runtime.results import LoggerLevel

_lock = threading.Lock()
_flows: dict[str, FlowLevels] = {}
_saved: dict[str, int] = {}  # logger name -> its own level, while a flow has it lowered
_active = False  # some flow has levels of its own: only then has the filter anything to compare


def _loggers() -> dict[str, logging.Logger]:
    return {n: lg for n, lg in logging.root.manager.loggerDict.items() if isinstance(lg, logging.Logger)}


def _logger(name: str) -> logging.Logger:
    return logging.getLogger() if name == "root" else logging.getLogger(name)


def _prefixes(name: str) -> Iterator[str]:
    """`a.b.c`, `a.b`, `a`, then `root`: where a logger's level comes from, closest first."""
    while name and name != "root":
        yield name
        name = name.rpartition(".")[0]
    yield "root"


def _own_level(name: str) -> int:
    """The level the process itself gave this logger (NOTSET: inherits)."""
    saved = _saved.get(name)  # one read: another thread may be giving the level back meanwhile
    if saved is not None:
        return saved
    if name == "root":
        return logging.root.level
    logger = logging.root.manager.loggerDict.get(name)
    return logger.level if isinstance(logger, logging.Logger) else logging.NOTSET


def process_level(name: str) -> int:
    """The effective level of a logger for the process (threads of no flow)."""
    for prefix in _prefixes(name):
        level = _own_level(prefix)
        if level != logging.NOTSET:
            return level
    return logging.NOTSET


class FlowLevels:
    """The logger levels of one flow (one worker of the process); see the module's docstring."""

    def __init__(self, scope: str) -> None:
        self.scope = scope
        self._levels: dict[str, int] = {}  # replaced, never mutated: the filter reads it without the lock
        self._modified: dict[str, int] = {}

    def level(self, name: str) -> int:
        """The effective level of logger `name` for this flow's records: the closest logger with a
        level, this flow's level of it before the process's own."""
        levels = self._levels
        for prefix in _prefixes(name):
            level = levels.get(prefix) or _own_level(prefix)
            if level != logging.NOTSET:
                return level
        return logging.NOTSET

    def describe(self, name: str) -> LoggerLevel | None:
        """The level of one logger for this flow and when it was set, or None if no such logger exists."""
        if name != "root" and name not in _loggers():
            return None
        return LoggerLevel(level_name(self.level(name)), self._modified.get(name))

    def all_levels(self) -> dict[str, LoggerLevel]:
        """Loggers with an explicit level for this flow (its own or the process's), plus root."""
        names = set(self._levels) | {n for n in _loggers() if _own_level(n) != logging.NOTSET}
        out = {name: self.describe(name) for name in ["root", *sorted(names - {"root"})]}
        return {k: v for k, v in out.items() if v is not None}

    def set_level(self, namespace: str, level: str) -> list[str]:
        """Set `namespace` and every logger below it, for this flow; return the affected names.
        Raises KeyError for an unknown level."""
        value = LEVELS[level.upper()]
        now = int(time.time() * 1000)
        with _lock:
            _logger(namespace)  # exists from now on, as when the process sets a level
            affected = sorted({n for n in _loggers() if n == namespace or n.startswith(namespace + ".")}
                              | {namespace})
            self._levels = {**self._levels, **dict.fromkeys(affected, value)}
            self._modified.update(dict.fromkeys(affected, now))
            _apply()
        return affected

    def close(self) -> None:
        """Forget this flow's levels (its worker stopped); the loggers get their levels back."""
        with _lock:
            if _flows.get(self.scope) is self:
                del _flows[self.scope]
            _apply()


def flow_levels(scope: str) -> FlowLevels:
    """The levels of the flow named `scope` (created empty: every logger at the process's level)."""
    with _lock:
        levels = _flows.get(scope)
        if levels is None:
            levels = _flows[scope] = FlowLevels(scope)
        return levels


def _apply() -> None:
    """Under `_lock`: lower each logger some flow has a level for to the most verbose level wanted by
    any flow or the process; give every other logger its own level back."""
    global _active
    flows = list(_flows.values())
    managed = {name for flow in flows for name in flow._levels}
    for name in [n for n in _saved if n not in managed]:
        _logger(name).setLevel(_saved.pop(name))
    for name in managed:
        _saved.setdefault(name, _logger(name).level)
    for name in managed:
        _logger(name).setLevel(min([process_level(name)] + [flow.level(name) for flow in flows]))
    _active = bool(managed)


class LevelFilter(logging.Filter):
    """Drops records below the level that applies to the thread that logged them (see module)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not _active:
            return True  # no flow changed a level: the loggers' own levels already decided
        flow = _flows.get(current_scope())
        return record.levelno >= (flow.level(record.name) if flow is not None else process_level(record.name))
