"""MirrorSource metrics per remote topic-partition, under the names Strimzi's MM2 dashboard queries
(`kafka_connect_mirror_mirrorsourceconnector_*`, labels source/target/topic/partition), plus the
offset lag MM2 lacks. Values are aggregated per poll batch, not per record."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from prometheus_client import Gauge

_P = "kafka_connect_mirror_mirrorsourceconnector_"
_LABELS = ["source", "target", "topic", "partition"]
RECORD_COUNT = Gauge(_P + "record_count", "Records replicated (acknowledged by the target).", _LABELS)
RECORD_RATE = Gauge(_P + "record_rate", "Records replicated per second.", _LABELS)
BYTE_COUNT = Gauge(_P + "byte_count", "Value bytes replicated.", _LABELS)
BYTE_RATE = Gauge(_P + "byte_rate", "Value bytes replicated per second.", _LABELS)
RECORD_AGE = {s: Gauge(_P + "record_age_ms" + s, "Age of records when polled (ms).", _LABELS)
              for s in ("", "_min", "_max", "_avg")}
LATENCY = {s: Gauge(_P + "replication_latency_ms" + s, "Record timestamp to target ack (ms).", _LABELS)
           for s in ("", "_min", "_max", "_avg")}
OFFSET_LAG = Gauge(_P + "offset_lag", "Records on the source not yet replicated (high watermark - next offset).",
                   _LABELS)


@dataclass
class PartitionStats:
    records: int = 0
    bytes: int = 0
    age_last: float = 0.0
    age_min: float = float("inf")
    age_max: float = 0.0
    age_sum: float = 0.0
    age_n: int = 0
    lat_last: float = 0.0
    lat_min: float = float("inf")
    lat_max: float = 0.0
    lat_sum: float = 0.0
    lat_n: int = 0
    lag: int = 0
    window: list[tuple[float, int, int]] = field(default_factory=list)


class SourceMetrics:
    """Collects per-partition statistics; `publish()` copies them to the Prometheus gauges."""

    def __init__(self, source: str, target: str) -> None:
        self.source, self.target = source, target
        self._stats: dict[tuple[str, int], PartitionStats] = {}
        self._lock = threading.Lock()
        self._last_publish = 0.0

    def _get(self, topic: str, partition: int) -> PartitionStats:
        st = self._stats.get((topic, partition))
        if st is None:
            st = self._stats[(topic, partition)] = PartitionStats()
        return st

    def polled(self, topic: str, partition: int, nbytes: int, oldest_ts: int, newest_ts: int, lag: int) -> None:
        now = time.time() * 1000
        with self._lock:
            st = self._get(topic, partition)
            st.bytes += nbytes
            if newest_ts > 0:
                st.age_last = now - newest_ts
                st.age_min = min(st.age_min, st.age_last)
                st.age_max = max(st.age_max, now - oldest_ts)
                st.age_sum += st.age_last
                st.age_n += 1
            st.lag = max(0, lag)

    def acked(self, topic: str, partition: int, count: int, timestamp: int) -> None:
        with self._lock:
            st = self._get(topic, partition)
            st.records += count
            if timestamp > 0:
                lat = time.time() * 1000 - timestamp
                st.lat_last = lat
                st.lat_min = min(st.lat_min, lat)
                st.lat_max = max(st.lat_max, lat)
                st.lat_sum += lat
                st.lat_n += 1

    def snapshot(self) -> dict[tuple[str, int], PartitionStats]:
        with self._lock:
            return {k: PartitionStats(**{f: getattr(v, f) for f in v.__dataclass_fields__ if f != "window"})
                    for k, v in self._stats.items()}

    def publish(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_publish < 1.0:
            return
        self._last_publish = now
        with self._lock:
            for (topic, partition), st in self._stats.items():
                labels = (self.source, self.target, topic, str(partition))
                st.window.append((now, st.records, st.bytes))
                while len(st.window) > 2 and now - st.window[0][0] > 30:
                    st.window.pop(0)
                t0, r0, b0 = st.window[0]
                span = now - t0
                RECORD_COUNT.labels(*labels).set(st.records)
                BYTE_COUNT.labels(*labels).set(st.bytes)
                RECORD_RATE.labels(*labels).set((st.records - r0) / span if span > 0 else 0.0)
                BYTE_RATE.labels(*labels).set((st.bytes - b0) / span if span > 0 else 0.0)
                OFFSET_LAG.labels(*labels).set(st.lag)
                if st.age_n:
                    for suffix, value in (("", st.age_last), ("_min", st.age_min), ("_max", st.age_max),
                                          ("_avg", st.age_sum / st.age_n)):
                        RECORD_AGE[suffix].labels(*labels).set(value)
                if st.lat_n:
                    for suffix, value in (("", st.lat_last), ("_min", st.lat_min), ("_max", st.lat_max),
                                          ("_avg", st.lat_sum / st.lat_n)):
                        LATENCY[suffix].labels(*labels).set(value)
