"""`pyconnect demo`: a two-worker cluster on an embedded local broker, with live progress.

Starts a broker process on loopback, two workers (in this process) with their REST APIs, creates
a SequenceSource connector with four tasks, shows records/s and where each task runs, kills
nothing and cleans everything up on Ctrl-C or after `--duration` seconds.
"""

from __future__ import annotations

import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType

import httpx

from pyconnect.config.properties import parse_properties
from pyconnect.config.worker import load_worker_config
from pyconnect.runtime.worker import Worker
from pyconnect.testing.brokers import free_port, start_broker


def _worker_properties(bootstrap: str, port: int, overrides: dict[str, str]) -> str:
    lines = {
        "bootstrap.servers": bootstrap, "group.id": "demo-cluster",
        "config.storage.topic": "connect-configs", "offset.storage.topic": "connect-offsets",
        "status.storage.topic": "connect-status", "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1", "status.storage.replication.factor": "1",
        "offset.flush.interval.ms": "2000", "listeners": f"http://127.0.0.1:{port}", **overrides,
    }
    return "".join(f"{k}={v}\n" for k, v in lines.items())


def run_demo(duration: float = 0.0) -> int:
    from pyconnect.cli import RestServer

    out = sys.stdout
    print("starting an embedded Kafka-protocol broker on loopback ...", file=out)
    broker = start_broker("demo")
    workers: list[tuple[Worker, RestServer]] = []
    stop = threading.Event()

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        tmp = Path(tempfile.mkdtemp(prefix="pyconnect-demo-"))
        for i in range(2):
            port = free_port()
            path = tmp / f"worker-{i}.properties"
            path.write_text(_worker_properties(broker.bootstrap, port, broker.client_overrides))
            worker = Worker(load_worker_config(parse_properties(path.read_text(), str(path))))
            worker.start()
            workers.append((worker, RestServer(worker).start()))
        rest = workers[0][0].url
        _wait_rest(rest)
        body = {"name": "demo-sequence", "config": {"connector.class": "SequenceSourceConnector",
                                                    "topic": "demo-events", "tasks.max": "4", "rate": "250"}}
        r = httpx.post(rest + "/connectors", json=body, timeout=30)
        r.raise_for_status()
        print(f"broker: {broker.bootstrap}   REST API: {rest} and {workers[1][0].url}", file=out)
        print(f"try:  curl -s {rest}/connectors/demo-sequence/status", file=out)
        _progress(rest, stop, duration, out)
    finally:
        print("\nshutting down ...", file=out)
        for worker, server in workers:
            server.stop()
            worker.stop()
        broker.stop()
    print("demo finished cleanly", file=out)
    return 0


def _wait_rest(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"REST API at {url} did not come up")


def _progress(rest: str, stop: threading.Event, duration: float, out: object) -> None:
    started = time.monotonic()
    last_total, last_time = 0, started
    while not stop.wait(1.0):
        now = time.monotonic()
        status = httpx.get(f"{rest}/connectors/demo-sequence/status", timeout=10).json()
        offsets = httpx.get(f"{rest}/connectors/demo-sequence/offsets", timeout=10).json()["offsets"]
        total = sum(o["offset"]["seq"] + 1 for o in offsets)
        rate = (total - last_total) / (now - last_time)
        last_total, last_time = total, now
        placement = " ".join(f"t{t['id']}@{t['worker_id'].rsplit(':', 1)[1]}:{t['state'][:3]}"
                             for t in status.get("tasks", []))
        line = (f"\r[{now - started:5.0f}s] committed {total:>8,} records  {rate:7.0f} rec/s  "
                f"tasks: {placement}")
        print(line, end="", file=out, flush=True)  # type: ignore[call-overload]
        if duration and now - started >= duration:
            break
