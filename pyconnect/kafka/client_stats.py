"""Client metrics from librdkafka's statistics, under the Java client's names (as the JMX exporter
Strimzi uses writes them): `kafka_consumer_*`, `kafka_producer_*`, labelled by client id (`clientid`).

A client built with a `ClientStats` (clients.py) emits its statistics every `STATS_INTERVAL_MS`;
librdkafka hands them over inside the client's own poll/consume call, on the thread that polls, as one
JSON document. `on_stats` maps it once to a tuple of samples and replaces the previous tuple (read
by the scraping thread without a lock); nothing happens per record.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from pyconnect.api.metrics import MetricSample

log = logging.getLogger(__name__)

STATS_INTERVAL_MS = "5000"

# Java metric name suffix, HELP text, librdkafka top-level statistic (totals over all brokers).
_TOTALS = {
    "consumer": (("incoming_byte_total", "Bytes received from the brokers.", "rx_bytes"),
                 ("outgoing_byte_total", "Bytes sent to the brokers.", "tx_bytes"),
                 ("request_total", "Requests sent to the brokers.", "tx"),
                 ("response_total", "Responses received from the brokers.", "rx"),
                 ("fetch_manager_records_consumed_total", "Records consumed.", "rxmsgs"),
                 ("fetch_manager_bytes_consumed_total", "Record bytes consumed.", "rxmsg_bytes")),
    "producer": (("incoming_byte_total", "Bytes received from the brokers.", "rx_bytes"),
                 ("outgoing_byte_total", "Bytes sent to the brokers.", "tx_bytes"),
                 ("request_total", "Requests sent to the brokers.", "tx"),
                 ("response_total", "Responses received from the brokers.", "rx"),
                 ("record_send_total", "Records sent.", "txmsgs"),
                 ("byte_total", "Record bytes sent.", "txmsg_bytes")),
}


class ClientStats:
    """The newest statistics of one client (`role`: producer or consumer), as metric samples."""

    def __init__(self, role: str, client_id: str) -> None:
        self.role = role
        # Zeros until the first statistics: a client's series exist from its start, not 5 s later.
        self._samples: tuple[MetricSample, ...] = tuple(client_samples(role, {"client_id": client_id}))

    def on_stats(self, payload: str) -> None:
        """librdkafka's `stats_cb`: map the JSON document (a broken one is ignored)."""
        try:
            self._samples = tuple(client_samples(self.role, orjson.loads(payload)))
        except (ValueError, TypeError, KeyError, AttributeError):
            log.debug("unreadable client statistics", exc_info=True)

    def samples(self) -> tuple[MetricSample, ...]:
        """What the last statistics said."""
        return self._samples


def client_samples(role: str, stats: Mapping[str, Any]) -> Iterator[MetricSample]:
    """The Java client metrics librdkafka's statistics document `stats` gives."""
    prefix = f"kafka_{role}_"
    labels = {"clientid": str(stats.get("client_id", ""))}
    for suffix, doc, key in _TOTALS.get(role, ()):
        yield MetricSample(prefix + suffix, doc, labels, float(stats.get(key, 0)))
    brokers = [b for b in stats.get("brokers", {}).values() if b.get("nodeid", -1) >= 0]
    yield MetricSample(prefix + "connection_count", "Open broker connections.", labels,
                       sum(1 for b in brokers if b.get("state") == "UP"))
    if role == "producer":
        size, limit = float(stats.get("msg_size", 0)), float(stats.get("msg_size_max", 0))
        yield MetricSample(prefix + "buffer_total_bytes", "Local queue capacity (bytes).", labels, limit)
        yield MetricSample(prefix + "buffer_available_bytes", "Local queue space left (bytes).", labels,
                           max(0.0, limit - size))
        yield MetricSample(prefix + "record_queue_count", "Records in the local queue.", labels,
                           float(stats.get("msg_cnt", 0)))
    elif role == "consumer":
        yield from _lag_samples(prefix, labels, stats)


def _lag_samples(prefix: str, labels: Mapping[str, str], stats: Mapping[str, Any]) -> Iterator[MetricSample]:
    """Per assigned partition: high watermark minus the next offset handed to the application (Java's
    records-lag, position based); and the client's highest (`records_lag_max`)."""
    name, highest = prefix + "fetch_manager_records_lag", 0.0
    for topic, t in stats.get("topics", {}).items():
        for p, part in t.get("partitions", {}).items():
            high, position = part.get("hi_offset", -1), part.get("app_offset", -1)
            if position < 0:  # nothing handed out yet: where the next fetch starts
                position = part.get("next_offset", -1)
            if int(p) < 0 or high < 0 or position < 0 or part.get("fetch_state") in (None, "none", "stopped"):
                continue
            lag = float(max(0, high - position))
            highest = max(highest, lag)
            yield MetricSample(name, "Records between the consumer's position and the high watermark.",
                               {**labels, "topic": topic, "partition": str(p)}, lag)
    yield MetricSample(name + "_max", "Highest records lag of the client's partitions.", labels, highest)
