"""The README's demo command: a clean live table on the terminal, and nothing left running however it stops.

`bash scripts/demo.sh --duration 20 | tee out.log` prints no log lines, and a piped demo
interrupted with SIGINT (what Ctrl-C sends to every process of the terminal's foreground job, `tee`
included) leaves no broker or worker running.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

from tests.harness.processes import alive, descendants
from tests.harness.workers import REPO

TABLE_LINE = re.compile(r"^(flow +topic +produced +replicated +rate/s +lag|A -> B +(orders|payments) +[\d,]+ .*"
                        r"|replication after [\d,]+ s)$")
# Every line the demo itself prints, besides the table; anything else (a log line, a traceback) fails.
OWN_LINES = re.compile(r"^(log: .*/demo\.log|starting two embedded .*|mirror maker running .*|console: http.*/A/B/ui"
                       r"|REST API: .*|shutting down \.\.\.|demo finished cleanly|)$")


def _foreign_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if not (TABLE_LINE.match(line) or OWN_LINES.match(line))]


def test_piped_demo_prints_only_its_table_and_exits_zero(tmp_path: Path) -> None:
    out = tmp_path / "out.log"
    # stderr joins stdout: the terminal would show both.
    proc = subprocess.run(["bash", "-c", f"bash scripts/demo.sh --duration 20 2>&1 | tee {out}"], cwd=REPO,
                          capture_output=True, text=True, timeout=150)
    text = out.read_text()
    assert proc.returncode == 0, text[-3000:]
    assert _foreign_lines(text) == [], text[-3000:]
    log_path = re.search(r"^log: (.*)$", text, re.M)
    assert log_path and "INFO" in Path(log_path.group(1)).read_text(), "the log went to the file it names"
    replicated = [int(n.replace(",", "")) for n in re.findall(r"^A -> B +orders +[\d,]+ +([\d,]+) ", text, re.M)]
    assert replicated and replicated[-1] > 0, text[-2000:]
    assert "\r" not in text, "a piped demo prints whole tables, not a line redrawn in place"
    assert text.rstrip().endswith("demo finished cleanly")


def test_sigint_to_a_piped_demo_stops_every_process_it_started(tmp_path: Path) -> None:
    out = tmp_path / "out.log"
    job = subprocess.Popen(["bash", "-c", f"exec .venv/bin/python -m replikafka demo | tee {out}"], cwd=REPO,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while not re.search(r"^A -> B +orders +[\d,]+ +[1-9]", out.read_text() if out.exists() else "", re.M):
            assert time.monotonic() < deadline, "the demo replicated nothing in 90 s"
            assert job.poll() is None, "the demo ended by itself"
            time.sleep(0.2)  # poll interval: the loop ends at its deadline
        started = descendants(job.pid)
        brokers = [p for p in started if "tansu" in Path(f"/proc/{p}/cmdline").read_bytes().decode(errors="replace")]
        assert len(brokers) == 2, started
        os.killpg(job.pid, signal.SIGINT)  # Ctrl-C: bash, python and tee all get it; tee dies at once
        job.wait(60)
        deadline = time.monotonic() + 30
        while [p for p in started if alive(p)]:
            assert time.monotonic() < deadline, [p for p in started if alive(p)]
            time.sleep(0.2)  # poll interval: the loop ends at its deadline
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
