"""MirrorSourceTask: copy assigned source partitions to their remote topics, emitting offset syncs.

The per-record path is one tuple (SourceRecord) and one small dict (its offset) per record; the
partition maps, remote names and metrics are cached per partition and updated per batch.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

from connectors.mirror.config import SOURCE, MirrorConfig
from connectors.mirror.metrics import SourceMetrics
from connectors.mirror.offset_sync_writer import OffsetSyncWriter
from pyconnect.api import SourceRecord, SourceTask
from pyconnect.kafka.clients import (
    OFFSET_BEGINNING,
    OFFSET_END,
    KafkaError,
    assign,
    new_consumer,
    new_producer,
    produce,
    watermarks,
)

log = logging.getLogger(__name__)


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


class MirrorSourceTask(SourceTask):
    ordered_partitions = True  # partition p of topic t always goes to partition p of the remote topic

    def start(self, config: Mapping[str, str]) -> None:
        self.cfg = MirrorConfig(SOURCE, config)
        self.policy = self.cfg.policy()
        self.assigned = parse_partitions(config.get("task.assigned.partitions", ""))
        self.poll_timeout = int(self.cfg["consumer.poll.timeout.ms"]) / 1000.0
        self.batch = 10000
        self._stopping = threading.Event()
        self._thread = threading.current_thread()
        consumer_conf = {"group.id": f"mm2-{self.cfg.source}-{self.cfg.target}",
                         **self.cfg.client("source", "consumer")}
        reset = consumer_conf.get("auto.offset.reset", "earliest")
        self.consumer = new_consumer(consumer_conf)
        self._remote: dict[str, str] = {}
        self._partitions: dict[tuple[str, int], dict[str, Any]] = {}
        positions = []
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
        assign(self.consumer, positions)
        self.metrics = SourceMetrics(self.cfg.source, self.cfg.target)
        self._acked: dict[str, dict[int, int]] = {}
        self._last_ts = 0
        self.sync_producer = None
        self.syncs: OffsetSyncWriter | None = None
        if self.cfg["emit.offset-syncs.enabled"]:
            side = self.cfg.offset_syncs_side()
            self.sync_producer = new_producer({"acks": "all", **self.cfg.client(side, "producer")})
            topic = self.cfg.offset_syncs_topic()
            producer = self.sync_producer

            def send(key: bytes, value: bytes) -> None:
                produce(producer, topic, value, key=key, partition=0)
            self.syncs = OffsetSyncWriter(send, int(self.cfg["offset.lag.max"]))
        log.info("mirroring %d partition(s) %s -> %s", len(self.assigned), self.cfg.source, self.cfg.target)

    def poll(self) -> list[SourceRecord] | None:
        if self._stopping.is_set():
            return None
        messages: list[Any] = self.consumer.consume(self.batch, self.poll_timeout)
        if not messages:
            # Caught up: send the held-back syncs now, so consumers at the end of the log (most of
            # them) translate exactly without waiting for the next offset commit.
            if self.syncs is not None:
                self.syncs.flush_pending()
            self._publish()
            return None
        records: list[SourceRecord] = []
        append = records.append
        remote, partitions = self._remote, self._partitions
        nbytes: dict[tuple[str, int], int] = {}
        last: dict[tuple[str, int], Any] = {}
        for m in messages:
            if m.error() is not None:
                if m.error().code() != KafkaError._PARTITION_EOF:
                    log.warning("consumer error: %s", m.error().str())
                continue
            tp = (m.topic(), m.partition())
            value = m.value()
            append(SourceRecord(partitions[tp], {"offset": m.offset()}, remote[tp[0]], value, m.key(), tp[1],
                                m.timestamp()[1], m.headers()))
            nbytes[tp] = nbytes.get(tp, 0) + (len(value) if value else 0)
            last[tp] = m
        first_ts = messages[0].timestamp()[1]
        for tp, m in last.items():
            high = watermarks(self.consumer, tp[0], tp[1])
            self.metrics.polled(remote[tp[0]], tp[1], nbytes[tp], first_ts, m.timestamp()[1], high - m.offset() - 1)
        self._publish()
        return records

    def commit_record(self, record: SourceRecord, partition: int, offset: int) -> None:
        sp = record.source_partition
        if self.syncs is not None:
            self.syncs.record(sp["topic"], sp["partition"], record.source_offset["offset"], offset)
        acked = self._acked.get(record.topic)
        if acked is None:
            acked = self._acked[record.topic] = {}
        acked[partition] = acked.get(partition, 0) + 1
        self._last_ts = record.timestamp or 0

    def _publish(self) -> None:
        for topic, counts in self._acked.items():
            for partition, count in counts.items():
                self.metrics.acked(topic, partition, count, self._last_ts)
        self._acked.clear()
        self.metrics.publish()
        if self.sync_producer is not None:
            self.sync_producer.poll(0)

    def commit(self) -> None:
        if self.syncs is not None:
            self.syncs.flush_pending()
        if self.sync_producer is not None:
            self.sync_producer.flush(10)

    def stop(self) -> None:
        stopping = getattr(self, "_stopping", None)
        if stopping is None:
            return  # stopped before start
        stopping.set()
        if threading.current_thread() is not getattr(self, "_thread", None):
            return  # signalled from another thread: the task thread closes the consumer
        self._publish()
        self.consumer.close()  # held-back syncs go out in the runner's final commit()
