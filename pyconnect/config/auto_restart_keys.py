"""The auto-restart settings (pyconnect/runtime/auto_restart.py has the rules): the worker's keys, with
their defaults, and the connector keys of the same names that override them for one connector (unset:
the worker's value). Here, in the config layer, so the worker's ConfigDef can list them."""

from __future__ import annotations

from typing import Any

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance

ENABLED = "auto.restart.enabled"
MAX_RESTARTS = "auto.restart.max.restarts"
MAX_BACKOFF_MINUTES = "auto.restart.max.backoff.minutes"
UNLIMITED = -1
_GROUP = "Auto restart"


def max_restarts_value(_name: str, value: Any) -> str | None:
    """-1 or at least 1. Not 0: Strimzi makes the first restart whatever maxRestarts says (it has no
    count yet), so 0 would mean 1 there; auto-restart is turned off with `auto.restart.enabled=false`."""
    if value is None or value == UNLIMITED or value >= 1:
        return None
    return "Value must be -1 (no limit) or at least 1 (to turn auto-restart off: auto.restart.enabled=false)"


def max_backoff_value(_name: str, value: Any) -> str | None:
    return None if value is None or value >= 1 else "Value must be at least 1"


#: The worker's keys, at the end of its ConfigDef.
WORKER_KEYS = ConfigDef([
    ConfigKey(ENABLED, ConfigType.BOOLEAN, False, Importance.LOW,
              "Restart FAILED connectors and their FAILED tasks without an operator, with Strimzi's backoff: "
              "at once, then 2, 6, 12, 20, ... minutes after the previous restart (n*n + n after the n-th)."),
    ConfigKey(MAX_RESTARTS, ConfigType.INT, UNLIMITED, Importance.LOW,
              "Restarts at most (-1: no limit, else at least 1), then the connector stays FAILED for an "
              "operator. The count is reset once the connector has not failed for longer than the next backoff.",
              validator=max_restarts_value),
    ConfigKey(MAX_BACKOFF_MINUTES, ConfigType.INT, 60, Importance.LOW,
              "The longest wait between two restarts, in minutes (Strimzi's maxBackoffMinutes).",
              validator=max_backoff_value),
])

#: The connector's keys (unset: the worker's setting), part of every connector's ConfigDef.
CONNECTOR_KEYS = ConfigDef([
    ConfigKey(ENABLED, ConfigType.BOOLEAN, None, Importance.LOW, group=_GROUP, order=1,
              documentation="Restart this connector and its tasks when they FAIL (unset: the worker's "
              "auto.restart.enabled)."),
    ConfigKey(MAX_RESTARTS, ConfigType.INT, None, Importance.LOW, group=_GROUP, order=2,
              documentation="Restarts at most, -1 for no limit (unset: the worker's auto.restart.max.restarts).",
              validator=max_restarts_value),
    ConfigKey(MAX_BACKOFF_MINUTES, ConfigType.INT, None, Importance.LOW, group=_GROUP, order=3,
              documentation="The longest wait between restarts in minutes (unset: the worker's "
              "auto.restart.max.backoff.minutes).", validator=max_backoff_value),
])
