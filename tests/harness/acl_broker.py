"""ACLs for a Tansu broker, kept by the proxy in front of it: what a Kafka broker with an authorizer answers to
CreateAcls and DescribeAcls (versions 2-3, the flexible ones librdkafka sends), so ACL sync can be shown end
to end with real clients on both sides.

Tansu 0.6.0 keeps no ACLs (DescribeAcls answers an empty list) and librdkafka cannot parse its CreateAcls
answer (the client aborts), so a RequestCounter (tests/harness/request_counter.py) given `AclStore.answer`
answers these two requests itself and forwards everything else to the broker.

Invariants:
- a binding is stored once (creating it again succeeds and changes nothing), in creation order;
- DescribeAcls returns the stored bindings its filter matches (ANY or null matches every value, MATCH is
  not supported: the filter's pattern type must be ANY or the binding's own), grouped by resource;
- nothing is ever authorized or refused: the store only remembers and lists.
"""

from __future__ import annotations

import struct
import threading
from dataclasses import dataclass

from tests.harness.committed import uvarint

DESCRIBE_ACLS, CREATE_ACLS = 29, 30
ANY = 1  # AclOperation/AclPermissionType/PatternType/ResourceType ANY


@dataclass(frozen=True)
class Binding:
    """One ACL binding in wire codes (resource type TOPIC = 2, pattern LITERAL = 3, operation READ = 3, ...)."""

    resource_type: int
    name: str
    pattern_type: int
    principal: str
    host: str
    operation: int
    permission: int


class _Reader:
    """Reads a flexible-version message from `pos` on."""

    def __init__(self, body: bytes, pos: int) -> None:
        self.body, self.pos = body, pos

    def int8(self) -> int:
        value: int = struct.unpack_from(">b", self.body, self.pos)[0]
        self.pos += 1
        return value

    def uvarint(self) -> int:
        value, self.pos = uvarint(self.body, self.pos)
        return value

    def string(self) -> str | None:
        size = self.uvarint() - 1
        if size < 0:
            return None
        self.pos += size
        return self.body[self.pos - size:self.pos].decode()

    def skip_tags(self) -> None:
        for _ in range(self.uvarint()):
            self.uvarint()
            self.pos += self.uvarint()


def _uvarint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _string(text: str | None) -> bytes:
    if text is None:
        return b"\x00"
    raw = text.encode()
    return _uvarint(len(raw) + 1) + raw


def _body_reader(body: bytes) -> _Reader:
    """A reader past a request header v2 (api key, version, correlation id, client id, tagged fields)."""
    id_len = struct.unpack_from(">h", body, 8)[0]
    reader = _Reader(body, 10 + max(id_len, 0))
    reader.skip_tags()
    return reader


def _matches(wanted: int | str | None, value: int | str) -> bool:
    return wanted is None or wanted in (ANY, value)


class AclStore:
    """The bindings created through the proxy; `answer` is a RequestCounter answerer."""

    def __init__(self, bindings: list[Binding] | None = None) -> None:
        self._bindings: list[Binding] = list(bindings or [])
        self._lock = threading.Lock()

    def bindings(self) -> list[Binding]:
        with self._lock:
            return list(self._bindings)

    def answer(self, body: bytes) -> bytes | None:
        """The size-prefixed answer to a CreateAcls or DescribeAcls request v2+; None for anything else."""
        api_key, version, corr = struct.unpack_from(">hhi", body, 0)
        if api_key not in (CREATE_ACLS, DESCRIBE_ACLS) or version < 2:
            return None
        reader = _body_reader(body)
        out = struct.pack(">ibi", corr, 0, 0)  # response header v1 (no tags), throttle time
        out += self._create(reader) if api_key == CREATE_ACLS else self._describe(reader)
        return struct.pack(">i", len(out)) + out

    def _create(self, reader: _Reader) -> bytes:
        count = reader.uvarint() - 1
        for _ in range(count):
            binding = Binding(reader.int8(), reader.string() or "", reader.int8(), reader.string() or "",
                              reader.string() or "", reader.int8(), reader.int8())
            reader.skip_tags()
            with self._lock:
                if binding not in self._bindings:
                    self._bindings.append(binding)
        return _uvarint(count + 1) + b"".join(struct.pack(">h", 0) + b"\x00\x00" for _ in range(count)) + b"\x00"

    def _describe(self, reader: _Reader) -> bytes:
        wanted = (reader.int8(), reader.string(), reader.int8(), reader.string(), reader.string(), reader.int8(),
                  reader.int8())
        found: dict[tuple[int, str, int], list[Binding]] = {}
        for b in self.bindings():
            values = (b.resource_type, b.name, b.pattern_type, b.principal, b.host, b.operation, b.permission)
            if all(_matches(w, v) for w, v in zip(wanted, values, strict=True)):
                found.setdefault((b.resource_type, b.name, b.pattern_type), []).append(b)
        out = struct.pack(">h", 0) + _string(None) + _uvarint(len(found) + 1)
        for (resource_type, name, pattern_type), acls in found.items():
            out += struct.pack(">b", resource_type) + _string(name) + struct.pack(">b", pattern_type)
            out += _uvarint(len(acls) + 1)
            out += b"".join(_string(a.principal) + _string(a.host) + struct.pack(">bb", a.operation, a.permission)
                            + b"\x00" for a in acls)
            out += b"\x00"
        return out + b"\x00"
