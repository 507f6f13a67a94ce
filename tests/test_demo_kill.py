"""Killed with SIGKILL, `replikafka demo` and `replikafka local-broker` leave no broker running.

Neither command gets to stop its brokers then; the brokers are started with PR_SET_PDEATHSIG
(pyconnect.testing.parent_death), so the kernel kills them when the command's process is gone.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.harness.processes import alive, descendants
from tests.harness.workers import REPO
from tests.test_broker_cli import _Output, _start

GONE_WITHIN_S = 5.0


def _brokers_below(pid: int) -> list[int]:
    """The Tansu processes below `pid` (they run in sessions of their own, still children of `pid`)."""
    found = []
    for child in descendants(pid):
        try:
            if "tansu" in Path(f"/proc/{child}/cmdline").read_bytes().decode(errors="replace"):
                found.append(child)
        except OSError:
            continue
    return found


def _kill_9_leaves_no_broker(command: subprocess.Popen[Any], brokers_expected: int, what: str) -> None:
    """SIGKILL `command`; every broker below it must be gone within GONE_WITHIN_S."""
    brokers = _brokers_below(command.pid)
    try:
        assert len(brokers) == brokers_expected, brokers
        os.kill(command.pid, signal.SIGKILL)
        killed = time.monotonic()
        while [b for b in brokers if alive(b)]:
            assert time.monotonic() - killed < GONE_WITHIN_S, f"brokers outlived the killed {what}: {brokers}"
            time.sleep(0.05)  # poll interval: the loop ends at its deadline
        print(f"{what}'s brokers gone {time.monotonic() - killed:.2f} s after kill -9")
    finally:
        for pid in brokers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


@contextmanager
def _ended(command: subprocess.Popen[Any]) -> Iterator[None]:
    """Whatever happens inside, `command` (and its process group) is gone afterwards."""
    try:
        yield
    finally:
        if command.poll() is None:
            os.killpg(command.pid, signal.SIGKILL)
        command.wait(10)


def test_kill_9_of_the_demo_leaves_no_broker(tmp_path: Path) -> None:
    out = tmp_path / "out.log"
    with out.open("w") as sink:
        demo = subprocess.Popen([sys.executable, "-m", "replikafka", "demo"], cwd=REPO, stdout=sink,
                                stderr=subprocess.STDOUT, start_new_session=True)
    with _ended(demo):
        deadline = time.monotonic() + 90
        while not re.search(r"^mirror maker running", out.read_text(), re.M):
            assert demo.poll() is None, f"the demo exited: {out.read_text()[-2000:]}"
            assert time.monotonic() < deadline, f"the demo did not start in 90 s: {out.read_text()[-2000:]}"
            time.sleep(0.2)  # poll interval: the loop ends at its deadline
        _kill_9_leaves_no_broker(demo, 2, "demo")


def test_kill_9_of_local_broker_leaves_no_broker() -> None:
    command = _start("--port", "0")
    out = _Output(command)
    with _ended(command):
        out.wait_for("Ctrl-C stops it.", command, 20)
        _kill_9_leaves_no_broker(command, 1, "local-broker")
