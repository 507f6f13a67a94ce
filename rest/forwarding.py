"""Forwarding of leader-only (or owner-only) requests, with Connect's hop rules and RestClient's answers.

Every leader-only write runs through `Routing`'s dependency (Connect's HerderRequestHandler
.completeOrForwardRequest): the route's herder call runs here, and if the herder answers NotLeader
(or NotAssigned) the request goes to the worker it names. While no leader is known, a request that
may still hop waits for one and tries once more, as Connect's herder queues requests during its
first rebalance.

A user request (no `forward` parameter) that this worker cannot serve goes to the leader with
`forward=true`; a worker receiving `forward=true` that is not the leader either (leadership moved)
forwards once more with `forward=false`; `forward=false` that still cannot be served is 409.
Only the caller's Authorization header is copied.

The remote answer is relayed as Connect's RestClient reads it: an error keeps the remote status and
message; a failed exchange (no connection, an unreadable body) is 500 "IO Error trying to forward
REST request: ..."; a status outside 2xx/4xx/5xx is 500 "Unexpected status code ...". Headers that
name this worker's own URLs (Location) are the caller's to build, not the remote's.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from urllib.parse import quote

import httpx
import orjson
from fastapi import Request
from fastapi.responses import Response

from pyconnect.runtime.herder.herder import Herder
from pyconnect.runtime.herder.request_errors import NotLeader, RequestTarget
from rest.errors import RestError

NO_LEADER = ("Cannot complete request momentarily due to no known leader URL, likely because a rebalance was "
             "underway.")
CONFLICT = "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"
IO_ERROR = "IO Error trying to forward REST request: "
PATH_SAFE = "/!$&'()*+,;=:@-._~"  # RFC 3986 path characters, kept as they are


def _relay(remote: httpx.Response) -> Response:
    """The remote answer as this worker's, or the error Connect's RestClient raises for it."""
    status = remote.status_code
    if status == 204:
        return Response(status_code=204)
    if status < 200 or 300 <= status < 400:
        raise RestError(500, f"Unexpected status code when handling forwarded request: {status}")
    try:
        body = orjson.loads(remote.content) if remote.content or status >= 400 else None
    except orjson.JSONDecodeError as exc:
        raise RestError(500, f"{IO_ERROR}{exc}") from None
    if status >= 400:
        message = body.get("message") if isinstance(body, dict) else None
        raise RestError(status, str(message) if message is not None else f"HTTP {status}")
    return Response(remote.content, status_code=status,
                    headers={"Content-Type": remote.headers.get("content-type", "application/json")})


class Forwarder:
    """Sends a request on to the worker that can serve it."""

    def __init__(self, verify: ssl.SSLContext | bool = True) -> None:
        self._client = httpx.Client(timeout=95.0, verify=verify)

    def forward(self, request: Request, body: bytes, target_url: str | None) -> Response:
        """Forward `request` (with `body`) to `target_url`, or raise Connect's error for why not."""
        hop = request.query_params.get("forward")
        if hop == "false":
            raise RestError(409, CONFLICT)
        if not target_url:
            raise RestError(409, NO_LEADER)
        params = dict(request.query_params)
        params["forward"] = "false" if hop == "true" else "true"
        headers = {"Content-Type": request.headers.get("content-type", "application/json")}
        if "authorization" in request.headers:
            headers["Authorization"] = request.headers["authorization"]
        try:
            # The decoded path (request.url.path is only partly decoded), encoded again as Jersey's
            # UriBuilder.path does: a connector name may hold "?", "#" or "%".
            url = target_url.rstrip("/") + quote(request.scope["path"], safe=PATH_SAFE)
            remote = self._client.request(request.method, url, params=params, content=body, headers=headers)
        except httpx.HTTPError as exc:
            # Java names the cause as `<exception class>: <message>`; so do we, with httpx's class.
            raise RestError(500, f"{IO_ERROR}{type(exc).__name__}: {exc}") from None
        return _relay(remote)


class ServeOrForward:
    """One request's way to the worker that can serve it: call it with the route's work."""

    def __init__(self, herder: Herder, forwarder: Forwarder, request: Request, body: bytes) -> None:
        self.herder, self.forwarder, self.request, self.body = herder, forwarder, request, body

    def __call__(self, serve: Callable[[], Response]) -> Response:
        """`serve()`'s answer, or the answer of the worker the herder named instead."""
        try:
            return serve()
        except RequestTarget as exc:
            target = exc
        # No leader known yet (the worker is joining, or a rebalance is under way): a request that may
        # still hop waits for one instead of answering 409 at once, unless this is its last hop.
        if isinstance(target, NotLeader) and target.url is None and self.request.query_params.get(
                "forward") != "false" and self.herder.await_leader():
            try:
                return serve()  # this worker may have become the leader meanwhile
            except RequestTarget as exc:
                target = exc
        return self.forwarder.forward(self.request, self.body, target.url)


class Routing:
    """The forwarding dependencies of one app's routes. A write that takes a body forwards it; the
    others (delete, stop, restarts, offset reset) forward none, as Connect passes a null body."""

    def __init__(self, herder: Herder, forwarder: Forwarder) -> None:
        self.herder, self.forwarder = herder, forwarder

    async def with_body(self, request: Request) -> ServeOrForward:
        """For writes with a request body (already read and cached by FastAPI when it parsed it)."""
        return ServeOrForward(self.herder, self.forwarder, request, await request.body())

    async def without_body(self, request: Request) -> ServeOrForward:
        """For writes without a request body."""
        return ServeOrForward(self.herder, self.forwarder, request, b"")
