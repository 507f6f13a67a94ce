"""A loopback proxy in front of a Tansu broker that records every request its clients send, and can make the
broker look like a Kafka broker without an authorizer.

Each request is recorded with its api key (Kafka's request header: 29 = DescribeAcls, 30 = CreateAcls,
3 = Metadata, 32 = DescribeConfigs), version, the sender's client id and the time it crossed the proxy, so a
test can count how often a component asks the broker something, and when. An `answer` function may answer
some requests in the broker's place (it returns None for those the broker answers). `no_authorizer_answer`
answers two as a Kafka broker with no authorizer configured does: DescribeAcls with error SECURITY_DISABLED
(54) and no bindings (Tansu itself answers an empty list), and DescribeConfigs v0/v1 of one BROKER resource
with authorizer.class.name="" (a default; Tansu reports no broker configs). tests/harness/acl_broker.py
answers as a broker that keeps ACLs.

With `serialize_produce`, the proxy lets one Produce request at a time reach the broker (across all its
connections, until the broker's answer comes back): a harness workaround for a Tansu bug (docs/brokers.md),
where concurrent appends to one partition finish out of order and a consumer tailing the partition is handed
a later record before an earlier one is stored, skipping that one for good.

The broker advertises the proxy's address (`--advertised-listener-url`, as with stunnel), so every connection
a client makes goes through here.

Invariants:
- a connection's frames reach the other side whole and in order, in each direction; an answer the proxy
  makes goes out between two whole frames of the broker (one lock per client socket);
- a request is recorded before it is forwarded or answered, so an answer a client saw is always counted;
- serialized, a Produce request is forwarded only while no other is awaiting its answer (or after a 5 s wait:
  a request that gets no answer, acks=0, holds the turn no longer than that).
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from pyconnect.environment import env_value
from pyconnect.testing.brokers import Broker, free_port, start_broker, start_tansu
from tests.harness.committed import recv_exact
from tests.harness.txn_proxy import close_sockets as _close

PRODUCE, DESCRIBE_ACLS, CREATE_ACLS, METADATA, DESCRIBE_CONFIGS = 0, 29, 30, 3, 32
SECURITY_DISABLED, BROKER_RESOURCE, DEFAULT_CONFIG = 54, 4, 5
_NO_AUTHORIZER_TEXT = b"No Authorizer is configured on the broker"


@dataclass(frozen=True)
class Request:
    """One request as the proxy saw it."""

    api_key: int
    version: int
    client_id: str
    at: float  # time.monotonic() when it crossed the proxy


def _header(body: bytes) -> tuple[int, int, int, str]:
    """api key, version, correlation id and client id of a request (every header version starts so)."""
    api_key, version, corr, id_len = struct.unpack_from(">hhih", body, 0)
    client_id = body[10:10 + id_len].decode(errors="replace") if id_len > 0 else ""
    return api_key, version, corr, client_id


def security_disabled_answer(version: int, corr: int) -> bytes:
    """A DescribeAcls response (size-prefixed) with error SECURITY_DISABLED and no resources; versions 2+ are
    flexible (compact strings and arrays, tagged fields)."""
    if version >= 2:
        out = struct.pack(">ibih", corr, 0, 0, SECURITY_DISABLED)
        out += bytes([len(_NO_AUTHORIZER_TEXT) + 1]) + _NO_AUTHORIZER_TEXT + b"\x01\x00"
    else:
        out = struct.pack(">iih", corr, 0, SECURITY_DISABLED)
        out += struct.pack(">h", len(_NO_AUTHORIZER_TEXT)) + _NO_AUTHORIZER_TEXT + struct.pack(">i", 0)
    return struct.pack(">i", len(out)) + out


def _string(text: str) -> bytes:
    raw = text.encode()
    return struct.pack(">h", len(raw)) + raw


def broker_config_query(body: bytes) -> str | None:
    """The broker id a DescribeConfigs v0/v1 request asks about, if it asks about one BROKER resource only."""
    api_key, version, _corr, id_len = struct.unpack_from(">hhih", body, 0)
    pos = 10 + max(id_len, 0)
    if api_key != DESCRIBE_CONFIGS or version > 1 or struct.unpack_from(">i", body, pos)[0] != 1:
        return None
    resource_type, name_len = struct.unpack_from(">bh", body, pos + 4)
    return body[pos + 7:pos + 7 + name_len].decode() if resource_type == BROKER_RESOURCE else None


def no_authorizer_configs_answer(version: int, corr: int, broker: str) -> bytes:
    """A DescribeConfigs v0/v1 response (size-prefixed) for one broker: authorizer.class.name="" (default)."""
    entry = _string("authorizer.class.name") + _string("") + b"\x01"  # name, value, read only
    # v0: is_default; v1: config source, then is_sensitive and no synonyms
    entry += b"\x01\x00" if version == 0 else struct.pack(">bbi", DEFAULT_CONFIG, 0, 0)
    out = struct.pack(">iii", corr, 0, 1) + struct.pack(">hhb", 0, -1, BROKER_RESOURCE) + _string(broker)
    out += struct.pack(">i", 1) + entry
    return struct.pack(">i", len(out)) + out


def no_authorizer_answer(body: bytes) -> bytes | None:
    """What a Kafka broker without authorizer answers to `body`, where Tansu answers otherwise; else None."""
    api_key, version, corr, _client_id = _header(body)
    if api_key == DESCRIBE_ACLS:
        return security_disabled_answer(version, corr)
    broker = broker_config_query(body)
    return None if broker is None else no_authorizer_configs_answer(version, corr, broker)


Answer = Callable[[bytes], "bytes | None"]  # a request's body -> the proxy's own size-prefixed answer, or None


class RequestCounter:
    """Listens on 127.0.0.1:`port` and forwards to 127.0.0.1:`upstream`, recording every request; `answer`
    answers some of them in the broker's place."""

    def __init__(self, port: int, upstream: int, answer: Answer | None = None, serialize_produce: bool = False) -> None:
        self.port, self.upstream, self.answer = port, upstream, answer
        self._produce_turn = _ProduceTurn() if serialize_produce else None
        self._seen: list[Request] = []
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", port))
        threading.Thread(target=self._accept, daemon=True, name=f"request-counter-{port}").start()

    def requests(self, api_key: int, client_id: str | None = None) -> list[Request]:
        """The requests with `api_key` (from `client_id` only, if given) seen so far, oldest first."""
        with self._lock:
            return [r for r in self._seen if r.api_key == api_key and client_id in (None, r.client_id)]

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
            to_client, awaiting = threading.Lock(), _Awaiting(self._produce_turn)
            threading.Thread(target=self._requests, args=(client, broker, to_client, awaiting), daemon=True).start()
            threading.Thread(target=self._responses, args=(broker, client, to_client, awaiting), daemon=True).start()

    def _requests(self, client: socket.socket, broker: socket.socket, to_client: threading.Lock,
                  awaiting: _Awaiting) -> None:
        try:
            while True:
                size = recv_exact(client, 4)
                body = recv_exact(client, struct.unpack(">i", size)[0])
                api_key, version, corr, client_id = _header(body)
                with self._lock:
                    self._seen.append(Request(api_key, version, client_id, time.monotonic()))
                answer = self.answer(body) if self.answer is not None else None
                if answer is not None:
                    with to_client:
                        client.sendall(answer)
                    continue
                if api_key == PRODUCE:
                    awaiting.take_turn(corr)
                broker.sendall(size + body)
        except (OSError, ConnectionError, struct.error):
            _close(client, broker)
            awaiting.give_back()

    @staticmethod
    def _responses(broker: socket.socket, client: socket.socket, to_client: threading.Lock,
                   awaiting: _Awaiting) -> None:
        try:
            while True:
                size = recv_exact(broker, 4)
                frame = size + recv_exact(broker, struct.unpack(">i", size)[0])
                awaiting.answered(struct.unpack_from(">i", frame, 4)[0])
                with to_client:
                    client.sendall(frame)
        except (OSError, ConnectionError, struct.error):
            _close(client, broker)
            awaiting.give_back()

    def close(self) -> None:
        self._server.close()


class _ProduceTurn:
    """The one turn to have a Produce request at the broker (serialize_produce)."""

    WAIT = 5.0  # seconds a request waits for the turn before it goes anyway (an answerless acks=0 holder)

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def take(self) -> bool:
        return self._lock.acquire(timeout=self.WAIT)

    def give_back(self) -> None:
        with contextlib.suppress(RuntimeError):  # released already: a waiter went ahead after WAIT
            self._lock.release()


class _Awaiting:
    """One connection's Produce request that holds the turn, until its answer (none when not serialized)."""

    def __init__(self, turn: _ProduceTurn | None) -> None:
        self._turn, self._guard = turn, threading.Lock()
        self._corr: int | None = None

    def take_turn(self, corr: int) -> None:
        if self._turn is not None and self._turn.take():
            with self._guard:
                self._corr = corr

    def answered(self, corr: int) -> None:
        with self._guard:
            if self._corr != corr:
                return
            self._corr = None
        assert self._turn is not None
        self._turn.give_back()

    def give_back(self) -> None:
        """The connection closed: a turn it held goes back."""
        with self._guard:
            held, self._corr = self._corr is not None, None
        if held and self._turn is not None:
            self._turn.give_back()

@dataclass
class CountedBroker:
    """A Tansu broker reachable only through a RequestCounter: `broker.bootstrap` is the proxy's address."""

    broker: Broker
    counter: RequestCounter | None  # None: a broker that needs no proxy (start_for_concurrent_writers)

    def stop(self) -> None:
        if self.counter is not None:
            self.counter.close()
        self.broker.stop()


def start_counted_tansu(name: str, answer: Answer | None = None, serialize_produce: bool = False) -> CountedBroker:
    """A Tansu broker behind a RequestCounter (see the module docstring). Tansu on every run: the broker must
    advertise the proxy's port; the harness's Kafka nodes advertise their own listeners."""
    port, proxy_port = free_port(), free_port()
    broker = start_tansu(name, port, advertised_port=proxy_port)
    counter = RequestCounter(proxy_port, port, answer, serialize_produce)
    return CountedBroker(broker, counter)


def start_for_concurrent_writers(name: str, index: int) -> CountedBroker:
    """Cluster `index` for a test whose producers write one partition at once while consumers tail it (a mesh):
    on Tansu, behind a proxy that serializes Produce (the module docstring says why); any other broker as
    start_broker gives it."""
    if env_value("TEST_BOOTSTRAP") or env_value("TEST_BROKER") == "kafka":
        return CountedBroker(start_broker(name, index), None)
    return start_counted_tansu(name, serialize_produce=True)
