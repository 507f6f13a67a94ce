"""Worker settings of Connect that this worker does not implement, and the values it can honour.

A Connect worker file copied here may carry them. Each is accepted only with a value that means what
this worker does anyway (its Connect default, or the behaviour it has); any other value stops the worker
at start with `file:line: key: reason`, so that no setting is accepted and then ignored.

Invariant: every key listed here is also a key of the worker's ConfigDef (so `/validate`-style listings
and the typed settings keep it), and the runtime never reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# pyconnect.plugins.ENTRY_POINT_GROUP (a sibling layer, so named here rather than imported).
PLUGINS_ARE_PYTHON = ("plugins are Python packages, not JARs: a connector is a Python class registered under the "
                      "'pyconnect.plugins' entry-point group of a package installed in this worker's Python "
                      "environment (pip install it), or named by its Python path (package.module:Class) in "
                      "connector.class")


@dataclass(frozen=True)
class Unimplemented:
    """A worker key and the values (stripped, lower case) that need nothing from the runtime."""

    accepted: frozenset[str]
    reason: str


_SYNC = "not implemented: a worker reads the config topic to its end before it runs an assignment; remove the setting"
_CORS = "not implemented: the REST API sends no CORS headers; remove the setting"

UNIMPLEMENTED: dict[str, Unimplemented] = {
    "plugin.path": Unimplemented(frozenset({""}), f"not supported: {PLUGINS_ARE_PYTHON}; remove plugin.path"),
    "config.storage.partitions": Unimplemented(
        frozenset({"1"}), "the config topic always has exactly 1 partition (Connect requires it); remove the "
                          "setting or set 1"),
    "scheduled.rebalance.max.delay.ms": Unimplemented(
        frozenset({"0"}), "not implemented: the tasks of a worker that leaves move as soon as its session "
                          "times out (as with 0); remove the setting or set 0"),
    "connect.protocol": Unimplemented(
        frozenset({"sessioned"}), "not implemented: workers coordinate through the membership topic, not "
                                  "Kafka's group protocols; remove the setting or set sessioned"),
    "rebalance.timeout.ms": Unimplemented(
        frozenset({"60000"}), "not implemented: assignments follow the membership topic (see session.timeout.ms "
                              "and heartbeat.interval.ms); remove the setting"),
    "worker.sync.timeout.ms": Unimplemented(frozenset({"3000"}), _SYNC),
    "worker.unsync.backoff.ms": Unimplemented(frozenset({"300000"}), _SYNC),
    "access.control.allow.origin": Unimplemented(frozenset({""}), _CORS),
    "access.control.allow.methods": Unimplemented(frozenset({""}), _CORS),
}


def unimplemented_error(values: Mapping[str, str]) -> tuple[str, str] | None:
    """`(key, reason)` of the first key set to a value this worker cannot honour, else None."""
    for key, value in values.items():
        entry = UNIMPLEMENTED.get(key)
        if entry is not None and value.strip().lower() not in entry.accepted:
            return key, f"{value!r}: {entry.reason}"
    return None
