"""Fail fast: a process whose REST listener cannot bind exits at start, naming the address, before it
joins its cluster.

Followed: Kafka's `RestServer.initializeServer` (connect/runtime/.../rest/RestServer.java) throws
"Unable to initialize REST server" when Jetty cannot bind, and `ConnectDistributed`/`ConnectStandalone`
(AbstractConnectCli) stop with that error before the herder starts; Connect's
`ConnectWorkerIntegrationTest` family starts workers on ports of their own for the same reason.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx

from tests.harness.brokers import Broker, free_port
from tests.harness.membership import leader_claim, sessions
from tests.harness.mirror import mm2_settings
from tests.harness.workers import REPO, Cluster, wait_for, worker_properties, write_properties

EXIT_BUDGET_S = 10.0


def run_until_exit(args: list[str]) -> tuple[int, str, float]:
    """Run a CLI to its end (it must end within the budget); (exit code, stderr, seconds taken)."""
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "replikafka", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=EXIT_BUDGET_S)
    return proc.returncode, proc.stderr, time.monotonic() - started


def assert_refused(code: int, stderr: str, took: float, address: str) -> None:
    assert code != 0, stderr
    assert took < EXIT_BUDGET_S
    (line,) = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert address in line and "Address already in use" in line, line
    assert "Traceback" not in stderr, stderr


def test_second_worker_on_a_taken_port_exits_and_leaves_the_leader_alone(
        cluster_factory: Callable[..., Cluster], broker: Broker) -> None:
    """One worker.properties started twice (same port, same group, so the same worker id): the second process
    exits non-zero within seconds naming the address, and never joins: the group's membership topic has
    the first process's session only, and its leadership epoch is unchanged."""
    cluster = cluster_factory()
    (first,) = cluster.start(1)
    epoch, leader = wait_for(lambda: leader_claim(broker.bootstrap, cluster.group)[0] > 0
                             and leader_claim(broker.bootstrap, cluster.group), 30, "a leader claim")
    before = sessions(broker.bootstrap, cluster.group)
    assert leader == first.worker_id and len(before) == 1

    code, stderr, took = run_until_exit(["distributed", str(first.config_path)])

    assert_refused(code, stderr, took, f"http://127.0.0.1:{first.port}")
    assert leader_claim(broker.bootstrap, cluster.group) == (epoch, leader)
    assert sessions(broker.bootstrap, cluster.group) == before, "the second process joined the group"
    assert first.process is not None and first.process.poll() is None
    assert first.request("GET", "/health").status_code == 200


def test_standalone_on_a_taken_port_exits(tmp_path: Path, broker: Broker) -> None:
    """Standalone: the same refusal, before the offsets file or any connector is touched."""
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        offsets = tmp_path / "offsets.json"
        props = {"bootstrap.servers": broker.bootstrap, "listeners": f"http://127.0.0.1:{port}",
                 "offset.storage.file.filename": str(offsets), **broker.client_overrides}
        path = write_properties(tmp_path / "standalone.properties", props)
        code, stderr, took = run_until_exit(["standalone", str(path)])
    assert_refused(code, stderr, took, f"http://127.0.0.1:{port}")
    assert not offsets.exists()


def test_second_mirror_maker_on_a_taken_port_exits(tmp_path: Path, broker: Broker, broker_b: Broker) -> None:
    """Dedicated mode: a second process of one mm2.properties exits naming the address; the first process's
    herder keeps its one session and its leadership epoch. `listeners = http://:PORT` (every interface): the
    first process logs its REST base URL with the host it bound, never `http://:PORT`."""
    u = uuid.uuid4().hex[:6]
    source, target = f"S{u}", f"T{u}"
    port = free_port()
    path = tmp_path / "mm2.properties"
    path.write_text(f"clusters = {source}, {target}\n{source}.bootstrap.servers = {broker.bootstrap}\n"
                    f"{target}.bootstrap.servers = {broker_b.bootstrap}\n{source}->{target}.enabled = true\n"
                    f"{source}->{target}.topics = none{u}\nlisteners = http://:{port}\n"
                    + mm2_settings({source: broker, target: broker_b}))
    log = open(tmp_path / "mm.log", "wb")  # noqa: SIM115 - owned by the child
    first = subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path), "--clusters", target],
                             cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    group = f"{source}-mm2"
    try:
        wait_for(lambda: httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200, 60,
                 "the first mirror maker healthy")
        epoch, leader = wait_for(lambda: leader_claim(broker_b.bootstrap, group)[0] > 0
                                 and leader_claim(broker_b.bootstrap, group), 30, "a leader claim")
        before = sessions(broker_b.bootstrap, group)
        logged = (tmp_path / "mm.log").read_text()
        assert f"under http://0.0.0.0:{port}/<source>/<target>" in logged and f"http://:{port}" not in logged

        code, stderr, took = run_until_exit(["mirror-maker", str(path), "--clusters", target])

        assert_refused(code, stderr, took, f"http://0.0.0.0:{port}")
        assert leader_claim(broker_b.bootstrap, group) == (epoch, leader)
        assert sessions(broker_b.bootstrap, group) == before
        assert first.poll() is None
        assert httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200
    finally:
        first.terminate()
        assert first.wait(30) == 0


def test_rest_url_is_logged_with_the_bound_host(tmp_path: Path, broker: Broker) -> None:
    """`listeners=http://:PORT` (every interface, as the default `http://:8083`): the start line names the host
    that was bound (0.0.0.0), never `http://:PORT`, and the REST API answers on it."""
    port = free_port()
    props = worker_properties(broker, f"g-{uuid.uuid4().hex[:8]}", port, {"listeners": f"http://:{port}"})
    path = write_properties(tmp_path / "w.properties", props)
    log = open(tmp_path / "w.log", "wb")  # noqa: SIM115 - owned by the child
    proc = subprocess.Popen([sys.executable, "-m", "replikafka", "distributed", str(path)], cwd=REPO, stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        line = wait_for(lambda: next((x for x in (tmp_path / "w.log").read_text().splitlines()
                                      if "REST API listening on" in x), None), 60, "the REST start line")
        assert re.search(rf"listening on http://0\.0\.0\.0:{port} ", line), line
        assert f"http://:{port}" not in (tmp_path / "w.log").read_text()
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=5).status_code == 200
    finally:
        proc.terminate()
        assert proc.wait(30) == 0


def test_https_listener_with_a_bad_key_exits_before_joining(tmp_path: Path, broker: Broker) -> None:
    """A listener whose TLS files do not load stops the start the same way (Jetty fails in `start()` too):
    exit non-zero naming the address, no traceback, and no session in the group's membership topic."""
    (tmp_path / "bad.pem").write_text("not a certificate\n")
    group, port = f"g-{uuid.uuid4().hex[:8]}", free_port()
    props = worker_properties(broker, group, port, {
        "listeners": f"https://127.0.0.1:{port}", "listeners.https.ssl.keystore.type": "PEM",
        "listeners.https.ssl.keystore.location": str(tmp_path / "bad.pem")})
    code, stderr, took = run_until_exit(["distributed", str(write_properties(tmp_path / "w.properties", props))])
    assert code != 0 and took < EXIT_BUDGET_S and "Traceback" not in stderr, stderr
    (line,) = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert f"https://127.0.0.1:{port}" in line and "Unable to initialize REST server" in line, line
    assert sessions(broker.bootstrap, group) == set()
