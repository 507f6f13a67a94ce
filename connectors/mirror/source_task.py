"""MirrorSourceTask: copy assigned source partitions to their remote topics, emitting offset syncs.

Consumed messages go to the runtime as they are, in runs per partition (no Python object per
record); partition maps and remote names are cached, and metrics and offset syncs are updated per run.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

from connectors.mirror.config import SOURCE, MirrorConfig
from connectors.mirror.fetch_pool import FetchPool, fetch_defaults
from connectors.mirror.formats import OffsetSync
from connectors.mirror.metrics import SourceMetrics
from connectors.mirror.offset_sync_writer import OffsetSyncWriter
from connectors.mirror.poll_wait import slices
from connectors.mirror.provenance import ProvenanceFilter, applies
from connectors.mirror.schema_records import rewriter_for
from connectors.mirror.session_sizing import parse_sessions, session_count
from pyconnect.api import MessageRun, MessageRunTask
from pyconnect.kafka.client_stats import ClientStats
from pyconnect.kafka.clients import OFFSET_BEGINNING, OFFSET_END, new_consumer, new_producer, produce
from pyconnect.kafka.errors import error_text, is_partition_eof
from pyconnect.kafka.round_trip import round_trip

log = logging.getLogger(__name__)
_CONSUMER_SEQ = itertools.count()  # the tasks' consumers get distinct client ids (their metrics' label)


def parse_partitions(value: str) -> list[tuple[str, int]]:
    """`task.assigned.partitions`: comma-joined `topic-partition`, split at the last '-'."""
    out = []
    for item in value.split(","):
        item = item.strip()
        if item:
            topic, _, partition = item.rpartition("-")
            out.append((topic, int(partition)))
    return out


def source_partition(cluster: str, topic: str, partition: int) -> dict[str, Any]:
    # Member order as MM2 writes it (Java HashMap order of these three keys).
    return {"cluster": cluster, "partition": partition, "topic": topic}


class MirrorSourceTask(MessageRunTask):
    """Partition p of a source topic goes to partition p of its remote topic, as runs of messages."""

    def start(self, config: Mapping[str, str]) -> None:
        self.cfg = MirrorConfig(SOURCE, config)
        self.policy = self.cfg.policy()
        self.assigned = parse_partitions(config.get("task.assigned.partitions", ""))
        # A poll waits up to the full timeout for records, as Kafka's; in slices (poll_wait.py) so acks,
        # commits, stop and pause are served meanwhile (Connect does those on other threads; ours is the task's).
        self.poll_timeout = int(self.cfg["consumer.poll.timeout.ms"]) / 1000.0
        self.batch = 10000
        self._stopping = threading.Event()
        self._thread = threading.current_thread()
        self._remote: dict[str, str] = {}
        self._partitions: dict[tuple[str, int], dict[str, Any]] = {}
        self._schemas = rewriter_for(self.cfg.raw)  # schema replication (schema_records.py), before any client
        self.consumer = self._fetch_pool()
        assert self.context is not None
        self._provenance = self._provenance_filters()
        self.metrics = SourceMetrics(self.cfg.source, self.cfg.target, self.context.metrics)
        # Every assigned partition has its series from now on (Java's MirrorSourceMetrics does the same).
        self.metrics.assign([(topic, self._remote[topic], partition, self._start_next[(topic, partition)])
                             for topic, partition in self.assigned], self.consumer.end_offsets)
        for stats in self._consumer_stats:
            self.context.metrics.register(stats.samples)
        self._acked: dict[str, dict[int, tuple[int, int]]] = {}  # remote topic -> partition -> (count, next)
        self._last_ts = 0
        self.sync_producer = None
        self.syncs: OffsetSyncWriter | None = None
        if self.cfg["emit.offset-syncs.enabled"]:
            side = self.cfg.offset_syncs_side()
            self.sync_producer = new_producer({"acks": "all", **self.cfg.client(side, "producer")})
            topic = self.cfg.offset_syncs_topic()
            producer = self.sync_producer

            def send(sync: OffsetSync) -> None:
                produce(producer, topic, sync.value(), key=sync.key(), partition=0, headers=sync.headers())
            self.syncs = OffsetSyncWriter(send, int(self.cfg["offset.lag.max"]))
        log.info("mirroring %d partition(s) %s -> %s", len(self.assigned), self.cfg.source, self.cfg.target)

    def _fetch_pool(self) -> FetchPool:
        """The task's consumers (connectors/mirror/fetch_pool.py), each assigned its share of the partitions
        at the committed positions (or per auto.offset.reset)."""
        # librdkafka postpones a partition's next fetch by fetch.queue.backoff.ms (1 s) once its
        # queue is over the thresholds; a task that drains slower than it fetches then starves.
        user = self.cfg.client("source", "consumer")
        base_conf = {"group.id": f"mm2-{self.cfg.source}-{self.cfg.target}", "fetch.queue.backoff.ms": "20", **user}
        sessions = self._session_count(base_conf)
        consumer_conf = {**base_conf, **fetch_defaults(user, sessions), **user}
        reset = consumer_conf.get("auto.offset.reset", "earliest")
        positions = []
        self._start_next: dict[tuple[str, int], int] = {}  # the next offset to replicate (-1: not known)
        assert self.context is not None
        reader = self.context.offset_storage_reader
        for topic, partition in self.assigned:
            sp = self._partitions[(topic, partition)] = source_partition(self.cfg.source, topic, partition)
            self._remote[topic] = self.policy.format_remote_topic(self.cfg.source, topic)
            committed = reader.offset(sp)
            if committed is not None and int(committed.get("offset", -1)) >= 0:
                positions.append((topic, partition, int(committed["offset"]) + 1))
            else:
                positions.append((topic, partition, OFFSET_END if reset == "latest" else OFFSET_BEGINNING))
            self._start_next[(topic, partition)] = max(-1, positions[-1][2])
        self._consumer_stats: list[ClientStats] = []

        def new_session(index: int, session_conf: Mapping[str, str]) -> Any:
            conf = {**consumer_conf, **session_conf, **user,
                    "client.id": f"{self.cfg.source}->{self.cfg.target}|MirrorSourceConnector|"
                                 f"replication-consumer-{next(_CONSUMER_SEQ)}"}
            if index:  # each session a group of its own (fetch_pool.py's invariants: a Tansu bug otherwise)
                conf["group.id"] = f"{consumer_conf['group.id']}-session-{index}"
            stats = ClientStats("consumer", conf["client.id"])
            self._consumer_stats.append(stats)
            return new_consumer(conf, stats)
        pool = FetchPool(new_session, positions, sessions)
        if sessions > 1:  # a far source (session_sizing.auto_sessions): connect before RUNNING, not at the first fetch
            began = time.monotonic()
            try:
                pool.connect()
            except Exception:
                pool.close()  # the task's start fails (FAILED, with the reason): its consumers do not outlive it
                raise
            log.info("%d fetch session(s) connected to %s in %.2fs", sessions, self.cfg.source,
                     time.monotonic() - began)
        return pool

    def _session_count(self, conf: Mapping[str, str]) -> int:
        """`fetch.sessions`, or for "auto" the count the measured round trip to the source calls for
        (session_sizing.auto_sessions; more sessions than partitions read a partition ahead)."""
        configured = parse_sessions(self.cfg["fetch.sessions"])
        if configured is not None or not self.assigned:
            return session_count(configured, len(self.assigned))
        rtt = round_trip(conf, self.assigned[0][0])
        sessions = session_count(None, len(self.assigned), rtt)
        log.info("round trip to %s: %s; reading %d partition(s) with %d fetch session(s)", self.cfg.source,
                 "unknown" if rtt is None else f"{rtt * 1000:.1f} ms", len(self.assigned), sessions)
        return sessions

    def poll_runs(self) -> list[MessageRun] | None:
        messages = self._wait_for_messages()
        if self.syncs is not None:
            # Partitions quiet for a second get their held-back sync (within their budget), so consumers
            # where producers stopped translate exactly: looked at after every poll and every idle slice
            # (offset_sync_writer, invariants C and Q).
            self.syncs.flush_quiet()
        if not messages:
            self._publish()
            return None
        # librdkafka hands out one fetched partition after another: cut the batch where the
        # partition changes (or at a consumer error, which is not a record).
        runs: list[MessageRun] = []
        start, topic, partition = 0, None, -1
        for i, m in enumerate(messages):
            p = m.partition()
            if p != partition or m.topic() != topic or m.error() is not None:
                if i > start and topic is not None:
                    self._add_runs(runs, topic, partition, messages[start:i])
                start, topic, partition = i, m.topic(), p
                if m.error() is not None:
                    if not is_partition_eof(m.error()):
                        log.warning("consumer error: %s", error_text(m.error()))
                    start, topic, partition = i + 1, None, -1
        if start < len(messages) and topic is not None:
            self._add_runs(runs, topic, partition, messages[start:])
        self._publish()
        return runs

    def _wait_for_messages(self) -> list[Any]:
        """The consumers' next messages, waiting up to consumer.poll.timeout.ms for the first (as
        MirrorSourceTask.poll's consumer.poll); between two slices of the wait, quiet partitions' syncs
        and the metrics go out as they would between two polls."""
        for wait in slices(self.context, self.poll_timeout, self._stopping):
            messages = self.consumer.consume(self.batch, wait)
            if messages:
                return messages
            if self.syncs is not None:
                self.syncs.flush_quiet()
            self._publish()
        return []

    def _add_runs(self, runs: list[MessageRun], topic: str, partition: int, messages: list[Any]) -> None:
        remote = self._remote[topic]
        self.metrics.polled(remote, partition, sum(map(len, messages)), messages[0].timestamp()[1],
                            messages[-1].timestamp()[1])
        sp = self._partitions[(topic, partition)]
        provenance = self._provenance.get(topic)
        if provenance is None and self._schemas is None:  # the hot path: the consumed messages as they are
            runs.append(MessageRun(sp, remote, partition, messages))
            return
        # stamped (provenance) and schema ids rewritten in place; a skipped message ends a run (provenance P5)
        pieces = [messages] if provenance is None else provenance.pieces(messages)
        if self._schemas is not None and not self.policy.is_heartbeats_topic(topic):
            pieces = [p for piece in pieces for p in self._schemas.pieces(topic, remote, piece)]
        runs.extend(MessageRun(sp, remote, partition, piece) for piece in pieces)

    def _provenance_filters(self) -> dict[str, ProvenanceFilter]:
        """The provenance filter of each assigned topic it applies to (none: no cluster is asked anything)."""
        enabled = self.cfg["provenance.headers.enabled"]
        topics = sorted({topic for topic in self._remote if applies(enabled, topic, self._remote[topic])})
        if not topics:
            return {}
        timeout = int(self.cfg["admin.timeout.ms"]) / 1000.0
        ids = [self.cfg.admin(side).cluster_id(timeout) for side in ("source", "target")]
        provenance = ProvenanceFilter(ids[0], ids[1], int(self.cfg["provenance.max.hops"]))
        log.info("provenance headers on %s: %s (cluster %s) -> %s (cluster %s)", ", ".join(topics),
                 self.cfg.source, ids[0], self.cfg.target, ids[1])
        return dict.fromkeys(topics, provenance)

    def commit_run(self, run: MessageRun, first_offset: int, last_offset: int) -> None:
        sp = run.source_partition
        if self.syncs is not None:
            self.syncs.record_run(sp["topic"], sp["partition"], run.messages, first_offset, last_offset)
        acked = self._acked.get(run.topic)
        if acked is None:
            acked = self._acked[run.topic] = {}
        last = run.messages[-1]
        acked[run.partition] = (acked.get(run.partition, (0, 0))[0] + len(run.messages), last.offset() + 1)
        self._last_ts = last.timestamp()[1]

    def _publish(self) -> None:
        for topic, counts in self._acked.items():
            for partition, (count, next_offset) in counts.items():
                self.metrics.acked(topic, partition, count, self._last_ts, next_offset)
        self._acked.clear()
        self.metrics.publish()
        if self.sync_producer is not None:
            self.sync_producer.poll(0)

    def commit(self) -> None:
        if self.syncs is not None:
            # The final commit sends every held-back sync (a stopped task's positions are exact); the
            # periodic ones leave them to the quiet rule, which keeps the sync budget.
            if self._stopping.is_set():
                self.syncs.flush_pending()
            else:
                self.syncs.flush_quiet()
        if self.sync_producer is None:
            return
        if self._stopping.is_set():
            self.sync_producer.flush(10)  # the final commit: a stopped task's last syncs are on Kafka
        else:
            # Not waited for, as Java's MirrorSourceTask sends them (OffsetSyncWriter: send, no flush): the syncs'
            # topic is on the source cluster, so waiting held the task for a round trip to it at every offset
            # commit (a far source: 100-200 ms each), and for up to 10 s when that cluster is slow.
            self.sync_producer.poll(0)

    def stop(self) -> None:
        stopping = getattr(self, "_stopping", None)
        if stopping is None:
            return  # stopped before start
        stopping.set()
        if threading.current_thread() is not getattr(self, "_thread", None):
            return  # signalled from another thread: the task thread closes the consumer
        if getattr(self, "metrics", None) is None:  # start() failed part-way: close what it opened
            consumer = getattr(self, "consumer", None)
            if consumer is not None:
                consumer.close()
            return
        self._publish()
        if self.syncs is not None:
            self.syncs.flush_pending()  # and those of records acknowledged later, in the runner's final commit()
        self.metrics.detach()  # a scrape reads the consumers' watermarks: not once they are closed
        self.consumer.close()
