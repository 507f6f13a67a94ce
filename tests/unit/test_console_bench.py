"""The console's page-load budget: `GET /ui` with 200 topic-partitions and a full 15-minute
history in <= 300 ms of server time, measured by bench/console_bench.py's in-process run (short version)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench" / "console_bench.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("console_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_page_load_with_200_partitions_within_budget() -> None:
    bench = load_bench()
    figures = bench.summary(bench.in_process(200, 10))
    assert figures["median_ms"] <= bench.BUDGET_MS, figures
