"""Fault injection for reliability tests: brokers of a test's own (so that freezing one disturbs no other
test), and a dedicated MirrorMaker process."""

from __future__ import annotations

import ctypes
import os
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pyconnect.testing.brokers import Broker
from tests.harness.mirror import mm2_settings
from tests.harness.own_broker import start_own_broker
from tests.harness.workers import REPO


@contextmanager
def own_brokers(*names: str) -> Iterator[list[Broker]]:
    """Fresh brokers of the run's kind (own_broker), stopped (and thawed first, if frozen) when the block ends."""
    brokers: list[Broker] = []
    try:
        for name in names:
            brokers.append(start_own_broker(name))
        yield brokers
    finally:
        for b in brokers:
            b.stop()


def timed_sigterm(process: subprocess.Popen[bytes], timeout: float = 60.0) -> tuple[float, int]:
    """SIGTERM `process`; (seconds until it exited, exit code)."""
    start = time.monotonic()
    process.send_signal(signal.SIGTERM)
    code = process.wait(timeout)
    return time.monotonic() - start, code


def start_mirror_maker(tmp_path: Path, a: Broker, b: Broker, port: int, topics: str) -> subprocess.Popen[bytes]:
    """`python -m replikafka mirror-maker` replicating A->B and B->A (`topics` both ways)."""
    path = tmp_path / "mm2.properties"
    path.write_text(f"clusters = A, B\nA.bootstrap.servers = {a.bootstrap}\nB.bootstrap.servers = {b.bootstrap}\n"
                    f"A->B.enabled = true\nA->B.topics = {topics}\nB->A.enabled = true\nB->A.topics = {topics}\n"
                    f"listeners = http://127.0.0.1:{port}\n" + mm2_settings({"A": a, "B": b}))
    log = open(tmp_path / "mm.log", "ab")  # noqa: SIM115 - owned by the child process
    return subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO, stdout=log,
                            stderr=subprocess.STDOUT)


_TGKILL = {"x86_64": 234, "aarch64": 131}  # the tgkill system call's number (Python has no os.tgkill)


def sigterm_another_thread(pid: int) -> int:
    """SIGTERM one thread of process `pid` other than its main thread, one that does not block the signal
    (librdkafka's threads block every signal; Python's do not), as the kernel may pick for a signal sent to
    the process; returns the thread's id."""
    number = _TGKILL.get(platform.machine())
    if number is None:
        raise NotImplementedError(f"no tgkill system call number known for {platform.machine()}")
    for tid in sorted(int(t) for t in os.listdir(f"/proc/{pid}/task") if int(t) != pid):
        status = Path(f"/proc/{pid}/task/{tid}/status").read_text()
        blocked = int(next(line for line in status.splitlines() if line.startswith("SigBlk:")).split()[1], 16)
        if not blocked & (1 << (signal.SIGTERM - 1)):
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.syscall(number, pid, tid, signal.SIGTERM) != 0:
                raise OSError(ctypes.get_errno(), f"tgkill({pid}, {tid}, SIGTERM) failed")
            return tid
    raise AssertionError(f"every thread of {pid} but the main one blocks SIGTERM")


def sigterm_group(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
        process.wait(10)


__all__ = ["own_brokers", "signal", "start_mirror_maker", "sigterm_another_thread", "sigterm_group", "timed_sigterm"]
