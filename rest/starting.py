"""What the REST listeners answer while the process starts, before its REST API exists.

A process binds its listeners first (rest.listener), then looks up its Kafka cluster, creates and reads its
internal topics, and only then serves its REST API. With Kafka unreachable that takes until the start gives up;
a probe (Kubernetes, the image's HEALTHCHECK, a user's curl) that connected in the meantime got no answer at
all. `StartingServer` answers on the same listeners until the REST API takes over:

- `GET /health`: 503 `{"status": "starting", "message": ...}` (KIP-1017's WorkerStatus of a worker that is
  starting), the message saying what the process waits for and, while it waits for Kafka, what a TCP connect
  to each bootstrap address gets (refused, timed out, unresolvable, or connected).
- any other request: 503 with Connect's error body and the same message. Connect's Jetty serves no resource
  before its herder exists and answers 404 then; 503 tells a client to retry, which is what it should do.

Invariants:
- It serves duplicates of the bound sockets (`socket.dup`), never the sockets themselves: uvicorn closes the
  sockets it served when it stops, and the bound ones must stay open for the REST API. A connection made
  between `stop()` and the REST API's start waits in the listen queue and is answered by the REST API.
- Every answer closes its connection, so no client keeps a connection to this server across the handover.
- `stop()` returns once this server accepts no more connections (or after STOP_TIMEOUT_S): the REST API
  is started after it returns.
- The probe runs at most once per PROBE_EVERY_S whatever the request rate, each connect bounded by
  PROBE_TIMEOUT_S, so probing cannot load the cluster or stall an answer for long.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import time
from collections.abc import Mapping
from typing import Any

from starlette.responses import JSONResponse

from pyconnect.config.properties import ConfigFileError
from rest.listener import BoundListener, BoundListeners

log = logging.getLogger(__name__)

STOP_TIMEOUT_S = 5.0
PROBE_EVERY_S = 2.0
PROBE_TIMEOUT_S = 1.0
MAX_PROBED = 3  # bootstrap addresses probed per cluster


class StartingServer:
    """503 on every listener of `bound` while the process starts; `clusters` (a label such as "cluster B" ->
    bootstrap.servers) is what it waits for, `raw` the worker settings (TLS files of https listeners)."""

    def __init__(self, bound: BoundListeners, raw: Mapping[str, str], clusters: Mapping[str, str]) -> None:
        self._clusters = dict(clusters)
        self._since = time.monotonic()
        self._phase = "waiting for Kafka"
        self._probe_kafka = True
        self._probed = "not probed yet"
        self._probed_at = float("-inf")
        self._servers: list[tuple[Any, threading.Thread, socket.socket]] = []
        for listener in bound.main + bound.admin:
            server = _server(listener, raw, self)
            if server is not None:
                dup = listener.socket.dup()
                thread = threading.Thread(target=server.run, kwargs={"sockets": [dup]}, name="rest-starting",
                                          daemon=True)
                self._servers.append((server, thread, dup))

    def start(self) -> StartingServer:
        for _server, thread, _dup in self._servers:
            thread.start()
        return self

    def phase(self, text: str) -> None:
        """What the process does now, once Kafka answered (no more probing)."""
        self._phase, self._probe_kafka = text, False

    def stop(self) -> None:
        """Stop answering; idempotent."""
        for server, _thread, _dup in self._servers:
            server.should_exit = True
        deadline = time.monotonic() + STOP_TIMEOUT_S
        for _server, thread, dup in self._servers:
            if thread.ident is not None:
                thread.join(max(0.0, deadline - time.monotonic()))
            else:  # never served: uvicorn did not take the duplicate over
                dup.close()
        self._servers = []

    async def message(self) -> str:
        """Why the process cannot answer yet."""
        waited = f"{self._phase} for {time.monotonic() - self._since:.0f} s"
        if not self._probe_kafka:
            return f"Worker is still starting up: {waited}."
        if time.monotonic() - self._probed_at >= PROBE_EVERY_S:
            self._probed_at = time.monotonic()
            found = await asyncio.gather(*(_probe_cluster(label, servers) for label, servers in self._clusters.items()))
            self._probed = "; ".join(found)
        return f"Worker is still starting up: {waited}: {self._probed}."

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """The ASGI app: 503 for every HTTP request."""
        if scope["type"] != "http":
            return
        message = await self.message()
        if scope["path"].rstrip("/").endswith("/health"):  # a dedicated process's /{source}/{target}/health too
            body: dict[str, Any] = {"status": "starting", "message": message}
        else:
            body = {"error_code": 503, "message": message}
        await JSONResponse(body, 503, headers={"connection": "close", "retry-after": "1"})(scope, receive, send)


def _server(listener: BoundListener, raw: Mapping[str, str], app: StartingServer) -> Any:
    """A uvicorn server for `listener`, or None when its TLS files do not load (the REST API's start reports
    that; until then this listener does not answer, as before)."""
    import uvicorn

    tls: dict[str, Any] = {}
    try:
        if listener.scheme == "https":
            from rest.security import tls_files

            files = tls_files(raw)
            tls = {"ssl_certfile": files.certfile, "ssl_keyfile": files.keyfile or files.certfile,
                   "ssl_keyfile_password": files.password}
        config = uvicorn.Config(app, host=listener.host, port=listener.port, log_level="warning", lifespan="off",
                                **tls)
        config.load()
    except (OSError, ValueError, ConfigFileError) as exc:
        log.debug("no start-up answers on %s: %s", listener.url, exc)
        return None
    return uvicorn.Server(config)


async def _probe_cluster(label: str, servers: str) -> str:
    """`label` at `servers`, and what a TCP connect to each of its first addresses got."""
    addresses = [a.strip().rsplit("://", 1)[-1] for a in servers.split(",") if a.strip()][:MAX_PROBED]
    found = await asyncio.gather(*(_probe(address) for address in addresses))
    return f"{label} at {servers}: " + ", ".join(f"{a} {r}" for a, r in zip(addresses, found, strict=True))


async def _probe(address: str) -> str:
    host, _, port = address.rpartition(":")
    try:
        _reader, writer = await asyncio.wait_for(asyncio.open_connection(host.strip("[]"), int(port)),
                                                 PROBE_TIMEOUT_S)
    except TimeoutError:
        return f"connect timed out after {PROBE_TIMEOUT_S:.0f} s"
    except ValueError:
        return "is not host:port"
    except socket.gaierror as exc:  # the host name does not resolve
        return str(exc.strerror).lower()
    except OSError as exc:  # asyncio's strerror is "Connect call failed (...)": the errno says why
        return os.strerror(exc.errno).lower() if exc.errno else str(exc)
    writer.close()
    return "accepts TCP connections"
