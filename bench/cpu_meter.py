"""Machine-wide CPU accounting for benchmarks (Linux /proc/stat).

A benchmark that compares two copiers on one machine also has to say how much of the machine each
used: a copier that already keeps every core busy cannot be beaten by adding workers on the same
cores. `CpuWindow` measures busy CPU seconds (all processes: brokers, JVM, Python workers) between
two points of a run. On a machine shared with other work, pass `roots`: the window then counts only
those processes and their descendants (live ones, plus the children they already reaped), so other
users of the cores do not inflate the figure (processes are sampled every 0.2 s, so one that exits
loses at most its last 0.2 s; a parent's count of reaped children is not used, as a Spark Python
worker may outlive its parent and never be reaped in the tree).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable

_HZ = os.sysconf("SC_CLK_TCK")


def busy_seconds() -> float:
    """CPU seconds all cores spent busy since boot (not idle, not waiting for I/O)."""
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / _HZ


def _proc_stat(pid: str) -> tuple[int, float, str] | None:
    """(parent pid, CPU seconds of the process itself, its name), None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            text = stat.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # fields from the 3rd (state) on
    name = text[text.index("(") + 1:text.rindex(")")]
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / _HZ, name  # utime stime


def tree_cpu(roots: Iterable[int]) -> dict[int, tuple[float, str]]:
    """CPU seconds and name of each live process among `roots` and their descendants."""
    procs = {int(pid): st for pid in os.listdir("/proc") if pid.isdigit() and (st := _proc_stat(pid))}
    wanted = set(roots)
    out = {}
    for pid, (_parent, cpu, name) in procs.items():
        seen = pid
        while seen > 1 and seen not in wanted:
            seen = procs[seen][0] if seen in procs else 0
        if seen in wanted:
            out[pid] = (cpu, name)
    return out


class _TreeSampler:
    """CPU of process trees over a window, sampled every `interval` s: a process that exits (a Spark
    Python worker, whose parent may die before reaping it) keeps what it used up to its last sample."""

    def __init__(self, roots: Callable[[], Iterable[int]], interval: float = 0.2) -> None:
        self._roots, self._interval = roots, interval
        self._first: dict[int, float] = {}
        self._last: dict[int, float] = {}
        self.names: dict[int, str] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _sample(self) -> None:
        for pid, (cpu, name) in tree_cpu(self._roots()).items():
            self.names[pid] = name
            if self._thread is None:
                self._first[pid] = cpu  # alive at the start: count from here
            self._last[pid] = cpu

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self._sample()

    def start(self) -> None:
        self._sample()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def stop(self) -> dict[str, float]:
        """CPU seconds used in the window, per process name."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._sample()
        out: dict[str, float] = {}
        for pid, cpu in self._last.items():
            name = self.names[pid]
            out[name] = out.get(name, 0.0) + cpu - self._first.get(pid, 0.0)
        return out


class CpuWindow:
    """Busy CPU and wall time from `start()` (or construction) to `stop()`: the whole machine's, or only
    the process trees of `roots()` when given (sampled through the window)."""

    def __init__(self, roots: Callable[[], Iterable[int]] | None = None) -> None:
        self._roots = roots
        self._sampler: _TreeSampler | None = None
        self.start()

    def start(self) -> None:
        if self._sampler is not None:
            self._sampler.stop()
        if self._roots is None:
            self._cpu = busy_seconds()
        else:
            self._sampler = _TreeSampler(self._roots)
            self._sampler.start()
        self._wall = time.perf_counter()
        self.cpu = self.wall = 0.0
        self.by_name: dict[str, float] = {}  # CPU seconds per process name (with `roots` only)

    def stop(self) -> CpuWindow:
        self.wall = time.perf_counter() - self._wall
        if self._sampler is not None:
            self.by_name, self._sampler = self._sampler.stop(), None
            self.cpu = sum(self.by_name.values())
        else:
            self.cpu = busy_seconds() - self._cpu
        return self
    @property
    def cores(self) -> float:
        """Average number of busy cores over the window."""
        return self.cpu / self.wall if self.wall > 0 else 0.0

    def split(self, records: int) -> str:
        """CPU per record by process name, e.g. 'tansu 2.1, python 3.0' (with `roots` only)."""
        return ", ".join(f"{name} {cpu / records * 1e6:.2f}" for name, cpu in sorted(
            self.by_name.items(), key=lambda kv: -kv[1]) if records and cpu > 0)

    def micros_per(self, records: int) -> float:
        """Busy CPU per record, in microseconds (every process on the machine counted)."""
        return self.cpu / records * 1e6 if records else 0.0
