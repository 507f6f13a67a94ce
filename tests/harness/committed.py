"""What a read_committed consumer must see, computed from the log's transaction markers.

Tansu 0.6.0 writes correct COMMIT/ABORT control batches and honours the last stable offset, but its
Fetch responses always carry an empty `aborted_transactions` list (hard-coded in its fetch.rs, for
every storage engine, checked against memory:// and s3://), so a real client's read_committed still
delivers records of aborted transactions. This reader works around that broker bug for assertions
only: it fetches raw record batches (Fetch v4, isolation READ_COMMITTED, up to the LSO), finds the
offsets of data batches whose transaction ended in an ABORT marker, and drops those offsets from
what the client consumed. On Apache Kafka the list it drops is empty-handed work: the client already
filtered them.
"""

from __future__ import annotations

import socket
import struct
import time

from confluent_kafka import Consumer, KafkaError, TopicPartition

from tests.harness.kafka_io import Record, partition_count, read_all

_ABORT = 0


def recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("broker closed the connection")
        buf += chunk
    return buf


def uvarint(buf: bytes, pos: int) -> tuple[int, int]:
    """An unsigned varint (Kafka's flexible-version fields): (value, position after it)."""
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    """A zig-zag varint (record fields)."""
    value, pos = uvarint(buf, pos)
    return (value >> 1) ^ -(value & 1), pos


def _fetch(sock: socket.socket, topic: str, partition: int, offset: int, corr: int) -> bytes:
    """One Fetch v4 (read_committed) of one partition; the records bytes of the answer."""
    t = topic.encode()
    body = struct.pack(">iiiib", -1, 100, 1, 1 << 20, 1) + struct.pack(">ih", 1, len(t)) + t
    body += struct.pack(">iiqi", 1, partition, offset, 1 << 20)
    msg = struct.pack(">hhih", 1, 4, corr, 7) + b"harness" + body
    sock.sendall(struct.pack(">i", len(msg)) + msg)
    data = recv_exact(sock, struct.unpack(">i", recv_exact(sock, 4))[0])
    pos = 8 + 4  # correlation id, throttle time, topic count
    (name_len,) = struct.unpack_from(">h", data, pos)
    pos += 2 + name_len + 4 + 4  # topic name, partition count, partition id
    (error,) = struct.unpack_from(">h", data, pos)
    if error:
        raise RuntimeError(f"fetch of {topic}-{partition} failed with error code {error}")
    pos += 2 + 8 + 8  # error, high watermark, last stable offset
    (aborted,) = struct.unpack_from(">i", data, pos)
    pos += 4 + 16 * max(aborted, 0)
    (size,) = struct.unpack_from(">i", data, pos)
    return data[pos + 4:pos + 4 + max(size, 0)]


def record_batches(data: bytes) -> list[tuple[int, int, int, bool, bool, int | None]]:
    """(first offset, last offset, producer id, transactional, control, control type) per whole batch."""
    out, pos = [], 0
    while pos + 12 <= len(data):
        base, length = struct.unpack_from(">qi", data, pos)
        if pos + 12 + length > len(data):
            break
        _e, _m, _c, attrs, delta, _t0, _t1, pid = struct.unpack_from(">ibIhiqqq", data, pos + 12)
        kind = None
        if attrs & 0x20:  # control batches are never compressed: the key is int16 version, int16 type
            rec = _varint(data, pos + 12 + 49)[1] + 1  # first record: its length, then attributes (int8)
            rec = _varint(data, _varint(data, rec)[1])[1]  # timestamp delta, offset delta
            kind = struct.unpack_from(">hh", data, _varint(data, rec)[1])[1]  # after the key length
        out.append((base, base + delta, pid, bool(attrs & 0x10), bool(attrs & 0x20), kind))
        pos += 12 + length
    return out


def aborted_offsets(address: str, topic: str, partition: int) -> set[int]:
    """Offsets of records in aborted transactions, below the partition's last stable offset."""
    host, port = address.rsplit(":", 1)
    open_txn: dict[int, list[tuple[int, int]]] = {}
    aborted: set[int] = set()
    offset, corr = 0, 0
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        while True:
            corr += 1
            batches = record_batches(_fetch(sock, topic, partition, offset, corr))
            if not batches:
                return aborted
            for first, last, pid, transactional, control, kind in batches:
                if control:
                    members = open_txn.pop(pid, [])
                    if kind == _ABORT:
                        aborted.update(o for a, b in members for o in range(a, b + 1))
                elif transactional:
                    open_txn.setdefault(pid, []).append((first, last))
            offset = batches[-1][1] + 1


def read_committed(bootstrap: str, topic: str, idle: float = 1.5, timeout: float = 60.0) -> list[Record]:
    """Every record a correct read_committed consumer sees (see the module docstring)."""
    records = read_all(bootstrap, topic, idle, timeout, isolation="read_committed")
    address = bootstrap.split(",")[0]
    aborted = {p: aborted_offsets(address, topic, p) for p in range(partition_count(bootstrap, topic))}
    return [r for r in records if r[1] not in aborted.get(r[0], set())]


def stuck_transactions(bootstrap: str, topic: str, wait: float = 5.0) -> str:
    """The partitions where a read_committed reader stops short of the high watermark (a transaction that
    stays open holds the last stable offset back), each with where it stops and the last record there: a
    failure message's evidence, when readers of a topic written in transactions never reach its end."""
    partitions = partition_count(bootstrap, topic)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"stuck-{time.monotonic_ns()}",
                         "isolation.level": "read_committed", "enable.auto.commit": False,
                         "fetch.wait.max.ms": 50, "enable.partition.eof": True})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    stops: dict[int, int] = {}
    deadline = time.monotonic() + wait
    try:
        while time.monotonic() < deadline and len(stops) < partitions:  # an end-of-partition event from each
            for m in consumer.consume(1000, 0.2):
                error = m.error()
                if error is not None and error.code() == KafkaError._PARTITION_EOF:
                    stops[m.partition() or 0] = m.offset() or 0
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), cached=True)[1] for p in range(partitions)}
    finally:
        consumer.close()
    everything = read_all(bootstrap, topic, 1.0, isolation="read_uncommitted")
    last = {p: records[-1] for p, records in _by_partition(everything).items()}
    stuck = [f"{topic}-{p}: read_committed stops at {stops.get(p, 0)} of {end}, last record {last.get(p)}"
             for p, end in ends.items() if stops.get(p, 0) < end]
    return "; ".join(stuck) or f"every partition of {topic} is readable to its end"


def _by_partition(records: list[Record]) -> dict[int, list[Record]]:
    out: dict[int, list[Record]] = {}
    for record in sorted(records, key=lambda r: (r[0], r[1])):
        out.setdefault(record[0], []).append(record)
    return out
