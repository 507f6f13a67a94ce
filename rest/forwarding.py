"""Forwarding of leader-only (or owner-only) requests, with Connect's hop rules.

A user request (no `forward` parameter) that this worker cannot serve goes to the leader with
`forward=true`; a worker receiving `forward=true` that is not the leader either (leadership moved)
forwards once more with `forward=false`; `forward=false` that still cannot be served is 409.
Only the caller's Authorization header is copied.
"""

from __future__ import annotations

import ssl

import httpx
from fastapi import Request
from fastapi.responses import Response

from pyconnect.runtime.herder import HerderError

NO_LEADER = ("Cannot complete request momentarily due to no known leader URL, likely because a rebalance was "
             "underway.")
CONFLICT = "Cannot complete request because of a conflicting operation (e.g. worker rebalance)"


class Forwarder:
    def __init__(self, verify: ssl.SSLContext | bool = True) -> None:
        self._client = httpx.Client(timeout=95.0, verify=verify)

    def forward(self, request: Request, body: bytes, target_url: str | None) -> Response:
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
            remote = self._client.request(request.method, target_url.rstrip("/") + request.url.path, params=params,
                                          content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise HerderError(409, f"{CONFLICT}: forwarding to {target_url} failed: {exc}") from None
        out_headers = {k: v for k, v in remote.headers.items() if k.lower() in ("content-type", "location")}
        return Response(remote.content, status_code=remote.status_code, headers=out_headers)
