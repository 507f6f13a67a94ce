"""Dedicated mode's REST API stays on this machine unless `listeners` says otherwise.

Java's dedicated MirrorMaker (connect-mirror-maker.sh) serves no REST API at all by default; this one
serves it, so with no `listeners` it binds 127.0.0.1 alone. Each test runs `replikafka mirror-maker` on
the harness's brokers and connects from this machine to one of its non-loopback addresses: a socket bound
to every interface answers there, one bound to loopback refuses.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.harness.brokers import Broker, free_port
from tests.harness.kafka_io import create_topic
from tests.harness.mirror import mm2_settings
from tests.harness.workers import REPO, wait_for

DEFAULT_PORT = 8083
SPARE_ADDRESS = "10.254.254.1"  # added to lo (root only) when this machine has no other address


@contextmanager
def non_loopback_address() -> Iterator[str]:
    """An IPv4 address of this machine outside 127/8 (connecting to it stays on this machine)."""
    out = subprocess.run(["ip", "-4", "-o", "addr", "show", "scope", "global"], capture_output=True, text=True,
                         check=False).stdout
    found = [line.split()[3].split("/")[0] for line in out.splitlines() if len(line.split()) > 3]
    if found:
        yield found[0]
        return
    if os.geteuid() != 0:
        pytest.skip("this machine has no non-loopback IPv4 address, and adding one needs root")
    subprocess.run(["ip", "addr", "add", f"{SPARE_ADDRESS}/32", "dev", "lo"], check=True)
    try:
        yield SPARE_ADDRESS
    finally:
        subprocess.run(["ip", "addr", "del", f"{SPARE_ADDRESS}/32", "dev", "lo"], check=False)


def port_free(port: int) -> bool:
    try:
        with socket.create_server(("0.0.0.0", port)):
            return True
    except OSError:
        return False


def reachable(host: str, port: int) -> bool:
    """Whether a TCP connection to host:port is accepted."""
    try:
        with socket.create_connection((host, port), timeout=5):
            return True
    except OSError:
        return False


@contextmanager
def mirror_maker(tmp_path: Path, a: Broker, b: Broker, extra: str) -> Iterator[Path]:
    """`replikafka mirror-maker` on a one-flow file (A->B) plus `extra`; yields its log, stops it at the end."""
    topic = f"d{uuid.uuid4().hex[:8]}"
    create_topic(a.bootstrap, topic, 1)
    path = tmp_path / "mm2.properties"
    path.write_text(f"clusters = A, B\nA.bootstrap.servers = {a.bootstrap}\nB.bootstrap.servers = {b.bootstrap}\n"
                    f"A->B.enabled = true\nA->B.topics = {topic}\nB->A.enabled = false\n{extra}"
                    + mm2_settings({"A": a, "B": b}))
    log = tmp_path / "mm.log"
    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO,
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        yield log
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0, log.read_text()[-2000:]


def healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=5).status_code == 200
    except httpx.TransportError:
        return False


def text_with(url: str, part: str) -> str:
    """The body of GET `url` once it contains `part`, else "" (not yet)."""
    text = httpx.get(url, timeout=10).text
    return text if part in text else ""


def test_without_listeners_rest_answers_on_loopback_only(tmp_path: Path, broker: Broker, broker_b: Broker) -> None:
    """No `listeners`: the API answers on 127.0.0.1:8083, a connection to the same port on a non-loopback
    address of this machine is refused, and one INFO line says how to expose it. The flow's source password
    (`A.ssl.key.password`) is `[hidden]` in its connector's and tasks' configs."""
    wait_for(lambda: port_free(DEFAULT_PORT), 60, f"port {DEFAULT_PORT} free for the default listener")
    secret = "A.ssl.key.password = pw-dedicated\n"  # the leak: source.cluster.ssl.key.password in clear
    with non_loopback_address() as address, mirror_maker(tmp_path, broker, broker_b, secret) as log:
        base = f"http://127.0.0.1:{DEFAULT_PORT}/A/B"
        wait_for(lambda: healthy(f"http://127.0.0.1:{DEFAULT_PORT}"), 90, "REST on 127.0.0.1:8083")
        assert not reachable(address, DEFAULT_PORT), f"REST answers on {address}:{DEFAULT_PORT}"
        lines = [line for line in log.read_text().splitlines() if "only (this machine)" in line]
        assert len(lines) == 1 and "INFO" in lines[0] and "listeners = http://0.0.0.0:8083" in lines[0], lines
        config = wait_for(lambda: httpx.get(f"{base}/connectors/MirrorSourceConnector/config", timeout=10).json()
                          .get("source.cluster.ssl.key.password"), 60, "the source connector's config")
        assert config == "[hidden]"
        tasks = wait_for(lambda: text_with(f"{base}/connectors/MirrorSourceConnector/tasks", "source.cluster"), 60,
                         "its task configs")
        listing = httpx.get(f"{base}/connectors?expand=info", timeout=10).text
        assert "pw-dedicated" not in tasks + listing and "[hidden]" in tasks, tasks


def test_listeners_set_is_honoured(tmp_path: Path, broker: Broker, broker_b: Broker) -> None:
    """`listeners = http://0.0.0.0:<port>` serves every interface, as before: the same non-loopback address
    answers (the check above can fail), and no loopback notice is logged."""
    port = free_port()
    with non_loopback_address() as address, \
            mirror_maker(tmp_path, broker, broker_b, f"listeners = http://0.0.0.0:{port}\n") as log:
        wait_for(lambda: healthy(f"http://{address}:{port}"), 90, f"REST on {address}:{port}")
        assert "only (this machine)" not in log.read_text()
