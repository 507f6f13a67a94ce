"""Machine-wide CPU accounting for benchmarks (Linux /proc/stat).

A benchmark that compares two copiers on one machine also has to say how much of the machine each
used: a copier that already keeps every core busy cannot be beaten by adding workers on the same
cores. `CpuWindow` measures busy CPU seconds (all processes: brokers, JVM, Python workers) between
two points of a run.
"""

from __future__ import annotations

import os
import time

_HZ = os.sysconf("SC_CLK_TCK")


def busy_seconds() -> float:
    """CPU seconds all cores spent busy since boot (not idle, not waiting for I/O)."""
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / _HZ


class CpuWindow:
    """Busy CPU and wall time from `start()` (or construction) to `stop()`."""

    def __init__(self) -> None:
        self.start()

    def start(self) -> None:
        self._cpu, self._wall = busy_seconds(), time.perf_counter()
        self.cpu = self.wall = 0.0

    def stop(self) -> CpuWindow:
        self.cpu, self.wall = busy_seconds() - self._cpu, time.perf_counter() - self._wall
        return self

    @property
    def cores(self) -> float:
        """Average number of busy cores over the window."""
        return self.cpu / self.wall if self.wall > 0 else 0.0

    def micros_per(self, records: int) -> float:
        """Busy CPU per record, in microseconds (every process on the machine counted)."""
        return self.cpu / records * 1e6 if records else 0.0
