"""A worker's REST listeners (Connect's RestServer): every entry of `listeners` serves the API, and
`admin.listeners` (KIP-495) moves /admin/loggers to a listener of its own, or disables it when empty.

Follows Kafka's RestServerTest.testIndependentAdminEndpoint and testDisableAdminEndpoint (RestServerConfig's
`admin.listeners`; ConnectRestServer registers the admin resources on the admin listeners only).
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.harness.brokers import free_port
from tests.harness.workers import Cluster


def _get(port: int, path: str) -> httpx.Response:
    return httpx.get(f"http://127.0.0.1:{port}{path}", timeout=10)


def test_every_listener_serves_and_admin_has_its_own(cluster_factory: Any) -> None:
    """listeners=P1,P2 and admin.listeners=P3: both P1 and P2 answer the API; /admin/loggers is served on P3
    (reads and writes) and is a 404 with Connect's error body on P1 and P2; P3 serves nothing else."""
    p1, p2, p3 = free_port(), free_port(), free_port()
    cluster: Cluster = cluster_factory(extra={"listeners": f"http://127.0.0.1:{p1},http://127.0.0.1:{p2}",
                                              "admin.listeners": f"http://127.0.0.1:{p3}"})
    cluster.start(1)  # ready once the last listener (P2) answers
    for port in (p1, p2):
        assert _get(port, "/connectors").json() == [], port
        r = _get(port, "/admin/loggers")
        assert r.status_code == 404 and r.json()["error_code"] == 404, (port, r.text)
    loggers = _get(p3, "/admin/loggers")
    assert loggers.status_code == 200 and "root" in loggers.json(), loggers.text
    r = httpx.put(f"http://127.0.0.1:{p3}/admin/loggers/org.example.Quiet", json={"level": "ERROR"}, timeout=10)
    assert r.status_code == 200 and r.json() == ["org.example.Quiet"], r.text
    assert _get(p3, "/admin/loggers/org.example.Quiet").json()["level"] == "ERROR"
    assert _get(p3, "/connectors").status_code == 404


def test_empty_admin_listeners_disable_admin(cluster_factory: Any) -> None:
    """admin.listeners="" : /admin/loggers is served nowhere; the API is unchanged."""
    (w,) = cluster_factory(extra={"admin.listeners": ""}).start(1)
    r = w.request("GET", "/admin/loggers")
    assert r.status_code == 404 and r.json()["error_code"] == 404, r.text
    assert w.request("GET", "/connectors").status_code == 200
