"""Property-based fuzzing of the served OpenAPI document against a live worker (schemathesis)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.harness.connectors import sequence_connector
from tests.harness.workers import Cluster


def test_openapi_fuzz_finds_no_server_errors(cluster_factory: Any, tmp_path: Path) -> None:
    cli = shutil.which("schemathesis") or str(Path(sys.executable).with_name("schemathesis"))
    if not Path(cli).exists():
        pytest.skip("schemathesis is not installed (pip install -e '.[test]')")
    cluster: Cluster = cluster_factory()
    (w,) = cluster.start(1)
    assert w.request("POST", "/connectors", sequence_connector("fuzz", "fuzz-out", 1, 10, 10)).status_code == 201
    spec = w.request("GET", "/openapi.json").json()
    assert {"/connectors", "/connectors/{name}/status", "/connector-plugins/{plugin}/config/validate",
            "/admin/loggers/{name}", "/health"} <= set(spec["paths"])
    proc = subprocess.run([cli, "run", f"{w.url}/openapi.json", "--checks", "not_a_server_error",
                           "--max-examples", "10", "--workers", "1", "--seed", "20261121",
                           "--generation-database", "none", "--request-timeout", "30", "--no-color"],
                          capture_output=True, text=True, timeout=280, cwd=tmp_path)
    summary = proc.stdout[-4000:]
    generated = re.search(r"(\d+) generated", summary)
    print(f"\nFUZZ: {generated.group(1) if generated else '?'} generated test cases, exit {proc.returncode}")
    assert proc.returncode == 0, summary + proc.stderr[-2000:]
    assert generated and int(generated.group(1)) > 200
