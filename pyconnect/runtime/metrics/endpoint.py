"""The process's Prometheus endpoint (`/metrics`, started by `start_endpoint`) and the registry it serves.

Each worker registers its own collector (`pyconnect.runtime.metrics.worker_metrics`), which reads the worker's
state when the endpoint is scraped. In dedicated MirrorMaker mode several workers (one per flow) run
in one process and expose the same metric names, told apart by their labels; the text format allows
one HELP/TYPE block per name, so `MergingRegistry` merges the families of equal names.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator

from prometheus_client import REGISTRY, Gauge, start_http_server
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector, CollectorRegistry

log = logging.getLogger(__name__)


class MergingRegistry(CollectorRegistry):
    """A registry whose collectors may yield families of the same name: they are served as one, and
    a series (name and labels) that two collectors both yield is served once (the first)."""

    def collect(self) -> Iterator[Metric]:
        """Every collector's families, those of equal names merged."""
        merged: dict[str, Metric] = {}
        seen: set[tuple[str, frozenset[tuple[str, str]]]] = set()
        for metric in super().collect():
            family = merged.get(metric.name)
            if family is None:
                family = merged[metric.name] = Metric(metric.name, metric.documentation, metric.type, metric.unit)
            for sample in metric.samples:
                key = (sample.name, frozenset(sample.labels.items()))
                if key not in seen:  # a duplicate series would make Prometheus reject the whole scrape
                    seen.add(key)
                    family.samples.append(sample)
        yield from merged.values()


PROCESS_REGISTRY = MergingRegistry()
# The client library's own collectors (process_*, python_gc_*, python_info), as served before.
PROCESS_REGISTRY.register(REGISTRY)
# jvm_threads_current's counterpart (the client library has no thread collector).
Gauge("python_threads", "Live Python threads of the process.",
      registry=PROCESS_REGISTRY).set_function(threading.active_count)
_started: set[int] = set()


def register(collector: Collector) -> None:
    """Serve `collector` from now on (a collector's `describe()` returns [] when it shares names)."""
    PROCESS_REGISTRY.register(collector)


def unregister(collector: Collector) -> None:
    """Stop serving `collector` (its worker stopped); unknown collectors are ignored."""
    with contextlib.suppress(KeyError):
        PROCESS_REGISTRY.unregister(collector)


def start_endpoint(port: int, host: str = "0.0.0.0") -> bool:
    """Serve /metrics on `port` once per process; False (with a warning) if the port is taken."""
    if port in _started:
        return True
    try:
        start_http_server(port, addr=host, registry=PROCESS_REGISTRY)
    except OSError as exc:
        log.warning("metrics endpoint not started on port %d: %s", port, exc)
        return False
    _started.add(port)
    log.info("Prometheus metrics on http://%s:%d/metrics", host, port)
    return True
