"""bench/vs_java_mm2.py runs end to end: replikafka's and Java MirrorMaker 2 4.3.1's dedicated modes, one after the
other on two Apache Kafka 4.x clusters, and its table holds sane figures for both.

The default-suite test is a short version (small backlogs, one round, the throughput and latency rows) on clusters
this module starts; the full bench (every row, two rounds, the default record counts) is marked `slow`. Both run
the bench as a command, as a user would, and read its --json figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness.kafka_pair import kafka_pair
from tests.harness.workers import REPO

BENCH = REPO / "bench" / "vs_java_mm2.py"


@pytest.fixture(scope="module")
def clusters() -> Iterator[tuple[str, str]]:
    with kafka_pair("vs-java") as (a, b):
        yield a.bootstrap, b.bootstrap


def run_bench(tmp_path: Path, timeout: float, *arguments: str) -> tuple[str, dict[str, dict[str, list[float]]]]:
    out = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, str(BENCH), "--workdir", str(tmp_path / "runs"), "--json", str(out),
                           *arguments], cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    data = json.loads(out.read_text())
    assert not data["failures"], data["failures"]
    figures: dict[str, dict[str, list[float]]] = data["figures"]
    return done.stdout, figures


def only(figures: dict[str, dict[str, list[float]]], row: str) -> tuple[float, float]:
    """The one round's (Java, ours) figures of `row`."""
    assert len(figures[row]["java"]) == 1 and len(figures[row]["ours"]) == 1, figures[row]
    return figures[row]["java"][0], figures[row]["ours"][0]


@pytest.mark.timeout(1500)  # four JVM-and-Python starts (a JVM's start to its first copy: up to a minute, loaded)
def test_short_bench_measures_both_replicators(clusters: tuple[str, str], tmp_path: Path) -> None:
    a, b = clusters
    stdout, figures = run_bench(tmp_path, 1500, "--bootstrap-a", a, "--bootstrap-b", b, "--rounds", "1",
                                "--rows", "throughput,cpu,startup,latency", "--sizes", "1000",
                                "--records", "5000", "--rates", "200", "--latency-seconds", "3")
    for kind in ("java", "ours"):
        assert list((tmp_path / "runs").glob(f"run*-{kind}/mm2.properties")), f"no run of {kind}"
    for row in ("1. records/s, 1 KB, 1 task", "1. MB/s, 1 KB, 1 task"):
        for value in only(figures, row):
            assert value > 0, (row, figures[row])
    records_per_s, mb_per_s = only(figures, "1. records/s, 1 KB, 1 task"), only(figures, "1. MB/s, 1 KB, 1 task")
    for rec, mb in zip(records_per_s, mb_per_s, strict=True):
        assert mb == pytest.approx(rec * 1000 / 1e6), "MB/s is records/s times the record size"
    for value in only(figures, "2. CPU s per million records, 1 KB"):
        assert 0 < value < 10_000, figures  # each replicator used CPU to copy, and not absurdly much
    for value in only(figures, "2. peak RSS, 1 KB run"):
        assert 20 < value < 4000, figures  # a Python process or a JVM: tens of MB at least, never GBs
    for value in only(figures, "3. launch to first record on target, 1 KB run"):
        assert 0 < value < 300, figures
    p50s, p99s = only(figures, "5. latency p50 at 200 rec/s"), only(figures, "5. latency p99 at 200 rec/s")
    for p50, p99 in zip(p50s, p99s, strict=True):
        assert 0 < p50 <= p99 < 60_000, figures
    assert "| 1. records/s, 1 KB, 1 task |" in stdout and "ours/Java" in stdout, stdout[-2000:]


@pytest.mark.slow
@pytest.mark.timeout(7500)
def test_full_bench(tmp_path: Path) -> None:
    """Every row at the default sizes, two rounds, on clusters the bench starts itself."""
    stdout, figures = run_bench(tmp_path, 7200)
    for row, by_kind in figures.items():
        assert len(by_kind["java"]) == 2 and len(by_kind["ours"]) == 2, (row, by_kind)
    assert "| 6. offset syncs per record, 200 partitions |" in stdout, stdout[-3000:]
