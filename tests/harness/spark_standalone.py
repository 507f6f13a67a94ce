"""A real Spark standalone cluster for tests: one master and one worker from the installed pyspark wheel.

Both daemons run `$SPARK_HOME/bin/spark-class` (SPARK_HOME = the pyspark package directory) bound to
127.0.0.1 on free ports, each in its own process group, with small memory and one core (the test machine
has 2 shared cores). `start_spark_cluster` returns once the master's web UI JSON lists the worker ALIVE;
`SparkCluster.stop` kills both process groups (and the executors the worker started).

Executors are separate JVMs started by the worker, and their Python workers are started with the driver's
`spark.pyspark.python`: `driver_settings()` gives the connector settings a backfill needs to run here.
`executor_logs()` collects each executor's stderr from the worker's work dir, the first place to look when
records do not arrive.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from pyconnect.testing.brokers import free_port


def spark_home() -> str:
    import pyspark

    return os.path.dirname(pyspark.__file__)


@dataclass
class SparkCluster:
    master_url: str
    web_url: str
    work_dir: Path
    log_dir: Path
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def state(self) -> dict[str, object]:
        with urllib.request.urlopen(f"{self.web_url}/json/", timeout=5) as response:  # noqa: S310 - loopback
            state: dict[str, object] = json.loads(response.read())
            return state

    def alive_workers(self) -> int:
        workers = self.state().get("workers", [])
        assert isinstance(workers, list)
        return sum(1 for w in workers if w.get("state") == "ALIVE")

    def completed_apps(self) -> list[dict[str, object]]:
        apps = self.state().get("completedapps", [])
        assert isinstance(apps, list)
        return apps

    def driver_settings(self) -> dict[str, str]:
        """Connector settings for a backfill on this cluster: the master, the driver reachable on
        loopback, one small executor, and this interpreter (the venv, which has the project and its
        dependencies) for the executors' Python workers."""
        return {"spark.master": self.master_url, "spark.driver.host": "127.0.0.1",
                "spark.driver.bindAddress": "127.0.0.1", "spark.executor.memory": "512m",
                "spark.executor.cores": "1", "spark.cores.max": "1", "spark.ui.enabled": "false",
                "spark.pyspark.python": sys.executable}

    def executor_logs(self) -> str:
        """Every executor's stderr (tail), for failure messages."""
        parts = []
        for path in sorted(self.work_dir.glob("app-*/*/stderr")):
            parts.append(f"--- {path.relative_to(self.work_dir)}\n{path.read_text(errors='replace')[-4000:]}")
        return "\n".join(parts) or "(no executor logs)"

    def daemon_logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in sorted(
            self.log_dir.glob("*.log")))

    def stop(self) -> None:
        for proc in reversed(self.processes):  # the worker first: it kills its executors on SIGTERM
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in reversed(self.processes):
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)


def _daemon(cls: str, args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    out = open(log, "ab")  # noqa: SIM115 - owned by the child
    try:
        return subprocess.Popen([os.path.join(spark_home(), "bin", "spark-class"), cls, *args], stdout=out,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)
    finally:
        out.close()


def start_spark_cluster(root: Path, cores: int = 1, memory: str = "768m", timeout: float = 90.0) -> SparkCluster:
    """Start a master and one worker under `root` (work and log dirs); wait for the worker to register."""
    work, logs = root / "spark-work", root / "spark-logs"
    work.mkdir(parents=True, exist_ok=True)
    logs.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SPARK_HOME": spark_home(), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(logs),
           "SPARK_WORKER_DIR": str(work), "SPARK_DAEMON_MEMORY": "256m", "PYSPARK_PYTHON": sys.executable,
           "SPARK_NO_DAEMONIZE": "1"}
    port, ui, worker_ui = free_port(), free_port(), free_port()
    cluster = SparkCluster(f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{ui}", work, logs)
    cluster.processes.append(_daemon("org.apache.spark.deploy.master.Master", [
        "--host", "127.0.0.1", "--port", str(port), "--webui-port", str(ui)], logs / "master.log", env))
    try:
        cluster.processes.append(_daemon("org.apache.spark.deploy.worker.Worker", [
            cluster.master_url, "--host", "127.0.0.1", "--cores", str(cores), "--memory", memory,
            "--webui-port", str(worker_ui), "--work-dir", str(work)], logs / "worker.log", env))
        _wait_registered(cluster, timeout)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _wait_registered(cluster: SparkCluster, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for proc in cluster.processes:
            if proc.poll() is not None:
                raise RuntimeError(f"a Spark daemon exited with {proc.returncode}:\n{cluster.daemon_logs()}")
        try:
            if cluster.alive_workers() >= 1:
                return
        except OSError:
            pass
        time.sleep(0.2)  # poll interval of the deadline loop above
    raise TimeoutError(f"no Spark worker registered within {timeout} s:\n{cluster.daemon_logs()}")
