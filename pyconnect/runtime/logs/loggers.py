"""Log levels by logger name, in log4j terms (what /admin/loggers speaks), over Python logging.

These functions change the process's own levels (a worker alone in its process: distributed mode);
`pyconnect.runtime.logs.flow_loggers` keeps levels per flow when one process runs several workers.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Protocol

from pyconnect.runtime.results import LoggerLevel

LEVELS = {"TRACE": 5, "DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING,
          "ERROR": logging.ERROR, "FATAL": logging.CRITICAL, "OFF": logging.CRITICAL + 10}
_NAMES = {v: k for k, v in LEVELS.items()}
_lock = threading.Lock()
_modified: dict[str, int] = {}


def level_name(level: int) -> str:
    return _NAMES.get(level) or logging.getLevelName(level)


def _known() -> dict[str, logging.Logger]:
    return {n: lg for n, lg in logging.root.manager.loggerDict.items() if isinstance(lg, logging.Logger)}


def describe(name: str) -> LoggerLevel | None:
    """The level of one logger and when it was set, or None if no such logger exists."""
    if name != "root" and name not in _known():
        return None
    logger = logging.getLogger() if name == "root" else logging.getLogger(name)
    return LoggerLevel(level_name(logger.getEffectiveLevel()), _modified.get(name))


def all_levels() -> dict[str, LoggerLevel]:
    """Loggers with an explicit level, plus root (as Connect lists them)."""
    out = {"root": describe("root")}
    for name, logger in sorted(_known().items()):
        if logger.level != logging.NOTSET:
            out[name] = describe(name)
    return {k: v for k, v in out.items() if v is not None}


def set_level(namespace: str, level: str) -> list[str]:
    """Set `namespace` and every logger below it; return the affected names. Raises KeyError."""
    value = LEVELS[level.upper()]
    now = int(time.time() * 1000)
    with _lock:
        affected = [n for n in _known() if n == namespace or n.startswith(namespace + ".")]
        target = logging.getLogger() if namespace == "root" else logging.getLogger(namespace)
        target.setLevel(value)
        if namespace not in affected:
            affected.append(namespace)
        for name in affected:
            logging.getLogger(name).setLevel(value)
            _modified[name] = now
    return sorted(affected)


class LogLevels(Protocol):
    """The levels one worker reads and changes (REST `/admin/loggers`, `logger-cluster-*` records)."""

    def describe(self, name: str) -> LoggerLevel | None:
        """The level of one logger and when it was set, or None if no such logger exists."""

    def all_levels(self) -> dict[str, LoggerLevel]:
        """Loggers with an explicit level, plus root."""

    def set_level(self, namespace: str, level: str) -> list[str]:
        """Set `namespace` and every logger below it; return the affected names. Raises KeyError."""

    def close(self) -> None:
        """The worker stopped: levels that were its own go."""


class ProcessLevels:
    """The process's own levels, for the worker of a distributed-mode process."""

    def describe(self, name: str) -> LoggerLevel | None:
        """As the module's `describe`."""
        return describe(name)

    def all_levels(self) -> dict[str, LoggerLevel]:
        """As the module's `all_levels`."""
        return all_levels()

    def set_level(self, namespace: str, level: str) -> list[str]:
        """As the module's `set_level`."""
        return set_level(namespace, level)

    def close(self) -> None:
        """Nothing: the process's levels outlive its worker."""


PROCESS = ProcessLevels()
