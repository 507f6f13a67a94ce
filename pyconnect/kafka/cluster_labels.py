"""The names operators know clusters by (MM2 aliases, "the worker's cluster"), keyed by bootstrap servers.

librdkafka's log lines name a broker address and an internal client name ("rdkafka#consumer-3"), neither
of which says which of the clusters in a replication flow is in trouble. Code that knows a cluster's name
when it builds a client's settings (a mirror connector's `<side>.cluster.alias`, the worker's config)
labels the bootstrap servers here; a client's log lines are then named by its bootstrap servers' labels.

Invariant: a label, once given, is kept for the process (labels are few: one per cluster alias and one
for the worker's cluster), and `describe` names at most MAX_SHOWN of them, so a line stays short.
"""

from __future__ import annotations

import threading

WORKER_CLUSTER = "the worker's cluster"
MAX_SHOWN = 3

_lock = threading.Lock()
_labels: dict[str, list[str]] = {}


def _key(bootstrap: str) -> str:
    return ",".join(part.strip() for part in bootstrap.split(",") if part.strip())


def label_cluster(bootstrap: str, label: str) -> None:
    """Name the cluster at `bootstrap` (e.g. `alias_label("A")` or WORKER_CLUSTER) in its clients' logs."""
    if not bootstrap or not label:
        return
    with _lock:
        labels = _labels.setdefault(_key(bootstrap), [])
        if label not in labels:
            labels.append(label)


def alias_label(alias: str) -> str:
    """How a cluster alias reads in a sentence: "cluster A"."""
    return f"cluster {alias}"


def describe(bootstrap: str) -> str:
    """The cluster at `bootstrap` as the operator names it: "cluster A", "cluster B and the worker's
    cluster", or "the cluster" when no code has labelled it (the line gives its address anyway)."""
    with _lock:
        labels = list(_labels.get(_key(bootstrap), ()))
    if not labels:
        return "the cluster"
    shown = " and ".join(labels[:MAX_SHOWN])
    return shown if len(labels) <= MAX_SHOWN else f"{shown} and {len(labels) - MAX_SHOWN} more"
