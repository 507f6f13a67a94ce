"""A loopback proxy in front of Tansu that gives read_committed consumers what Kafka gives them.

Tansu 0.6.0 writes correct COMMIT/ABORT markers and honours the last stable offset, but its Fetch
answers never list aborted transactions, so every client's read_committed still delivers records of
aborted transactions (see tests/harness/committed.py). Kafka clients, the runtime's own offsets reader
among them, rely on that list. This harness-only workaround sits between the clients and the broker:

- it caps Fetch at version 4 in the broker's ApiVersions answer (a simple, fixed layout);
- it asks ListOffsets for the high watermark where the client asked READ_COMMITTED: with a transaction open,
  Tansu answers such a request with offset 0 where Kafka answers the last stable offset (measured: records
  0-3 committed, a transaction open at 4-6: Kafka's answer 4, Tansu's 0), so a read-to-end stopped before
  records already committed (a task then started from offsets seconds old). The high watermark is never below
  the last stable offset: a read_committed reader reaches it once the transactions open at the lookup end;
- in every Fetch v4 answer to a READ_COMMITTED request it drops the data batches of transactions whose
  ABORT marker is in the same answer, and cuts the answer before a transaction whose marker is not
  (the client fetches again from there; below the LSO the marker exists, so the next answer has it).
  A transaction larger than one answer is left as Tansu sends it (never met by these tests).

The broker advertises the proxy's address (`--advertised-listener-url`), as with stunnel, so every
connection a client makes goes through here.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from dataclasses import dataclass

from tests.harness.committed import record_batches, recv_exact, uvarint

_FETCH, _LIST_OFFSETS, _API_VERSIONS, _ABORT = 1, 2, 18, 0


@dataclass(frozen=True)
class _Request:
    api_key: int
    version: int
    read_committed: bool


def _request(body: bytes) -> tuple[int, _Request]:
    api_key, version, corr, client_len = struct.unpack_from(">hhih", body, 0)
    committed = False
    if api_key == _FETCH and version == 4:
        # after the client id: replica id, max wait, min bytes, max bytes, then the isolation level
        committed = body[10 + max(client_len, 0) + 16] == 1
    return corr, _Request(api_key, version, committed)


def _uncommitted_list_offsets(body: bytes) -> bytes:
    """A ListOffsets request (v2+) with its isolation level READ_UNCOMMITTED (see the module's docstring)."""
    _api_key, version, _corr, client_len = struct.unpack_from(">hhih", body, 0)
    pos = 10 + max(client_len, 0)
    if version >= 6:  # flexible versions: the request header's tagged fields
        tags, pos = uvarint(body, pos)
        for _ in range(tags):
            _tag, pos = uvarint(body, pos)
            size, pos = uvarint(body, pos)
            pos += size
    pos += 4  # replica id, then the isolation level
    if body[pos] != 1:
        return body
    return body[:pos] + b"\x00" + body[pos + 1:]


def _cap_fetch(body: bytes, version: int) -> bytes:
    """The ApiVersions answer with Fetch's max version lowered to 4."""
    out = bytearray(body)
    pos = 4 + 2  # correlation id (header v0 even for flexible versions), error code
    if version >= 3:
        count, pos = uvarint(body, pos)
        count -= 1
    else:
        (count,) = struct.unpack_from(">i", body, pos)
        pos += 4
    for _ in range(count):
        api_key, _min, max_version = struct.unpack_from(">hhh", body, pos)
        if api_key == _FETCH and max_version > 4:
            struct.pack_into(">h", out, pos + 4, 4)
        pos += 6
        if version >= 3:
            tags, pos = uvarint(body, pos)
            for _t in range(tags):
                _tag, pos = uvarint(body, pos)
                size, pos = uvarint(body, pos)
                pos += size
    return bytes(out)


def _committed_records(data: bytes, pass_open: bool = False) -> bytes:
    """Records without aborted transactions, cut before a transaction that does not end here (unless
    `pass_open`: then a transaction that starts the answer and does not end in it is passed on)."""
    batches = record_batches(data)
    open_txn: dict[int, list[int]] = {}
    dropped: set[int] = set()
    for i, (_first, _last, pid, transactional, control, kind) in enumerate(batches):
        if control:
            members = open_txn.pop(pid, [])
            if kind == _ABORT:
                dropped.update(members)
        elif transactional:
            open_txn.setdefault(pid, []).append(i)
    cut = min((members[0] for members in open_txn.values()), default=len(batches))
    if cut == 0 and pass_open:
        cut = len(batches)
    elif cut == 0:
        return b""  # its marker is not in this answer (yet): the client asks again from the same offset
    out, pos = bytearray(), 0
    for i in range(len(batches)):
        length = struct.unpack_from(">i", data, pos + 8)[0] + 12
        if i < cut and i not in dropped:
            out += data[pos:pos + length]
        pos += length
    if cut >= len(batches):
        out += data[pos:]  # a partial batch at the end, as the broker sent it
    return bytes(out)


def _rewrite_fetch(body: bytes, empties: dict[tuple[bytes, int], int]) -> bytes:
    """The answer with `_committed_records` applied to every partition. `empties` counts, per partition
    of this connection, answers cut to nothing in a row: after 50 (a transaction larger than an answer,
    which these tests never write) the transaction is passed on as Tansu sent it."""
    out = bytearray(body[:12])  # correlation id, throttle time, topic count
    pos = 12
    for _ in range(struct.unpack_from(">i", body, 8)[0]):
        (name_len,) = struct.unpack_from(">h", body, pos)
        topic = body[pos + 2:pos + 2 + name_len]
        (partitions,) = struct.unpack_from(">i", body, pos + 2 + name_len)
        out += body[pos:pos + 2 + name_len + 4]
        pos += 2 + name_len + 4
        for _p in range(partitions):
            partition, _error, _hw, _lso, aborted = struct.unpack_from(">ihqqi", body, pos)
            head = 4 + 2 + 8 + 8 + 4 + 16 * max(aborted, 0)
            out += body[pos:pos + head]
            pos += head
            (size,) = struct.unpack_from(">i", body, pos)
            key = (topic, partition)
            records = _committed_records(body[pos + 4:pos + 4 + size], empties.get(key, 0) >= 50) if size > 0 else b""
            empties[key] = empties.get(key, 0) + 1 if size > 0 and not records else 0
            out += struct.pack(">i", len(records) if size >= 0 else -1) + records
            pos += 4 + max(size, 0)
    return bytes(out)


class TxnProxy:
    """Listens on 127.0.0.1:`port` and forwards to 127.0.0.1:`upstream` (see the module docstring)."""

    def __init__(self, port: int, upstream: int) -> None:
        self.port, self.upstream = port, upstream
        self._server = socket.create_server(("127.0.0.1", port))
        threading.Thread(target=self._accept, daemon=True, name=f"txn-proxy-{port}").start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            try:
                broker = socket.create_connection(("127.0.0.1", self.upstream))
            except OSError:
                client.close()
                continue
            pending: dict[int, _Request] = {}
            lock = threading.Lock()
            threading.Thread(target=self._requests, args=(client, broker, pending, lock), daemon=True).start()
            threading.Thread(target=self._responses, args=(broker, client, pending, lock), daemon=True).start()

    @staticmethod
    def _requests(client: socket.socket, broker: socket.socket, pending: dict[int, _Request],
                  lock: threading.Lock) -> None:
        try:
            while True:
                size = recv_exact(client, 4)
                body = recv_exact(client, struct.unpack(">i", size)[0])
                corr, request = _request(body)
                with lock:
                    pending[corr] = request
                if request.api_key == _LIST_OFFSETS and request.version >= 2:
                    body = _uncommitted_list_offsets(body)
                broker.sendall(size + body)
        except (OSError, ConnectionError, struct.error):
            close_sockets(client, broker)

    @staticmethod
    def _responses(broker: socket.socket, client: socket.socket, pending: dict[int, _Request],
                   lock: threading.Lock) -> None:
        empties: dict[tuple[bytes, int], int] = {}
        try:
            while True:
                body = recv_exact(broker, struct.unpack(">i", recv_exact(broker, 4))[0])
                with lock:
                    request = pending.pop(struct.unpack_from(">i", body, 0)[0], None)
                if request is not None and request.api_key == _API_VERSIONS:
                    body = _cap_fetch(body, request.version)
                elif request is not None and request.read_committed:
                    body = _rewrite_fetch(body, empties)
                client.sendall(struct.pack(">i", len(body)) + body)
        except (OSError, ConnectionError, struct.error):
            close_sockets(client, broker)

    def close(self) -> None:
        self._server.close()


def close_sockets(*sockets: socket.socket) -> None:
    """Shut down and close each socket (a proxy connection's two ends)."""
    for s in sockets:  # shutdown first: it wakes the other direction's thread, blocked in recv
        with contextlib.suppress(OSError):
            s.shutdown(socket.SHUT_RDWR)
        s.close()
