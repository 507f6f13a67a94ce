"""Standalone worker processes for tests: real `python -m replikafka standalone worker.properties
connector.properties ...` processes on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from tests.harness.brokers import Broker, free_port
from tests.harness.workers import REPO, WorkerProcess, write_properties


def standalone_properties(broker: Broker, offsets_file: Path, port: int | None = None,
                          extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A standalone worker file: the broker, an offsets file, a 1 s offset flush and a free REST port."""
    return {
        "bootstrap.servers": broker.bootstrap,
        "offset.storage.file.filename": str(offsets_file),
        "offset.flush.interval.ms": "1000",
        "listeners": f"http://127.0.0.1:{port or free_port()}",
        **broker.client_overrides,
        **(extra or {}),
    }


class StandaloneProcess(WorkerProcess):
    """One standalone worker process with its worker file, connector files and log."""

    def __init__(self, directory: Path, props: Mapping[str, str], connectors: Mapping[str, Mapping[str, str]],
                 name: str = "standalone") -> None:
        super().__init__(directory, props, name)
        self.connector_paths = [write_properties(directory / f"{name}-{connector}.properties", config)
                                for connector, config in connectors.items()]

    def command(self) -> list[str]:
        return [sys.executable, "-m", "replikafka", "standalone", str(self.config_path),
                *map(str, self.connector_paths)]

    def start(self) -> StandaloneProcess:
        log = open(self.log_path, "ab")  # noqa: SIM115 - owned by the child process
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT, cwd=REPO, env=env)
        return self


def run_standalone(args: list[str], timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    """Run `python -m replikafka standalone ARGS` to its exit (for inputs it must refuse)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "replikafka", "standalone", *args], capture_output=True,
                          text=True, cwd=REPO, env=env, timeout=timeout)
