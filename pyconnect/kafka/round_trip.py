"""The round trip to a cluster, measured before a task chooses how many clients (fetch sessions) to spread
its partitions over.

How: a client with the task's own settings for that cluster (so the same listeners, TLS and SASL: the
given client, or a short-lived probe consumer) asks for one topic's metadata WARM_UPS times, which
opens and warms its connection (TCP, ApiVersions, any handshake), then up to SAMPLES more times, for at
most SAMPLE_BUDGET seconds (but at least MIN_SAMPLES times); the round trip is the fastest of those samples.
A metadata request is small and answered from the broker's memory, so its time is the link's round trip
plus a broker's turnaround, never less than the round trip.

Invariants:
- the estimate errs high, not low (a busy broker adds time; nothing removes any): a LAN may read as a
  little further than it is, which the callers' LAN thresholds absorb;
- a failed or timed-out probe reports None, and callers then keep one client (as on a LAN): a task
  never fails to start because its link could not be measured;
- measuring reads and writes nothing and joins no group; a probe consumer is closed before it returns.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from confluent_kafka import KafkaException

from pyconnect.kafka.clients import KafkaClientError, new_consumer

log = logging.getLogger(__name__)

WARM_UPS = 1  # the first request pays the connection's set-up: not a round trip of the link
SAMPLES = 5  # the fastest of a few: one slow answer from a busy broker must not decide the estimate
# Between samples: on a loaded machine a broker's turnaround comes in stretches of scheduling delay (loopback
# probes of 14-40 ms were seen under a parallel test run, against 0.1-0.4 ms quiet); samples spread over ~50 ms
# do not all fall in one stretch. Costs a task of several partitions ~50 ms once, at start.
SAMPLE_GAP = 0.012
# Sampling stops once it has taken this long: a far link's samples are all about its round trip, and five in a
# row cost a task 1 s of start-up at 200 ms; a LAN's five take ~60 ms and are all taken (SAMPLE_GAP's reason).
SAMPLE_BUDGET = 0.15
# ...but not before two: librdkafka sends the first request after the warm-up to the broker the metadata named,
# on a connection of its own (the bootstrap one is separate), so that sample pays ApiVersions too: 2 round trips
# (seen: 205 ms through a 100 ms link).
MIN_SAMPLES = 2


def client_round_trip(client: Any, topic: str, timeout: float = 10.0) -> float | None:
    """Seconds of one request's round trip, measured with an existing client (a consumer or producer whose
    connection may still be cold: the first request warms it); None when it could not be measured."""
    try:
        best: float | None = None
        sampling_since = 0.0
        for i in range(WARM_UPS + SAMPLES):
            began = time.perf_counter()
            if i == WARM_UPS:
                sampling_since = began
            client.list_topics(topic, timeout=timeout)
            took = time.perf_counter() - began
            if i >= WARM_UPS:
                best = took if best is None else min(best, took)
                if time.perf_counter() - sampling_since >= SAMPLE_BUDGET and i + 1 - WARM_UPS >= MIN_SAMPLES:
                    break
                time.sleep(SAMPLE_GAP)  # why: see SAMPLE_GAP
        return best
    except KafkaException as exc:  # the task's own clients will report the cluster's state
        log.warning("could not measure the round trip to the cluster of %s: %s", topic, exc)
        return None


def round_trip(conf: Mapping[str, str], topic: str, timeout: float = 10.0) -> float | None:
    """Seconds of one request's round trip to the cluster `conf` (a consumer's settings) names, measured with
    a probe consumer of its own; None when it could not be measured."""
    try:
        probe = new_consumer({**conf, "client.id": f"{conf.get('client.id', 'task')}-rtt-probe"})
    except KafkaClientError as exc:  # the task's own consumer will name the setting that is wrong
        log.warning("could not measure the round trip to %s: %s", conf.get("bootstrap.servers"), exc)
        return None
    try:
        return client_round_trip(probe, topic, timeout)
    finally:
        probe.close()
