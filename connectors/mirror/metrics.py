"""MirrorMaker 2 task metrics, under the names Strimzi's MM2 dashboard queries:
`kafka_connect_mirror_mirrorsourceconnector_*` per remote topic-partition (labels source/target/topic/
partition, plus the offset lag MM2 lacks) and `kafka_connect_mirror_mirrorcheckpointconnector_*` per
group and remote topic-partition. Each task keeps its own figures (aggregated per poll batch, not per
record) and registers them on its context; the runtime reads them when `/metrics` is scraped.

Invariants of the source task's figures:
- every partition assigned to the task has its count, rate and lag series from the moment the task
  starts (0 until records flow), as Java's MirrorSourceMetrics registers every assigned partition when
  the task starts: a restarted task whose partitions are already caught up still shows them (the series
  of a flow whose task restarted after topic discovery used to vanish until new records came);
- the offset lag is the source's end offset minus the next offset not yet acknowledged by the target,
  read when scraped, for every assigned partition whether or not records arrive: the end offset is the
  newest high watermark the task's consumers know (librdkafka updates it from every fetch response,
  also while the task is paused or blocked on its target), never going back; `detach()` ends those
  reads before the consumers close. librdkafka stops fetching a partition whose local queue is full
  (queued.max.messages.kbytes), so behind a backlog that large the lag shown stops growing at that point
  until the task drains the queue: it is a lower bound there, never an overstatement.
The source connector itself counts the remote topics it deleted or kept after their source topic
was deleted (`..._topic_deletions_total`, `..._topic_deletions_refused_total`, labels source/target).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from pyconnect.api.metrics import MetricSample, TaskMetrics

_P = "kafka_connect_mirror_mirrorsourceconnector_"
_CHECKPOINT_P = "kafka_connect_mirror_mirrorcheckpointconnector_"
_CHECKPOINT = _CHECKPOINT_P + "checkpoint_latency_ms"
_AGE = "Age of records when polled (ms)."
_LATENCY = "Record timestamp to target ack (ms)."
_SUFFIXES = ("", "_min", "_max", "_avg")
# (low, high) watermarks of a source partition as its consumer last saw them (-1: not known yet).
EndOffsets = Callable[[str, int], tuple[int, int]]


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
    source_topic: str = ""
    next_offset: int = -1  # the next source offset the target has not acknowledged (-1: not known yet)
    end_offset: int = -1  # the newest high watermark seen
    newest_ts: int = 0
    record_rate: float = 0.0
    byte_rate: float = 0.0
    window: list[tuple[float, int, int]] = field(default_factory=list)
    # The samples the last scrape built and the figures they show: a partition whose figures did not move
    # (every idle one) hands the same samples to the next scrape instead of building 5-13 new ones.
    shown: tuple[float, ...] = ()
    samples: list[MetricSample] = field(default_factory=list)


_NOT_COPIED = ("window", "shown", "samples")


class SourceMetrics:
    """Per-partition statistics of one MirrorSource task; `samples()` is what a scrape reads."""

    def __init__(self, source: str, target: str, registry: TaskMetrics | None = None) -> None:
        self.source, self.target = source, target
        self._stats: dict[tuple[str, int], PartitionStats] = {}
        self._lock = threading.Lock()
        self._last_publish = 0.0
        # The partitions `publish` has to look at: counters moved since their last window entry, or a rate
        # not yet back at 0. An idle partition at rate 0 leaves it, so an idle task's publish touches none.
        self._moving: set[tuple[str, int]] = set()
        self._end_offsets: EndOffsets | None = None
        if registry is not None:
            registry.register(self.samples)

    def assign(self, partitions: Sequence[tuple[str, str, int, int]], end_offsets: EndOffsets) -> None:
        """The task's partitions as (source topic, remote topic, partition, next offset or -1), each with
        its series from now on, and where their end offsets are read (see the module's invariants)."""
        with self._lock:
            for source_topic, remote, partition, next_offset in partitions:
                st = self._get(remote, partition)
                st.source_topic, st.next_offset = source_topic, next_offset
            self._end_offsets = end_offsets

    def detach(self) -> None:
        """The consumers are about to close: no more end-offset reads (the last lags stay)."""
        with self._lock:
            self._end_offsets = None

    def _get(self, topic: str, partition: int) -> PartitionStats:
        key = (topic, partition)
        st = self._stats.get(key)
        if st is None:
            st = self._stats[key] = PartitionStats()
        self._moving.add(key)  # every caller is about to move its counters (or it is new: a first window entry)
        return st

    def polled(self, topic: str, partition: int, nbytes: int, oldest_ts: int, newest_ts: int) -> None:
        now = time.time() * 1000
        with self._lock:
            st = self._get(topic, partition)
            st.bytes += nbytes
            if newest_ts > 0:
                st.newest_ts = newest_ts
                st.age_last = now - newest_ts
                st.age_min = min(st.age_min, st.age_last)
                st.age_max = max(st.age_max, now - oldest_ts)
                st.age_sum += st.age_last
                st.age_n += 1

    def acked(self, topic: str, partition: int, count: int, timestamp: int, next_offset: int) -> None:
        """The target acknowledged `count` records of the partition, up to source offset `next_offset` - 1."""
        with self._lock:
            st = self._get(topic, partition)
            st.records += count
            st.next_offset = max(st.next_offset, next_offset)
            if timestamp > 0:
                lat = time.time() * 1000 - timestamp
                st.lat_last = lat
                st.lat_min = min(st.lat_min, lat)
                st.lat_max = max(st.lat_max, lat)
                st.lat_sum += lat
                st.lat_n += 1

    def snapshot(self) -> dict[tuple[str, int], PartitionStats]:
        with self._lock:
            return {k: PartitionStats(**{f: getattr(v, f) for f in v.__dataclass_fields__ if f not in _NOT_COPIED})
                    for k, v in self._stats.items()}

    def publish(self, force: bool = False) -> None:
        """Update the rates (records and bytes per second over the last 30 s); the task calls this on
        every poll, and it samples the counters at most once a second."""
        now = time.monotonic()
        if not force and now - self._last_publish < 1.0:
            return
        self._last_publish = now
        with self._lock:
            for key in list(self._moving):
                st = self._stats[key]
                if st.record_rate == 0.0 and st.byte_rate == 0.0 and st.window and st.window[-1][1:] == (
                        st.records, st.bytes):
                    self._moving.discard(key)  # idle and already at rate 0: nothing to update until it moves
                    continue
                st.window.append((now, st.records, st.bytes))
                while len(st.window) > 2 and now - st.window[0][0] > 30:
                    st.window.pop(0)
                t0, r0, b0 = st.window[0]
                span = now - t0
                st.record_rate = (st.records - r0) / span if span > 0 else 0.0
                st.byte_rate = (st.bytes - b0) / span if span > 0 else 0.0

    def samples(self) -> list[MetricSample]:
        """The task's series, for the scrape (called on the scraping thread)."""
        out: list[MetricSample] = []
        with self._lock:
            for (topic, partition), st in self._stats.items():
                lag = self._lag(partition, st)
                shown = (st.records, st.record_rate, st.bytes, st.byte_rate, lag, st.age_n, st.age_last, st.age_min,
                         st.age_max, st.age_sum, st.newest_ts, st.lat_n, st.lat_last, st.lat_min, st.lat_max,
                         st.lat_sum)
                if shown != st.shown:
                    st.shown, st.samples = shown, list(self._partition_samples(topic, partition, st, lag))
                out += st.samples
        return out

    def _lag(self, partition: int, st: PartitionStats) -> int:
        """End offset - next unacknowledged offset (under the lock); 0 while either is unknown."""
        if self._end_offsets is not None and st.source_topic:
            low, high = self._end_offsets(st.source_topic, partition)
            st.end_offset = max(st.end_offset, high)
            if st.next_offset < 0 and high >= 0:
                # Nothing acknowledged and no committed position: from the log start if known, else
                # from where the watermark was first seen (auto.offset.reset=latest).
                st.next_offset = low if low >= 0 else high
            st.next_offset = max(st.next_offset, low)
        if st.end_offset < 0 or st.next_offset < 0:
            return 0
        return max(0, st.end_offset - st.next_offset)

    def _partition_samples(self, topic: str, partition: int, st: PartitionStats, lag: int) -> Iterator[MetricSample]:
        labels = {"source": self.source, "target": self.target, "topic": topic, "partition": str(partition)}
        for name, doc, value in (
                ("record_count", "Records replicated (acknowledged by the target).", st.records),
                ("record_rate", "Records replicated per second.", st.record_rate),
                ("byte_count", "Value bytes replicated.", st.bytes),
                ("byte_rate", "Value bytes replicated per second.", st.byte_rate),
                ("offset_lag", "Records on the source not yet replicated (end offset - next unacknowledged offset).",
                 lag)):
            yield MetricSample(_P + name, doc, labels, value)
        if st.age_n:
            for suffix, value in zip(_SUFFIXES, (st.age_last, st.age_min, st.age_max, st.age_sum / st.age_n),
                                     strict=True):
                yield MetricSample(_P + "record_age_ms" + suffix, _AGE, labels, value)
        if st.newest_ts and (topic == "heartbeats" or topic.endswith(".heartbeats")):
            parts = topic.split(".")  # "heartbeats" (identity policy) or "<origin>.heartbeats"
            yield MetricSample(_P + "heartbeat_timestamp_seconds", "Timestamp of the newest heartbeat copied from "
                               "the upstream cluster (s since the epoch).",
                               {**labels, "upstream": parts[-2] if len(parts) > 1 else self.source},
                               st.newest_ts / 1000)
        if st.lat_n:
            for suffix, value in zip(_SUFFIXES, (st.lat_last, st.lat_min, st.lat_max, st.lat_sum / st.lat_n),
                                     strict=True):
                yield MetricSample(_P + "replication_latency_ms" + suffix, _LATENCY, labels, value)


class CheckpointMetrics:
    """Checkpoint latency (creation to acknowledgement) per group and remote topic-partition of one
    MirrorCheckpoint task; when each group's checkpoints were last brought up to date, and the emit
    interval (for the alert on stale checkpoints)."""

    def __init__(self, source: str, target: str, registry: TaskMetrics | None = None, interval: float = 60.0) -> None:
        self.source, self.target, self.interval = source, target, interval
        self._stats: dict[tuple[str, str, int], tuple[float, float, float, float, int]] = {}
        self._current: dict[str, float] = {}
        self._lock = threading.Lock()
        if registry is not None:
            registry.register(self.samples)

    def acked(self, group: str, topic: str, partition: int, latency: float) -> None:
        """Kafka acknowledged a checkpoint `latency` ms after it was created."""
        with self._lock:
            _last, low, high, total, n = self._stats.get((group, topic, partition), (0.0, latency, latency, 0.0, 0))
            self._stats[(group, topic, partition)] = (latency, min(low, latency), max(high, latency),
                                                      total + latency, n + 1)

    def current(self, group: str) -> None:
        """The group's checkpoints are up to date now (new ones emitted, or none needed)."""
        with self._lock:
            self._current[group] = time.time()

    def samples(self) -> list[MetricSample]:
        """The task's series, for the scrape (called on the scraping thread)."""
        with self._lock:
            stats, current = list(self._stats.items()), list(self._current.items())
        flow = {"source": self.source, "target": self.target}
        out = [MetricSample(_CHECKPOINT_P + "emit_interval_seconds", "Seconds between checkpoint emissions: "
                            "emit.checkpoints.interval.seconds rounded up to whole consumer.poll.timeout.ms.", flow,
                            self.interval)]
        out += [MetricSample(_CHECKPOINT_P + "checkpoint_timestamp_seconds", "When the group's checkpoints were "
                             "last brought up to date (s since the epoch).", {**flow, "group": group}, at)
                for group, at in current]
        for (group, topic, partition), (last, low, high, total, n) in stats:
            labels = {"source": self.source, "target": self.target, "group": group, "topic": topic,
                      "partition": str(partition)}
            for suffix, value in zip(_SUFFIXES, (last, low, high, total / n), strict=True):
                out.append(MetricSample(_CHECKPOINT + suffix,
                                        "Time from checkpoint creation to its acknowledgement (ms).", labels, value))
        return out


class TopicDeletionMetrics:
    """Remote topics a MirrorSource connector deleted after their source topic went, and those it kept
    (refused to delete), counted since the connector started (`sync.topic.deletions.enabled`)."""

    DELETED = _P + "topic_deletions_total"
    REFUSED = _P + "topic_deletions_refused_total"

    def __init__(self, source: str, target: str, registry: TaskMetrics | None = None) -> None:
        self.source, self.target = source, target
        self.deleted = 0
        self.refused = 0
        if registry is not None:
            registry.register(self.samples)

    def samples(self) -> list[MetricSample]:
        """The connector's two series (plain ints: read without a lock)."""
        labels = {"source": self.source, "target": self.target}
        return [MetricSample(self.DELETED, "Remote topics deleted because their source topic was deleted.",
                             labels, self.deleted),
                MetricSample(self.REFUSED, "Remote topics kept although their source topic was deleted "
                             "(not created by this flow's ledger, or holding other writers' records).",
                             labels, self.refused)]
