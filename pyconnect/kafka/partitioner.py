"""Java's default partitioner for keyed records: `toPositive(murmur2(key)) % partitions`.

Connect writes its offsets topic with the Java producer, so an offset record's partition is that of
murmur2 on its key; a Python writer must choose the same partition, or a reader of the topic could see
an older offset of the same key after a newer one (compaction and last-wins reads are per partition).
librdkafka's `murmur2_random` partitioner does the same, but only for the producer it is configured on;
this function lets a producer with another partitioner (a task's) write offset records.
"""

from __future__ import annotations

_M = 0x5BD1E995
_MASK = 0xFFFFFFFF
_SEED = 0x9747B28C


def murmur2(data: bytes) -> int:
    """Kafka's `Utils.murmur2`: a signed 32-bit hash."""
    length = len(data)
    h = (_SEED ^ length) & _MASK
    whole = length - length % 4
    for i in range(0, whole, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * _M) & _MASK
        k ^= k >> 24
        k = (k * _M) & _MASK
        h = (h * _M) & _MASK
        h ^= k
    tail = length % 4
    if tail == 3:
        h ^= data[whole + 2] << 16
    if tail >= 2:
        h ^= data[whole + 1] << 8
    if tail >= 1:
        h ^= data[whole]
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def java_partition(key: bytes, partitions: int) -> int:
    """The partition Java's default partitioner picks for a record with this key."""
    return (murmur2(key) & 0x7FFFFFFF) % partitions
