"""MM2's binary record layouts (compat-spec §C.4), byte for byte.

Kafka protocol types: INT16/32/64 big-endian, STRING = INT16 length + UTF-8 bytes.
Heartbeats and checkpoints carry a leading INT16 version (0) in the value; offset syncs do not.

Our offset syncs may carry one record header, `CONTIGUOUS_SINCE` (two INT64: upstream, downstream of
an earlier sync). Key and value stay Java's bytes, and Java's readers ignore headers, so a Java
checkpoint task reads our syncs as its own (see offset_sync_store for what the header promises).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_I64x2 = struct.Struct(">qq")
VERSION = 0
CONTIGUOUS_SINCE = "replikafka.contiguous-since"
Headers = list[tuple[str, bytes | None]]


def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    return _I16.pack(len(data)) + data


class _Reader:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0

    def i16(self) -> int:
        (v,) = _I16.unpack_from(self.data, self.pos)
        self.pos += 2
        return int(v)

    def i32(self) -> int:
        (v,) = _I32.unpack_from(self.data, self.pos)
        self.pos += 4
        return int(v)

    def i64(self) -> int:
        (v,) = _I64.unpack_from(self.data, self.pos)
        self.pos += 8
        return int(v)

    def string(self) -> str:
        n = self.i16()
        if n < 0:
            return ""
        text = self.data[self.pos:self.pos + n].decode("utf-8")
        self.pos += n
        return text


@dataclass(frozen=True, slots=True)
class OffsetSync:
    """upstream offset U in source topic-partition maps to downstream offset D.

    `since` is the (upstream, downstream) of the previous sync of the same writer for this partition
    when that writer copied every record in between one by one, both offsets advancing together, and
    synced every gap (see offset_sync_store). It is provenance, not part of the mapping: it travels in
    a header and takes no part in equality.
    """

    topic: str
    partition: int
    upstream_offset: int
    downstream_offset: int
    since: tuple[int, int] | None = field(default=None, compare=False)

    def key(self) -> bytes:
        return _string(self.topic) + _I32.pack(self.partition)

    def value(self) -> bytes:
        return _I64x2.pack(self.upstream_offset, self.downstream_offset)

    def headers(self) -> Headers | None:
        return None if self.since is None else [(CONTIGUOUS_SINCE, _I64x2.pack(*self.since))]

    @classmethod
    def decode(cls, key: bytes, value: bytes, headers: Headers | None = None) -> OffsetSync:
        k = _Reader(key)
        topic, partition = k.string(), k.i32()
        upstream, downstream = _I64x2.unpack_from(value, 0)
        return cls(topic, partition, int(upstream), int(downstream), _since(headers))


def _since(headers: Headers | None) -> tuple[int, int] | None:
    for name, raw in headers or ():
        if name == CONTIGUOUS_SINCE and raw is not None and len(raw) == _I64x2.size:
            up, down = _I64x2.unpack(raw)
            return int(up), int(down)
    return None


@dataclass(frozen=True, slots=True)
class Checkpoint:
    group: str
    topic: str  # the target-side (remote) topic name
    partition: int
    upstream_offset: int
    downstream_offset: int
    metadata: str = ""

    def key(self) -> bytes:
        return _string(self.group) + _string(self.topic) + _I32.pack(self.partition)

    def value(self) -> bytes:
        return (_I16.pack(VERSION) + _I64x2.pack(self.upstream_offset, self.downstream_offset)
                + _string(self.metadata))

    @classmethod
    def decode(cls, key: bytes, value: bytes) -> Checkpoint:
        k = _Reader(key)
        group, topic, partition = k.string(), k.string(), k.i32()
        v = _Reader(value)
        v.i16()  # version
        upstream, downstream = v.i64(), v.i64()
        return cls(group, topic, partition, upstream, downstream, v.string())


@dataclass(frozen=True, slots=True)
class Heartbeat:
    source_cluster_alias: str
    target_cluster_alias: str
    timestamp: int

    def key(self) -> bytes:
        return _string(self.source_cluster_alias) + _string(self.target_cluster_alias)

    def value(self) -> bytes:
        return _I16.pack(VERSION) + _I64.pack(self.timestamp)

    @classmethod
    def decode(cls, key: bytes, value: bytes) -> Heartbeat:
        k = _Reader(key)
        source, target = k.string(), k.string()
        v = _Reader(value)
        v.i16()
        return cls(source, target, v.i64())
