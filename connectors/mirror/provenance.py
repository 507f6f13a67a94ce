"""Provenance headers: prefix-free active/active replication without loops.

Every record a provenance-enabled flow copies carries a header `replikafka.provenance` naming the
cluster the record was first written to (its origin) and every cluster it was copied to since, in
order. The value is ASCII text, version 1:

    1;<origin>;<cluster>[,<cluster>...]

- `1` is the format version; any other version is not this format.
- Every cluster is named by its Kafka cluster id (DescribeCluster / metadata), not by an MM2 alias:
  an alias is local to one mm2.properties and two deployments may name one cluster differently (or
  two clusters alike), while the cluster id is the broker's own, the same for every reader.
  A cluster id is 1..64 characters of `[A-Za-z0-9_-]` (Kafka's are 22-character base64url UUIDs).
- The path lists the clusters the record was copied to, 1..MAX_HOPS of them; its last entry is the
  cluster that holds this copy. No cluster appears twice in `origin + path`.

Invariants:
P1 (strict parsing) A header value is provenance only if it matches the format exactly (version,
   three fields, id syntax, path length, no repeated cluster); anything else is data: it is copied
   unchanged and never causes a record to be skipped.
P2 (a header speaks for its own copy only) Provenance read from cluster S counts only when its path
   ends at S: a valid header on a record that our mirror did not write to S (a producer that
   forwarded headers, a Java MM2 hop) is data as in P1.
P3 (skip) A flow S->T skips a record whose provenance (the last `replikafka.provenance` header,
   when P1 and P2 hold) names T as its origin or on its path, or already lists `max_hops` copies.
   Each copy's path is its source's path plus one cluster not on it, so a record's copies along any
   route visit distinct clusters: loops are impossible in any topology (rings, meshes, chains).
P4 (stamp) Every copy ends with a provenance header of ours, valid, its path ending at T: the record's
   own provenance extended by T, replacing it; or, when it had none that counts, a new one (origin S,
   path T) appended after all the headers it had, which are kept in order as data.
P5 (exact offsets) A skipped record ends its run, like a record a transform drops: its upstream
   offset is a gap for the offset-sync writer, which syncs at every gap, so translation of offsets
   around and inside skipped ranges stays exact (offset_sync_writer, offset_sync_store).
P6 (cost) Topics the feature does not apply to (`applies`) get no per-record work at all; on the
   others, a decision is parsed once per distinct header value (cached), not once per record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

HEADER = "replikafka.provenance"
VERSION = 1
MAX_HOPS = 32
_ID = rb"[A-Za-z0-9_-]{1,64}"
_FORMAT = re.compile(rb"1;(" + _ID + rb");(" + _ID + rb"(?:," + _ID + rb"){0,%d})" % (MAX_HOPS - 1))
_ID_TEXT = re.compile(_ID.decode())


def valid_cluster_id(cluster_id: str) -> bool:
    """Whether `cluster_id` can be named in a provenance header."""
    return _ID_TEXT.fullmatch(cluster_id) is not None


@dataclass(frozen=True)
class Provenance:
    """Where a record copy comes from: its origin cluster and the clusters it was copied to, in order."""

    origin: str
    path: tuple[str, ...]

    def __post_init__(self) -> None:
        clusters = (self.origin, *self.path)
        if not all(isinstance(c, str) and valid_cluster_id(c) for c in clusters):
            raise ValueError(f"invalid cluster id in provenance {clusters!r}")
        if not 1 <= len(self.path) <= MAX_HOPS:
            raise ValueError(f"a provenance path has 1..{MAX_HOPS} clusters, not {len(self.path)}")
        if len(set(clusters)) != len(clusters):
            raise ValueError(f"a cluster appears twice in provenance {clusters!r}")

    @property
    def hops(self) -> int:
        return len(self.path)

    @property
    def holder(self) -> str:
        """The cluster that holds the copy this provenance was written on."""
        return self.path[-1]

    def visited(self, cluster: str) -> bool:
        return cluster == self.origin or cluster in self.path

    def extended(self, cluster: str) -> Provenance:
        """This provenance after one more copy, to `cluster` (raises ValueError where P1 would fail)."""
        return Provenance(self.origin, (*self.path, cluster))

    def encode(self) -> bytes:
        return f"{VERSION};{self.origin};{','.join(self.path)}".encode("ascii")

    @classmethod
    def decode(cls, value: Any) -> Provenance | None:
        """The provenance in a header value; None for anything that is not exactly the format (P1)."""
        if not isinstance(value, bytes):
            return None
        match = _FORMAT.fullmatch(value)
        if match is None:
            return None
        origin, path = match.group(1).decode("ascii"), tuple(match.group(2).decode("ascii").split(","))
        if len({origin, *path}) != len(path) + 1:
            return None
        return cls(origin, path)


Headers = list[tuple[str, Any]]
_DATA, _MISSING = object(), object()  # decide(): a header that is not provenance; not cached yet
_CACHED = 4096


def applies(enabled: bool | None, topic: str, remote_topic: str) -> bool:
    """Whether a flow stamps and filters `topic` (`provenance.headers.enabled`): as set, or when unset
    (automatic) exactly where a loop is possible, i.e. where the remote topic keeps the source
    topic's name (IdentityReplicationPolicy, heartbeats excepted; never DefaultReplicationPolicy)."""
    return enabled if enabled is not None else remote_topic == topic


class ProvenanceFilter:
    """The per-record decision of one flow source->target (P2-P4), by Kafka cluster ids."""

    def __init__(self, source_id: str, target_id: str, max_hops: int = MAX_HOPS) -> None:
        for name, cluster in (("source", source_id), ("target", target_id)):
            if not valid_cluster_id(cluster):
                raise ValueError(f"the {name} cluster's id {cluster!r} cannot be named in a provenance header "
                                 "(1..64 characters of A-Z a-z 0-9 _ -)")
        if source_id == target_id:
            raise ValueError(f"source and target are the same cluster ({source_id})")
        if not 1 <= max_hops <= MAX_HOPS:
            raise ValueError(f"max_hops must be within 1..{MAX_HOPS}, not {max_hops}")
        self.source, self.target, self.max_hops = source_id, target_id, max_hops
        self._fresh = (HEADER, Provenance(source_id, (target_id,)).encode())
        self._decisions: dict[bytes, bytes | None | object] = {}
        self.skipped = 0

    def headers_out(self, headers: Sequence[tuple[str, Any]] | None) -> Headers | None:
        """The headers a copy to the target gets, or None when the record must be skipped (P3)."""
        if not headers:
            return [self._fresh]
        at = -1
        for i in range(len(headers) - 1, -1, -1):
            if headers[i][0] == HEADER:
                at = i
                break
        if at < 0:
            return [*headers, self._fresh]
        decision = self.decide(headers[at][1])
        if decision is _DATA:
            return [*headers, self._fresh]  # data (P1, P2): kept as it is, ours added
        if decision is None:
            return None
        return [*headers[:at], *headers[at + 1:], (HEADER, decision)]

    def decide(self, value: Any) -> bytes | None | object:
        """For the value of a record's last provenance header: the value its copy gets instead, None to
        skip the record, or `_DATA` when the header is not provenance (P1, P2). Decisions are cached by
        value: a topology has few distinct paths, so parsing happens about once per path, not per record."""
        if not isinstance(value, bytes):
            return _DATA
        decision = self._decisions.get(value, _MISSING)
        if decision is _MISSING:
            found = Provenance.decode(value)
            if found is None or found.holder != self.source:
                decision = _DATA
            elif found.visited(self.target) or found.hops >= self.max_hops:
                decision = None
            else:
                decision = found.extended(self.target).encode()
            if len(self._decisions) >= _CACHED:
                self._decisions.clear()  # foreign values could be endless: bound the cache
            self._decisions[value] = decision
        return decision

    def pieces(self, messages: Sequence[Any]) -> list[list[Any]]:
        """`messages` re-headed in place (P4) and cut into runs at every skipped one (P5)."""
        out: list[list[Any]] = []
        current: list[Any] = []
        headers_out = self.headers_out
        for m in messages:
            headers = headers_out(m.headers())
            if headers is None:
                self.skipped += 1
                if current:
                    out.append(current)
                    current = []
                continue
            m.set_headers(headers)
            current.append(m)
        if current:
            out.append(current)
        return out
