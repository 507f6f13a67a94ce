"""An independent reader and writer of the state Java MirrorMaker 2 keeps in Kafka.

Written from Kafka's source, not from this project's decoders (it imports nothing from `connectors/`,
`pyconnect/` or `replikafka/`): it is the check on them. Each encoding follows the Kafka file named:

- Source offsets, `mm2-offsets.<source>.internal` (on the target): connect/runtime/.../storage/
  OffsetStorageWriter.java (doFlush: key = the JSON converter, schemas off, of `[connector, partition
  map]`; value = JSON of the offset map) and KafkaOffsetBackingStore.java (the latest record per key *bytes*
  wins; a null value removes the key); OffsetUtils.java (processPartitionKey: what a key must look like).
  The partition maps are java.util.HashMaps, written by Jackson in HashMap iteration order
  (`java_hashmap_order`): MirrorUtils.java wrapPartition {topic, partition, cluster} and wrapOffset
  {"offset": n}; mirror-client Checkpoint.java connectPartition {group, topic, partition}; Heartbeat.java
  connectPartition {sourceClusterAlias, targetClusterAlias}; checkpoint and heartbeat offsets are
  wrapOffset(0) (MirrorCheckpointTask.checkpointRecord, MirrorHeartbeatTask.poll). MirrorSourceTask.java
  (initializeConsumer / loadOffset) resumes a partition at its stored offset + 1.
- Config topic, `mm2-configs.<source>.internal`: KafkaConfigBackingStore.java: `connector-<name>`
  {"properties": {...}} (CONNECTOR_CONFIGURATION_V0), `task-<name>-<n>` (TASK_CONFIGURATION_V0),
  `commit-<name>` {"tasks": n} (CONNECTOR_TASKS_COMMIT_V0), `target-state-<name>` {"state", "state.v2"}
  (TARGET_STATE_V1, serializeTargetState: STOPPED is written as PAUSED in "state"). The connector names
  are the classes' simple names (MirrorHerder.java maybeConfigureConnector, MirrorMakerConfig.java
  connectorBaseConfig).
- Status topic, `mm2-status.<source>.internal`: KafkaStatusBackingStore.java: `status-connector-<name>`,
  `status-task-<name>-<n>`, value {"state", "trace", "worker_id", "generation"} (STATUS_SCHEMA_V0).
- Offset syncs, `mm2-offset-syncs.<target>.internal` (on the source, partition 0): OffsetSync.java,
  KEY_SCHEMA (STRING topic, INT32 partition) and VALUE_SCHEMA (INT64 upstreamOffset, INT64 offset).
  Which syncs Java writes: OffsetSyncWriter.java (`JavaOffsetSyncWriter` below).
- Checkpoints, `<source>.checkpoints.internal` (on the target, partition 0): mirror-client Checkpoint.java,
  KEY_SCHEMA (STRING group, STRING topic, INT32 partition), HEADER_SCHEMA (INT16 version = 0) then
  VALUE_SCHEMA_V0 (INT64 upstreamOffset, INT64 offset, STRING metadata).
Kafka protocol types (clients/.../protocol/types/Type.java): big-endian INT16/32/64, STRING = INT16
length + UTF-8.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from typing import Any

SOURCE_CONNECTOR = "MirrorSourceConnector"
CHECKPOINT_CONNECTOR = "MirrorCheckpointConnector"
HEARTBEAT_CONNECTOR = "MirrorHeartbeatConnector"
CONNECTOR_NAMES = (SOURCE_CONNECTOR, CHECKPOINT_CONNECTOR, HEARTBEAT_CONNECTOR)
CONNECTOR_CLASS = {name: f"org.apache.kafka.connect.mirror.{name}" for name in CONNECTOR_NAMES}


# Java collections and Jackson ---------------------------------------------------------------------

def java_string_hash(text: str) -> int:
    """String.hashCode (over UTF-16 code units), as a signed 32-bit int."""
    h = 0
    for unit in struct.unpack(f">{len(text.encode('utf-16-be')) // 2}H", text.encode("utf-16-be")):
        h = (31 * h + unit) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def java_hashmap_order(keys: list[str]) -> list[str]:
    """The iteration order of a java.util.HashMap holding `keys` put in this order: by bucket
    (`(h ^ h >>> 16) & (capacity - 1)`, capacity 16 doubled past a 0.75 load), then insertion order."""
    capacity = 16
    while len(keys) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: str) -> int:
        h = java_string_hash(key) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)
    return sorted(keys, key=bucket)  # sorted() is stable: insertion order within a bucket


def java_map(entries: dict[str, Any]) -> dict[str, Any]:
    """A dict in the order a HashMap with `entries` (put in this order) iterates."""
    return {k: entries[k] for k in java_hashmap_order(list(entries))}


def jackson(value: Any) -> bytes:
    """Jackson's compact output, as Connect's JsonConverter writes schemaless maps and lists."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# Kafka protocol types ----------------------------------------------------------------------------

def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack(">h", len(data)) + data


class _Buffer:
    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def take(self, fmt: str) -> Any:
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return value

    def string(self) -> str:
        n = self.take(">h")
        text = self.data[self.pos:self.pos + n].decode("utf-8")
        self.pos += n
        return str(text)

    def done(self) -> None:
        if self.pos != len(self.data):
            raise ValueError(f"{len(self.data) - self.pos} byte(s) left over after the schema")


# Connect offsets ---------------------------------------------------------------------------------

def source_partition(cluster: str, topic: str, partition: int) -> dict[str, Any]:
    """MirrorUtils.wrapPartition: put topic, partition, cluster into a HashMap."""
    return java_map({"topic": topic, "partition": partition, "cluster": cluster})


def checkpoint_partition(group: str, topic: str, partition: int) -> dict[str, Any]:
    """Checkpoint.connectPartition (topic: the remote topic name)."""
    return java_map({"group": group, "topic": topic, "partition": partition})


def heartbeat_partition(source: str, target: str) -> dict[str, Any]:
    """Heartbeat.connectPartition."""
    return java_map({"sourceClusterAlias": source, "targetClusterAlias": target})


def offset_key(connector: str, partition: dict[str, Any]) -> bytes:
    """OffsetStorageWriter.doFlush: the key is `[namespace (the connector name), partition]`."""
    return jackson([connector, partition])


def offset_value(offset: int) -> bytes:
    """MirrorUtils.wrapOffset."""
    return jackson({"offset": offset})


@dataclass
class OffsetsTopic:
    """KafkaOffsetBackingStore's view of an offsets topic: key bytes -> value bytes, latest wins."""

    data: dict[bytes, bytes] = field(default_factory=dict)

    def apply(self, key: bytes | None, value: bytes | None) -> None:
        if key is None:
            return
        if value is None:
            self.data.pop(key, None)
        else:
            self.data[key] = value

    def offset(self, connector: str, partition: dict[str, Any]) -> int | None:
        """OffsetStorageReaderImpl.offset + MirrorUtils.unwrapOffset: found by the key's exact bytes."""
        raw = self.data.get(offset_key(connector, partition))
        if raw is None:
            return None
        value = json.loads(raw)
        return int(value["offset"]) if isinstance(value, dict) and value.get("offset") is not None else None

    def resume_position(self, cluster: str, topic: str, partition: int) -> int | None:
        """Where MirrorSourceTask.initializeConsumer seeks: stored offset + 1 (None: not committed, so the
        consumer's auto.offset.reset decides)."""
        stored = self.offset(SOURCE_CONNECTOR, source_partition(cluster, topic, partition))
        return None if stored is None or stored < 0 else stored + 1

    def entries(self) -> list[tuple[str, dict[str, Any], Any]]:
        """(connector, partition, offset value) of every key OffsetUtils.processPartitionKey accepts."""
        out = []
        for key, value in self.data.items():
            decoded = json.loads(key)
            if (isinstance(decoded, list) and len(decoded) == 2 and isinstance(decoded[0], str)
                    and isinstance(decoded[1], dict)):
                out.append((decoded[0], decoded[1], json.loads(value)))
        return out


# Config and status topics ------------------------------------------------------------------------

def connector_config_record(name: str, props: dict[str, str]) -> tuple[bytes, bytes]:
    return f"connector-{name}".encode(), jackson({"properties": java_map(props)})


def task_config_record(name: str, task: int, props: dict[str, str]) -> tuple[bytes, bytes]:
    return f"task-{name}-{task}".encode(), jackson({"properties": java_map(props)})


def task_commit_record(name: str, tasks: int) -> tuple[bytes, bytes]:
    return f"commit-{name}".encode(), jackson({"tasks": tasks})


def target_state_record(name: str, state: str) -> tuple[bytes, bytes]:
    """serializeTargetState: older workers read "state", so STOPPED goes there as PAUSED."""
    return f"target-state-{name}".encode(), jackson({"state": "PAUSED" if state == "STOPPED" else state,
                                                     "state.v2": state})


def status_record(key: str, state: str, worker_id: str, generation: int, trace: str | None = None
                  ) -> tuple[bytes, bytes]:
    """`key` is `status-connector-<name>` or `status-task-<name>-<n>`."""
    return key.encode(), jackson({"state": state, "trace": trace, "worker_id": worker_id,
                                  "generation": generation})


@dataclass
class ConfigTopic:
    """What KafkaConfigBackingStore keeps of a config topic (connectors, target states, tasks)."""

    connectors: dict[str, dict[str, Any]] = field(default_factory=dict)
    target_states: dict[str, str] = field(default_factory=dict)
    task_counts: dict[str, int] = field(default_factory=dict)

    def apply(self, key: bytes | None, value: bytes | None) -> None:
        text = (key or b"").decode()
        body = json.loads(value) if value is not None else None
        for prefix, table, field_name in (("connector-", self.connectors, "properties"),
                                          ("target-state-", self.target_states, "state.v2"),
                                          ("commit-", self.task_counts, "tasks")):
            if text.startswith(prefix):
                name = text[len(prefix):]
                if body is None:
                    table.pop(name, None)
                else:
                    table[name] = body.get(field_name) if field_name != "state.v2" else (
                        body.get("state.v2") or body["state"])
                return


# Offset syncs ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class OffsetSync:
    topic: str
    partition: int
    upstream_offset: int
    downstream_offset: int

    def key(self) -> bytes:
        return _string(self.topic) + struct.pack(">i", self.partition)

    def value(self) -> bytes:
        return struct.pack(">qq", self.upstream_offset, self.downstream_offset)

    @classmethod
    def decode(cls, key: bytes, value: bytes) -> OffsetSync:
        k, v = _Buffer(key), _Buffer(value)
        topic, partition = k.string(), k.take(">i")
        upstream, downstream = v.take(">q"), v.take(">q")
        k.done()
        v.done()
        return cls(topic, partition, upstream, downstream)


class JavaOffsetSyncWriter:
    """OffsetSyncWriter's choice of the syncs it sends, without the producer.

    `record` is MirrorSourceTask.commitRecord (maybeQueueOffsetSyncs, then firePendingOffsetSyncs);
    `commit` is MirrorSourceTask.commit (promoteDelayedOffsetSyncs, firePendingOffsetSyncs). A sync that
    PartitionState.update does not mark urgent waits in `delayed`, replaced by the partition's next one
    (the merging), until the next commit. At most `in_flight` syncs are outstanding; sends complete
    only when `acknowledge` is called (tests call it after every step to model a fast broker)."""

    def __init__(self, max_offset_lag: int = 100, in_flight: int = 10) -> None:
        self.max_offset_lag = max_offset_lag
        self.states: dict[tuple[str, int], list[int]] = {}  # prev up, prev down, last sync down, should
        self.delayed: dict[tuple[str, int], OffsetSync] = {}
        self.pending: dict[tuple[str, int], OffsetSync] = {}
        self.in_flight = self.permits = in_flight
        self.sent: list[OffsetSync] = []

    def _update(self, tp: tuple[str, int], upstream: int, downstream: int) -> bool:
        state = self.states.setdefault(tp, [-1, -1, -1, 0])
        prev_up, prev_down, last_sync_down, _ = state
        if (last_sync_down == -1 or downstream - (last_sync_down + 1) >= self.max_offset_lag
                or upstream - prev_up != 1 or downstream < prev_down):
            state[2], state[3] = downstream, 1
        state[0], state[1] = upstream, downstream
        return bool(state[3])

    def maybe_queue(self, topic: str, partition: int, upstream: int, downstream: int) -> None:
        """OffsetSyncWriter.maybeQueueOffsetSyncs."""
        tp = (topic, partition)
        sync = OffsetSync(topic, partition, upstream, downstream)
        if self._update(tp, upstream, downstream):
            self.delayed.pop(tp, None)
            self.pending[tp] = sync  # LinkedHashMap.put: an existing key keeps its place
            self.states[tp][3] = 0  # PartitionState.reset
        else:
            self.delayed[tp] = sync

    def promote(self) -> None:
        """OffsetSyncWriter.promoteDelayedOffsetSyncs: a delayed sync replaces a pending one."""
        self.pending.update(self.delayed)
        self.delayed.clear()

    def fire(self) -> None:
        """OffsetSyncWriter.firePendingOffsetSyncs: send while permits last, oldest partition first."""
        while self.pending and self.permits > 0:
            tp = next(iter(self.pending))
            self.permits -= 1
            self.sent.append(self.pending.pop(tp))

    def record(self, topic: str, partition: int, upstream: int, downstream: int) -> None:
        """MirrorSourceTask.commitRecord."""
        self.maybe_queue(topic, partition, upstream, downstream)
        self.fire()

    def commit(self) -> None:
        """MirrorSourceTask.commit."""
        self.promote()
        self.fire()

    def acknowledge(self) -> None:
        """Every sync sent so far is acknowledged: the producer callbacks release their permits."""
        self.permits = self.in_flight


# Checkpoints -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Checkpoint:
    group: str
    topic: str  # the remote (target-side) topic
    partition: int
    upstream_offset: int
    downstream_offset: int
    metadata: str = ""

    def key(self) -> bytes:
        return _string(self.group) + _string(self.topic) + struct.pack(">i", self.partition)

    def value(self) -> bytes:
        return struct.pack(">hqq", 0, self.upstream_offset, self.downstream_offset) + _string(self.metadata)

    @classmethod
    def decode(cls, key: bytes, value: bytes) -> Checkpoint:
        k, v = _Buffer(key), _Buffer(value)
        group, topic, partition = k.string(), k.string(), k.take(">i")
        version = v.take(">h")
        if version != 0:
            raise ValueError(f"checkpoint value version {version}: Checkpoint.valueSchema knows only 0")
        upstream, downstream, metadata = v.take(">q"), v.take(">q"), v.string()
        k.done()
        v.done()
        return cls(group, topic, partition, upstream, downstream, metadata)
