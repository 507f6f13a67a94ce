"""The README's main command: the demo runs end to end and exits cleanly."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.harness.workers import REPO


def test_demo_runs_and_exits_zero() -> None:
    proc = subprocess.run([sys.executable, "-m", "replikafka", "demo", "--duration", "8"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "REST API: http://127.0.0.1:" in proc.stdout and "/A/B/connectors" in proc.stdout
    replicated = [int(n.replace(",", "")) for n in re.findall(r"orders: +([\d,]+) replicated", proc.stdout)]
    assert replicated and replicated[-1] > 0, proc.stdout[-2000:]
    assert "demo finished cleanly" in proc.stdout
