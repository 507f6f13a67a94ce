"""Forwarding of leader-only (or owner-only) requests, with Connect's hop rules and RestClient's answers.

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
from urllib.parse import quote

import httpx
import orjson
from fastapi import Request
from fastapi.responses import Response

from pyconnect.runtime.herder import HerderError

NO_LEADER = ("Cannot complete request momentarily due to no known leader URL, likely because a rebalance was "
             "underway.")
CONFLICT = "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"
IO_ERROR = "IO Error trying to forward REST request: "
PATH_SAFE = "/!$&'()*+,;=:@-._~"  # RFC 3986 path characters, kept as they are


def _relay(remote: httpx.Response) -> Response:
    """The remote answer as this worker's, or the HerderError Connect's RestClient raises for it."""
    status = remote.status_code
    if status == 204:
        return Response(status_code=204)
    if status < 200 or 300 <= status < 400:
        raise HerderError(500, f"Unexpected status code when handling forwarded request: {status}")
    try:
        body = orjson.loads(remote.content) if remote.content or status >= 400 else None
    except orjson.JSONDecodeError as exc:
        raise HerderError(500, f"{IO_ERROR}{exc}") from None
    if status >= 400:
        message = body.get("message") if isinstance(body, dict) else None
        raise HerderError(status, str(message) if message is not None else f"HTTP {status}")
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
            raise HerderError(409, CONFLICT)
        if not target_url:
            raise HerderError(409, NO_LEADER)
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
            raise HerderError(500, f"{IO_ERROR}{type(exc).__name__}: {exc}") from None
        return _relay(remote)
