"""The operator console's page load: server time of `GET /ui` with 200 topic-partitions and a full history.

    python bench/console_bench.py [--partitions 200] [--loads 30] [--url http://127.0.0.1:8083]

In process (no brokers): a worker stand-in runs one MirrorSource-like task reporting `--partitions`
topic-partitions (20 topics; lag, rate, record age, replication latency, as `connectors.mirror.metrics`
names them) plus checkpoint latencies of 3 groups for 50 of them; the real `MetricHistory` samples it
180 times (15 minutes at the default 5 s, every ring buffer full); the real console router
(`rest.console`) is served by a FastAPI app and `/ui` is requested `--loads` times through Starlette's
in-process client: the figure is the server's time (routing, the status bodies of 4 connectors with 4
tasks each, all sections rendered), without the network and without the herder's status refresh,
which is a read of the status topic that `GET /connectors/{name}/status` pays alike. The page must
hold every partition's row. Median, p95 and max are printed; exits 1 if the median is over 300 ms.

`--url` times `GET /ui` of a live worker instead (client side, loopback, so an upper bound of its
server time; credentials as user:password in the URL are passed as basic auth).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pyconnect.api.metrics import MetricSample  # noqa: E402
from pyconnect.api.states import State  # noqa: E402
from pyconnect.api.task_id import TaskId  # noqa: E402
from pyconnect.runtime.metrics.history import WINDOW_S, MetricHistory  # noqa: E402
from pyconnect.runtime.metrics.worker_metrics import TaskMetricsRegistry  # noqa: E402
from pyconnect.runtime.results import ConnectorState, ConnectorStateInfo, TaskState  # noqa: E402

BUDGET_MS = 300.0
INTERVAL_S = 5.0
SOURCE = "kafka_connect_mirror_mirrorsourceconnector_"
CHECKPOINT = "kafka_connect_mirror_mirrorcheckpointconnector_checkpoint_latency_ms"


class _Runner:
    state = "RUNNING"

    def __init__(self) -> None:
        self.metrics = TaskMetricsRegistry()


class _Worker:
    """What the history reads of a worker: one task whose figures change at every sample."""

    def __init__(self, partitions: int) -> None:
        self.connectors: dict[str, _Runner] = {}
        self.tasks = {TaskId("mm", 0): _Runner()}
        self.partitions, self.tick = partitions, 0
        self.tasks[TaskId("mm", 0)].metrics.register(self.samples)

    def samples(self) -> list[MetricSample]:
        self.tick += 1
        out = []
        for p in range(self.partitions):
            labels = {"source": "A", "target": "B", "topic": f"A.topic-{p // 10}", "partition": str(p % 10)}
            wave = (self.tick * 7 + p) % 50
            out += [MetricSample(SOURCE + "offset_lag", "", labels, float(wave * 100)),
                    MetricSample(SOURCE + "record_rate", "", labels, float(1000 - wave)),
                    MetricSample(SOURCE + "record_age_ms", "", labels, float(wave * 40)),
                    MetricSample(SOURCE + "replication_latency_ms", "", labels, float(20 + wave))]
            if p < 50:
                for group in ("g1", "g2", "g3"):
                    out.append(MetricSample(CHECKPOINT, "", {**labels, "group": group}, float(5 + wave)))
        return out


class _Statuses:
    """The herder's status reads, answered from memory: 4 connectors of 4 tasks, one task failed."""

    def connectors(self) -> list[str]:
        return ["mm", "mm-checkpoint", "mm-heartbeat", "mm-backfill", "sink"]

    def connector_status(self, name: str) -> ConnectorStateInfo:
        tasks = [TaskState(State.RUNNING, "10.0.0.1:8083", id=i) for i in range(3)]
        tasks.append(TaskState(State.FAILED, "10.0.0.2:8083", "java.lang.RuntimeException: drill\n\tat x\n" * 20,
                               id=3))
        if name == "mm-backfill":
            tasks = [TaskState(State.RUNNING, "10.0.0.1:8083", id=0, progress={
                "state": "copying", "records_copied": 1_200_000, "records_total": 3_000_000,
                "rate_records_per_second": 95_000.0, "eta_seconds": 18.9, "topics": {}})]
        return ConnectorStateInfo(name, ConnectorState(State.RUNNING, "10.0.0.1:8083"), tasks, "source")

    def connector_config(self, name: str) -> dict[str, str]:
        aliases = {} if name == "sink" else {"source.cluster.alias": "A", "target.cluster.alias": "B"}
        return {"name": name, **aliases}


def in_process(partitions: int, loads: int) -> list[float]:
    """Milliseconds of each `GET /ui` against a full 15-minute history of `partitions` partitions."""
    from fastapi import FastAPI
    from starlette.testclient import TestClient

    from rest import console

    history = MetricHistory(_Worker(partitions), {}, INTERVAL_S)
    now = time.time()
    samples = int(WINDOW_S / INTERVAL_S)
    for i in range(samples):
        history.sample(now - (samples - 1 - i) * INTERVAL_S)
    app = FastAPI()
    app.include_router(console.router(console.Console(_Statuses(), history, "10.0.0.1:8083", False)))
    client = TestClient(app)
    first = client.get("/ui")
    assert first.status_code == 200 and first.text.count('<tr class="partition">') == partitions, "incomplete page"
    assert first.text.count('<tr class="flow"') == 1 and first.text.count('<tr class="backfill"') == 1, "no flows"
    return _timed(lambda: client.get("/ui"), loads)


def live(url: str, loads: int) -> list[float]:
    import httpx

    parsed = urlparse(url)
    auth = (parsed.username or "", parsed.password or "") if parsed.username else None
    base = f"{parsed.scheme}://{parsed.hostname}:{parsed.port}{parsed.path.rstrip('/')}"
    with httpx.Client(auth=auth, verify=False) as client:
        assert client.get(base + "/ui").status_code == 200
        return _timed(lambda: client.get(base + "/ui"), loads)


def _timed(load: Any, loads: int) -> list[float]:
    out = []
    for _ in range(loads):
        start = time.perf_counter()
        response = load()
        out.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200
    return out


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {"median_ms": statistics.median(ordered), "p95_ms": ordered[int(0.95 * (len(ordered) - 1))],
            "max_ms": ordered[-1]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--partitions", type=int, default=200)
    parser.add_argument("--loads", type=int, default=30)
    parser.add_argument("--url", help="time a live worker's /ui instead")
    args = parser.parse_args()
    times = live(args.url, args.loads) if args.url else in_process(args.partitions, args.loads)
    figures = summary(times)
    where = args.url or f"in process, {args.partitions} topic-partitions, {int(WINDOW_S / INTERVAL_S)} samples each"
    print(f"GET /ui ({where}), {args.loads} loads: " + ", ".join(f"{k} {v:.1f}" for k, v in figures.items()))
    if figures["median_ms"] > BUDGET_MS:
        print(f"FAIL: median over {BUDGET_MS:.0f} ms")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
