"""The ledger of the remote topics one flow replicates into, and whether it created them:
`mm2-remote-topics.<source>.internal`, a compacted one-partition topic on the target cluster (see
connectors.mirror.topic_deletions for why it lives there).

Key: the remote topic's name (UTF-8). Value: JSON `{"source": alias, "topic": source topic,
"created": bool, "syncs.from": offset, "recorded.ms": time}`. `created` is true only when this flow's
CreateTopics made the topic; `syncs.from` is the offset-syncs topic's end offset taken before that:
every sync of this incarnation of the remote topic is at or after it. A null value (tombstone) means
the flow deleted the topic, so the name is no longer the flow's. Records that do not decode, or lack
`created`, are skipped or read as not created: they can only make the flow keep a topic.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass

import orjson

from pyconnect.kafka.admin import Admin, TopicSpec
from pyconnect.kafka.topic_log import KafkaLog

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LedgerEntry:
    """One ledger entry: the flow replicates `source_topic` of cluster `source` into `remote`, which it
    created (`created`) or found existing."""

    remote: str
    source: str
    source_topic: str
    created: bool
    syncs_from: int
    recorded_ms: int

    def value(self) -> bytes:
        return orjson.dumps({"source": self.source, "topic": self.source_topic, "created": self.created,
                             "syncs.from": self.syncs_from, "recorded.ms": self.recorded_ms})

    @classmethod
    def decode(cls, key: bytes, value: bytes) -> LedgerEntry:
        data = orjson.loads(value)
        return cls(key.decode("utf-8"), str(data["source"]), str(data["topic"]), data.get("created") is True,
                   int(data["syncs.from"]), int(data["recorded.ms"]))


class RemoteTopicsLedger:
    """Read at start, then kept in memory and written through (one connector instance runs a flow at a
    time; a new instance reads everything the previous one wrote)."""

    def __init__(self, admin: Admin, topic: str, replication_factor: int, source_alias: str,
                 producer_conf: Mapping[str, str], consumer_conf: Mapping[str, str]) -> None:
        self.topic, self.source = topic, source_alias
        admin.ensure_compacted_topic(TopicSpec(topic, 1, replication_factor, {"cleanup.policy": "compact"}),
                                     exact_partitions=True)
        self._entries: dict[str, LedgerEntry] = {}
        self._lock = threading.Lock()
        self._log = KafkaLog(topic, 1, producer_conf, consumer_conf)
        self._log.start(self._on_record)

    def _on_record(self, key: bytes | None, value: bytes | None, _partition: int, offset: int) -> None:
        if not key:
            return
        name = key.decode("utf-8", errors="replace")
        with self._lock:
            if value is None:
                self._entries.pop(name, None)
                return
            try:
                entry = LedgerEntry.decode(key, value)
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("skipping malformed record at offset %d of %s (key %s): %s", offset, self.topic, name,
                            exc)
                return
            if entry.source == self.source:
                self._entries[name] = entry

    def entries(self) -> dict[str, LedgerEntry]:
        """Remote topic -> its entry, for every topic the flow replicates into and has not deleted."""
        with self._lock:
            return dict(self._entries)

    def record(self, remote: str, source_topic: str, created: bool, syncs_from: int) -> None:
        """The flow has just created `remote`, or replicates into it although it existed (written and
        acknowledged before this returns)."""
        entry = LedgerEntry(remote, self.source, source_topic, created, syncs_from, int(time.time() * 1000))
        self._log.send(remote.encode(), entry.value()).result(30)
        with self._lock:
            self._entries[remote] = entry

    def forget(self, remote: str) -> None:
        """The flow deleted `remote`, or it is gone: a tombstone."""
        self._log.send(remote.encode(), None).result(30)
        with self._lock:
            self._entries.pop(remote, None)

    def stop(self) -> None:
        self._log.stop()
