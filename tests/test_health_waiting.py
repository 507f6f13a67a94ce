"""A worker process that waits for Kafka at start answers `/health` with 503 and the reason.

A distributed worker and a dedicated MirrorMaker pointed at an address nobody listens on answer `GET /health`
with 503 `{"status": "starting", ...}` naming the address (and that connections to it are refused) within
seconds of their start, and every other path with 503 and Connect's error body, instead of leaving the
connection unanswered until the start gives up. A normal start still reaches 200 (KIP-1017's healthy worker).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.harness.brokers import Broker, free_port
from tests.harness.workers import REPO, WorkerProcess, wait_for, worker_properties, write_properties

ANSWER_WITHIN_S = 10.0  # from the process's start, Python's imports included (~2 s here, more on a loaded machine)


def _unreachable() -> str:
    """A loopback address nobody listens on (a port just free)."""
    return f"127.0.0.1:{free_port()}"


def _first_answer(url: str, process: subprocess.Popen[bytes], started: float) -> tuple[float, httpx.Response]:
    """The first answer of GET `url` and the seconds since `started` it took."""
    deadline = started + ANSWER_WITHIN_S
    while True:
        assert process.poll() is None, f"the process exited ({process.returncode})"
        try:
            return time.monotonic() - started, httpx.get(url, timeout=1)
        except httpx.HTTPError as exc:
            assert time.monotonic() < deadline, f"no answer from {url} within {ANSWER_WITHIN_S} s: {exc!r}"
            time.sleep(0.1)  # poll interval: the loop ends at its deadline


def _assert_starting(base: str, process: subprocess.Popen[bytes], started: float, names: list[str]) -> None:
    took, health = _first_answer(base + "/health", process, started)
    print(f"/health answered {health.status_code} {took:.1f} s after the process started: {health.text}")
    body: dict[str, Any] = health.json()
    assert health.status_code == 503 and body["status"] == "starting", health.text
    assert "waiting for Kafka" in body["message"] and "connection refused" in body["message"], body
    for name in names:
        assert name in body["message"], (name, body)
    other = httpx.get(base + "/connectors", timeout=5)
    assert other.status_code == 503 and other.json()["error_code"] == 503, other.text
    assert "waiting for Kafka" in other.json()["message"], other.text


def test_a_distributed_worker_waiting_for_kafka_answers_health_503_with_the_reason(tmp_path: Path) -> None:
    address = _unreachable()
    port = free_port()
    props = worker_properties(Broker(address, "external"), "waiting", port)
    worker = WorkerProcess(tmp_path, props, "waiting")
    started = time.monotonic()
    worker.start()
    assert worker.process is not None
    try:
        _assert_starting(worker.url, worker.process, started, [address, "group waiting"])
    finally:
        worker.kill()


def test_a_dedicated_mirror_maker_waiting_for_kafka_answers_health_503_naming_each_cluster(tmp_path: Path) -> None:
    a, b, port = _unreachable(), _unreachable(), free_port()
    config = write_properties(tmp_path / "mm2.properties", {
        "clusters": "A, B", "A.bootstrap.servers": a, "B.bootstrap.servers": b, "A->B.enabled": "true",
        "A->B.topics": "orders", "listeners": f"http://127.0.0.1:{port}"})
    started = time.monotonic()
    with (tmp_path / "mm2.log").open("wb") as log:
        process = subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(config)], cwd=REPO,
                                   stdout=log, stderr=subprocess.STDOUT)
    try:
        _assert_starting(f"http://127.0.0.1:{port}", process, started, [f"cluster A at {a}", f"cluster B at {b}"])
    finally:
        process.kill()
        process.wait(10)


def test_a_normal_start_still_reaches_200(broker: Broker, tmp_path: Path) -> None:
    worker = WorkerProcess(tmp_path, worker_properties(broker, f"healthy-{tmp_path.name}", free_port()), "healthy")
    worker.start()
    try:
        healthy = wait_for(lambda: worker.request("GET", "/health").status_code == 200, 60, "a healthy worker")
        assert healthy
        body = worker.request("GET", "/health").json()
        assert body["status"] == "healthy", body
        assert worker.request("GET", "/connectors").status_code == 200
    finally:
        worker.terminate()
