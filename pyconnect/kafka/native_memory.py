"""The C heap of a process that starts and stops librdkafka clients: few malloc arenas, and a stopped task's
memory given back to the system.

Why: every librdkafka client runs threads of its own (rdk:main, one per broker connection), and glibc gives
threads that allocate concurrently arenas of their own, up to 8 per core. Fetch responses and produce
batches are allocated and freed on those threads, so the memory a stopped task freed stays in its threads'
arenas, fragmented, and the next task's new threads fill other arenas: a process that runs tasks one after
another grows although nothing leaks. Measured with bench/task_rss_probe.py (10 sequential MirrorSource
tasks, 30,000 records of 1 KB each, one process): no client, thread or Python object is left behind, yet
the RSS peak grew from 117 to 281 MB with glibc's 16 arenas; with 2 arenas and a trim after each task it
stayed at 94-149 MB over 20 tasks (docs/benchmarks.md has the runs).

Invariants:
- `limit_arenas` is called by the process's entry point before any client exists (replikafka/cli.py): the
  limit applies to threads that have no arena yet, so it must come before librdkafka starts any;
- a MALLOC_ARENA_MAX set in the environment wins (glibc applied it at start; this module changes nothing),
  so an operator can always choose another limit, or glibc's default with a large value;
- `release` is called after tasks stopped and their runners were dropped (runtime/worker.py): a runner's
  objects form reference cycles (runner, delivery, task), so its clients, their threads, connections and
  buffers go only when the cyclic collector runs; it runs there, then the free heap goes back to the system.
  Not when the worker itself stops: its process ends, and the stop has a time budget to keep. The full
  collection holds the interpreter (25-40 ms with the product loaded, ~600 ms with 1.5 million objects), so it
  runs once per set of stopped tasks, never per record or per poll;
- on a C library other than glibc only the collection happens (mallopt's options and malloc_trim are
  glibc's; other allocators do not keep per-thread arenas this way).
"""

from __future__ import annotations

import ctypes
import gc
import os
import platform
from collections.abc import Mapping
from functools import cache

ARENA_MAX = 2  # the main arena plus one shared by every other thread
M_ARENA_MAX = -8  # glibc's mallopt option number (malloc.h)
ENV = "MALLOC_ARENA_MAX"


@cache
def glibc() -> ctypes.CDLL | None:
    """The process's C library if it is glibc, else None."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


def limit_arenas(environ: Mapping[str, str] | None = None) -> int | None:
    """Limit this process to ARENA_MAX malloc arenas unless the environment sets MALLOC_ARENA_MAX; the
    limit now in force by this call (None: unchanged, because the environment sets it or the C library is
    not glibc)."""
    env = os.environ if environ is None else environ
    libc = glibc()
    if ENV in env or libc is None:
        return None
    return ARENA_MAX if libc.mallopt(M_ARENA_MAX, ARENA_MAX) == 1 else None


def release() -> None:
    """After tasks stopped: destroy what only a cyclic collection frees (their clients), then give the
    heap's free memory back to the system."""
    gc.collect()
    libc = glibc()
    if libc is not None:
        libc.malloc_trim(0)
