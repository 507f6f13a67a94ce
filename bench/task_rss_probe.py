"""What a process keeps after each of many sequential MirrorSource tasks: RSS, live objects, librdkafka handles.

    python bench/task_rss_probe.py [--tasks 12] [--records 20000] [--size 1000] [--partitions 4]
                                   [--far none|source|target] [--rtt 0] [--no-release] [--tracemalloc]

Two Tansu brokers on loopback (`--far`: one of them behind tests/harness/wan_proxy.py, `--rtt` ms of round
trip while a task copies, none while its topic is filled); per task a fresh topic is filled from a child process (so the
filler's buffers are not this process's), then one MirrorSourceTask under the real SourceTaskRunner copies
it (bench/mirror_source_bench.py's `mirror_task`) and is stopped. After each task, with a full gc:
- its rate and the process's CPU time per MB copied (user + system, task start included);
- the RSS peak while the task ran and the RSS after it stopped (psutil); then, unless `--no-release`, what
  a worker does once tasks stopped (pyconnect/kafka/native_memory.py `release`: a full gc and glibc's
  malloc_trim) and the RSS after it (memory free in the allocator but not given back: not a leak);
- live librdkafka handles (confluent-kafka Producer/Consumer/AdminClient objects) and librdkafka
  threads (`rdk:*` in /proc/self/task): a handle not destroyed keeps its threads and buffers;
- Python threads, and the object types whose live count grew since the first task;
- the process's malloc arenas (glibc's malloc_info);
- with `--tracemalloc`, the allocation sites that grew most since the first task.
The probe limits the arenas as the replikafka command does (pyconnect/kafka/malloc_arenas.py); run it with
MALLOC_ARENA_MAX=16 (glibc's default on 2 cores) to see the process without that limit.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import gc
import multiprocessing
import sys
import threading
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import confluent_kafka  # noqa: E402
import psutil  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402
from mirror_source_bench import fill, mirror_task  # noqa: E402

from pyconnect.kafka.native_memory import glibc, limit_arenas, release  # noqa: E402
from pyconnect.testing.brokers import start_tansu  # noqa: E402
from tests.harness.wan_proxy import start_far_tansu  # noqa: E402

SPAWN = multiprocessing.get_context("spawn")
HANDLES = (confluent_kafka.Producer, confluent_kafka.Consumer, AdminClient)


def librdkafka_threads() -> int:
    """Threads of this process librdkafka started (it names them rdk:main, rdk:broker..., rdk:bg)."""
    count = 0
    for task in Path("/proc/self/task").iterdir():
        try:
            count += (task / "comm").read_text().startswith("rdk:")
        except OSError:
            continue  # the thread ended while being listed
    return count


def live_types() -> collections.Counter[str]:
    """Live gc-tracked objects by type name."""
    return collections.Counter(type(o).__qualname__ for o in gc.get_objects())


def arena_count() -> int | None:
    """How many malloc arenas this process has (glibc's malloc_info); None where that cannot be read."""
    libc = glibc()
    if libc is None:
        return None
    libc.open_memstream.restype = ctypes.c_void_p
    libc.open_memstream.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_size_t)]
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    libc.free.argtypes = [ctypes.c_void_p]
    buffer, size = ctypes.c_char_p(), ctypes.c_size_t()
    stream = libc.open_memstream(ctypes.byref(buffer), ctypes.byref(size))
    libc.malloc_info(0, stream)
    libc.fclose(stream)  # the buffer is complete once the stream is closed
    text = ctypes.string_at(buffer, size.value).decode()
    libc.free(ctypes.cast(buffer, ctypes.c_void_p))
    return text.count("<heap nr=")


class Report:
    """What is printed after each task: the figures, and what grew since the first task."""

    def __init__(self, tracing: bool) -> None:
        self.process = psutil.Process()
        self.peak = 0.0
        self.tracing = tracing
        self.base_types: collections.Counter[str] | None = None
        self.base_snapshot: tracemalloc.Snapshot | None = None

    def sample(self) -> None:
        self.peak = max(self.peak, self.rss())

    def rss(self) -> float:
        return float(self.process.memory_info().rss / 1e6)

    def after_task(self, number: int, rate: float, cpu_ms: float, release_memory: bool) -> None:
        before_gc = sum(isinstance(o, HANDLES) for o in gc.get_objects())
        after = self.rss()
        if release_memory:
            release()
        else:
            gc.collect()
        handles = sum(isinstance(o, HANDLES) for o in gc.get_objects())
        released = f", after release {self.rss():4.0f} MB" if release_memory else ""
        print(f"task {number:3d}: {rate:6.1f} MB/s, {cpu_ms:5.1f} CPU ms/MB, RSS peak {self.peak:4.0f}, "
              f"after {after:4.0f} MB{released}, "
              f"librdkafka handles {handles} ({before_gc} before a gc), rdk threads {librdkafka_threads()}, "
              f"python threads {threading.active_count()}, arenas {arena_count()}", flush=True)
        self.peak = 0.0
        self.growth()

    def growth(self) -> None:
        types = live_types()
        if self.base_types is None:
            self.base_types = types
        else:
            grown = sorted(((n, c - self.base_types[n]) for n, c in types.items() if c > self.base_types[n]),
                           key=lambda item: -item[1])
            print("   grew since task 1: " + ", ".join(f"{n} +{d}" for n, d in grown[:8]), flush=True)
        if not self.tracing:
            return
        snapshot = tracemalloc.take_snapshot()
        if self.base_snapshot is None:
            self.base_snapshot = snapshot
            return
        for stat in snapshot.compare_to(self.base_snapshot, "traceback")[:3]:
            print(f"   {stat.size_diff / 1e6:+.1f} MB {stat.count_diff:+d} blocks at "
                  f"{stat.traceback.format()[-1].strip()}", flush=True)


def arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=12)
    ap.add_argument("--records", type=int, default=20_000)
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--far", choices=("none", "source", "target"), default="none")
    ap.add_argument("--rtt", type=float, default=0.0, help="round trip to the far cluster while copying (ms)")
    ap.add_argument("--no-release", action="store_true", help="skip the worker's release after each task")
    ap.add_argument("--tracemalloc", action="store_true", help="show the allocation sites that grew")
    return ap.parse_args()


def main() -> None:
    args = arguments()
    print(f"malloc arenas limited to {limit_arenas()} (None: MALLOC_ARENA_MAX or not glibc)", flush=True)
    if args.tracemalloc:
        tracemalloc.start(8)
    report = Report(args.tracemalloc)
    far = None if args.far == "none" else start_far_tansu("probe-far", 0)
    near = start_tansu("probe-near")
    src, dst = (far or near, near) if args.far != "target" else (near, far)
    assert src is not None and dst is not None
    try:
        for i in range(args.tasks):
            topic = f"probe{i}"
            if far is not None:
                far.proxy.set_delay(0)
            filler = SPAWN.Process(target=fill, args=(src.bootstrap, topic, args.records, args.size, args.partitions))
            filler.start()  # in a process of its own: its producer's buffers are not this process's
            filler.join()
            assert filler.exitcode == 0, f"filling {topic} failed"
            if far is not None:
                far.proxy.set_delay(args.rtt / 2)
            cpu = sum(report.process.cpu_times()[:2])
            rate = mirror_task(src.bootstrap, dst.bootstrap, topic, args.records, args.partitions,
                               consumer={}, producer={}, sample=report.sample)
            cpu_ms = (sum(report.process.cpu_times()[:2]) - cpu) * 1000 / (args.records * args.size / 1e6)
            report.after_task(i + 1, rate * args.size / 1e6, cpu_ms, not args.no_release)
    finally:
        near.stop()
        if far is not None:
            far.stop()


if __name__ == "__main__":
    main()
