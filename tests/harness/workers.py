"""Worker processes for tests: real `python -m replikafka distributed` processes on loopback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import httpx

from tests.harness.brokers import Broker, free_port

T = TypeVar("T")
REPO = Path(__file__).resolve().parents[2]


def wait_for(predicate: Callable[[], T], timeout: float, what: str, interval: float = 0.1) -> T:
    """Poll until `predicate()` is truthy; return its value or fail naming `what`."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception as exc:  # transient while processes start or move work
            last_error = exc
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}"
                         + (f" (last error: {last_error})" if last_error else ""))


def worker_properties(broker: Broker, group: str, port: int, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    props = {
        "bootstrap.servers": broker.bootstrap,
        "group.id": group,
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "offset.flush.interval.ms": "1000",
        "listeners": f"http://127.0.0.1:{port}",
        **broker.client_overrides,
    }
    props.update(extra or {})
    return props


def write_properties(path: Path, props: Mapping[str, str]) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


class WorkerProcess:
    """One worker process with its own properties file and log."""

    def __init__(self, directory: Path, props: Mapping[str, str], name: str,
                 client: Mapping[str, Any] | None = None, python_path: list[str] | None = None) -> None:
        self.props = dict(props)
        self.python_path = list(python_path or [])  # extra import roots (installed-plugin fixtures)
        self.name = name
        self.port = int(self.props["listeners"].rsplit(":", 1)[1])
        scheme = self.props["listeners"].split("://", 1)[0]
        self.url = f"{scheme}://127.0.0.1:{self.port}"
        self.client = dict(client or {})  # httpx options: verify, auth
        self.worker_id = f"127.0.0.1:{self.port}"
        self.config_path = write_properties(directory / f"{name}.properties", self.props)
        self.log_path = directory / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> WorkerProcess:
        log = open(self.log_path, "ab")  # noqa: SIM115 - owned by the child process
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), *self.python_path])}
        self.process = subprocess.Popen([sys.executable, "-m", "replikafka", "distributed", str(self.config_path)],
                                        stdout=log, stderr=subprocess.STDOUT, cwd=REPO, env=env)
        return self

    def wait_ready(self, timeout: float = 60.0) -> WorkerProcess:
        def ready() -> bool:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"worker {self.name} exited: {self.log_tail()}")
            return httpx.get(self.url + "/", timeout=2, **self.client).status_code == 200
        wait_for(ready, timeout, f"worker {self.name} REST")
        return self

    def request(self, method: str, path: str, body: Any = None, **options: Any) -> httpx.Response:
        return httpx.request(method, self.url + path, json=body, timeout=30, **{**self.client, **options})

    def kill(self) -> None:
        """kill -9: no leave record, no offset flush."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def terminate(self, timeout: float = 30.0) -> int | None:
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        return self.process.returncode

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


class Cluster:
    """Worker processes of one group on one broker."""

    def __init__(self, broker: Broker, directory: Path, group: str, extra: Mapping[str, str] | None = None,
                 scheme: str = "http", client: Mapping[str, Any] | None = None) -> None:
        self.broker, self.directory, self.group = broker, directory, group
        self.extra = dict(extra or {})
        self.scheme, self.client = scheme, dict(client or {})
        self.workers: list[WorkerProcess] = []
        #: Import roots added to the workers' PYTHONPATH (a site directory with extra distributions).
        self.python_path: list[str] = []

    def add_worker(self, port: int | None = None) -> WorkerProcess:
        port = port or free_port()
        props = worker_properties(self.broker, self.group, port, {"listeners": f"{self.scheme}://127.0.0.1:{port}",
                                                                  **self.extra})
        worker = WorkerProcess(self.directory, props, f"{self.group}-w{len(self.workers)}", self.client,
                               self.python_path)
        self.workers.append(worker)
        return worker.start()

    def start(self, n: int) -> list[WorkerProcess]:
        started = [self.add_worker() for _ in range(n)]
        for w in started:
            w.wait_ready()
        return started

    def live(self) -> list[WorkerProcess]:
        return [w for w in self.workers if w.process is not None and w.process.poll() is None]

    def close(self) -> None:
        for w in self.workers:
            w.terminate(15)
