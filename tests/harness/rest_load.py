"""Concurrent REST clients for load tests: each client is a thread with its own connection pool, sending a mix
of reads (status, config, list, tasks) to random workers, or pause-then-resume cycles, until a deadline.
Every answer is recorded with its endpoint, status, latency and (for errors) its message; a request with
no answer within the client timeout is recorded with status 0."""

from __future__ import annotations

import random
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field

import httpx

TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Outcome:
    endpoint: str
    status: int  # 0: no answer (timeout or connection failure)
    seconds: float
    message: str = ""


@dataclass
class LoadReport:
    outcomes: list[Outcome] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, outcome: Outcome) -> None:
        with self.lock:
            self.outcomes.append(outcome)

    def by_endpoint(self) -> dict[str, list[Outcome]]:
        out: dict[str, list[Outcome]] = defaultdict(list)
        for o in self.outcomes:
            out[o.endpoint].append(o)
        return dict(out)

    def table(self) -> str:
        """Per endpoint: requests, statuses, p50/p95/p99/max latency in ms."""
        lines = [f"{'endpoint':<28}{'n':>7}  {'statuses':<22}{'p50':>8}{'p95':>8}{'p99':>8}{'max':>8}"]
        rows = sorted(self.by_endpoint().items()) + [("ALL", self.outcomes)]
        for name, outcomes in rows:
            ms = sorted(o.seconds * 1000 for o in outcomes)
            counts: dict[int, int] = defaultdict(int)
            for o in outcomes:
                counts[o.status] += 1
            statuses = ",".join(f"{s}x{n}" for s, n in sorted(counts.items()))
            lines.append(f"{name:<28}{len(ms):>7}  {statuses:<22}{percentile(ms, 50):>8.0f}{percentile(ms, 95):>8.0f}"
                         f"{percentile(ms, 99):>8.0f}{ms[-1] if ms else 0:>8.0f}")
        return "\n".join(lines)


def percentile(sorted_values: list[float], pct: float) -> float:
    """Nearest-rank percentile of already sorted values (0 if none)."""
    if not sorted_values:
        return 0.0
    rank = max(1, -(-len(sorted_values) * pct // 100))
    return sorted_values[int(rank) - 1]


def _call(client: httpx.Client, report: LoadReport, method: str, url: str, endpoint: str) -> None:
    start = time.monotonic()
    try:
        r = client.request(method, url)
        message = "" if r.status_code < 400 else r.text[:300]
        report.add(Outcome(endpoint, r.status_code, time.monotonic() - start, message))
    except httpx.HTTPError as exc:
        report.add(Outcome(endpoint, 0, time.monotonic() - start, f"{type(exc).__name__}: {exc}"))


READS = (("GET /connectors/{n}/status", "/connectors/{n}/status", 4), ("GET /connectors/{n}/config",
         "/connectors/{n}/config", 2), ("GET /connectors", "/connectors", 2), ("GET /connectors/{n}/tasks",
         "/connectors/{n}/tasks", 2))


def reader(urls: list[str], names: list[str], until: float, report: LoadReport, seed: int) -> None:
    """Reads of random endpoints of random connectors on random workers, back to back, until `until`."""
    rng = random.Random(seed)
    weights = [w for _e, _p, w in READS]
    with httpx.Client(timeout=TIMEOUT_S) as client:
        while time.monotonic() < until:
            endpoint, path, _w = rng.choices(READS, weights)[0]
            _call(client, report, "GET", rng.choice(urls) + path.format(n=rng.choice(names)), endpoint)


def pauser(urls: list[str], name: str, until: float, report: LoadReport, seed: int, paused_s: float = 1.0,
           running_s: float = 4.0) -> None:
    """Pause `name`, hold `paused_s`, resume it, let it run `running_s`, again until `until` (always resumed)."""
    rng = random.Random(seed)
    with httpx.Client(timeout=TIMEOUT_S) as client:
        while time.monotonic() < until:
            _call(client, report, "PUT", rng.choice(urls) + f"/connectors/{name}/pause", "PUT /connectors/{n}/pause")
            time.sleep(paused_s)  # the connector stays paused this long: the pacing is the point
            _call(client, report, "PUT", rng.choice(urls) + f"/connectors/{name}/resume", "PUT /connectors/{n}/resume")
            time.sleep(rng.uniform(0.5, 1.5) * running_s)


def run_load(urls: list[str], names: list[str], paused: str, clients: int, pausers: int,
             seconds: float) -> LoadReport:
    """`clients` concurrent clients for `seconds` (`pausers` of them pause/resume `paused`, the rest read)."""
    report = LoadReport()
    until = time.monotonic() + seconds
    threads = [threading.Thread(target=pauser, args=(urls, paused, until, report, i), daemon=True)
               for i in range(pausers)]
    threads += [threading.Thread(target=reader, args=(urls, names, until, report, 1000 + i), daemon=True)
                for i in range(clients - pausers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + TIMEOUT_S + 30)
    assert not any(t.is_alive() for t in threads), "a client is still waiting past its timeout"
    return report
