"""A dedicated MirrorMaker restarted on another listener takes over at once when its predecessor stopped cleanly.

The predecessor's leave record tells every reader it is gone, so the new process (a new worker id: its URL changed)
claims each flow's leadership as soon as it has read the membership topic, without waiting out a session timeout.
"""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from tests.harness.brokers import Broker, free_port
from tests.harness.mirror import mm2_file
from tests.harness.workers import REPO, wait_for

STAMP = re.compile(r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\]")


def _at(line: str) -> datetime:
    match = STAMP.match(line)
    assert match, line
    return datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S,%f")


def _start(tmp_path: Path, a: Broker, b: Broker, port: int, prefix: str) -> tuple[subprocess.Popen[bytes], Path]:
    path = mm2_file(tmp_path / f"mm-{port}.properties", a, b, port, prefix)
    log_path = tmp_path / f"mm-{port}.log"
    log = open(log_path, "ab")  # noqa: SIM115 - owned by the child process
    proc = subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO, stdout=log,
                            stderr=subprocess.STDOUT)
    return proc, log_path


def _leading(log_path: Path) -> list[str]:
    return [line for line in log_path.read_text(errors="replace").splitlines() if "claiming cluster leadership" in line]


def test_a_restart_on_another_listener_leads_at_once(tmp_path: Path, broker: Broker, broker_b: Broker,
                                                     unique: str) -> None:
    first, first_log = _start(tmp_path, broker, broker_b, free_port(), f"tk{unique}")
    try:
        wait_for(lambda: len(_leading(first_log)) == 2, 60, "the first process leading both flows")
    finally:
        first.terminate()
        assert first.wait(30) == 0
    second, second_log = _start(tmp_path, broker, broker_b, free_port(), f"tk{unique}")
    try:
        wait_for(lambda: len(_leading(second_log)) == 2 or None, 60, "the restarted process leading both flows")
        lines = second_log.read_text(errors="replace").splitlines()
        # Per flow: from the first line it logs (its read of the membership topic names the old leader) to its
        # claim. The flows start one after the other, so the process's first line would add the other's start.
        waited = {}
        for flow in ("[A->B]", "[B->A]"):
            mine = [line for line in lines if flow in line]
            claim = next(line for line in mine if "claiming cluster leadership" in line)
            waited[flow] = (_at(claim) - _at(mine[0])).total_seconds()
        print(f"the restarted process led each flow this long after its first line for it: {waited}")
        assert max(waited.values()) < 4.0, f"waited {waited} for a predecessor that had left (session timeout 10 s)"
    finally:
        second.terminate()
        second.wait(30)
