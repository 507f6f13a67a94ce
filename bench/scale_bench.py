"""Cost curve of one MirrorMaker worker as the partition count grows.

    python bench/scale_bench.py [--sizes 10,100,1000,2000] [--window 30] [--rate 5000] [--tasks 1]
    python bench/scale_bench.py --sizes 1000 --user-defaults --idle-only   # the idle figure alone

For each size (topics of 4 partitions) on two fresh Tansu brokers A and B: the topics are created on A with one
record in every partition, then a dedicated MirrorMaker process (`python -m replikafka mirror-maker`, A->B,
`topics = sc-.*`, `refresh.topics.interval.seconds = 5`, every other setting the default a user gets plus the
test bed's Tansu client overrides) is started and measured with psutil from outside:
- start-up: process start until its task logs `mirroring N partition(s)`, and until every record is on B;
- idle: caught up, no traffic: the worker's cores busy (its cpu times over the window / wall time), RSS, and
  the writes it makes to its offsets topic (offset commits) and to the offset-syncs topic;
- discovery: a new matching topic is created on A and one record produced: time until it is read on B;
- steady: a paced producer (in this process) writes `--rate` records/s spread over all partitions: the same
  figures under load.
The machine's load (all cores, every process: brokers, this producer) is reported next to the worker's own.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import psutil  # noqa: E402
from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from bench.cpu_meter import CpuWindow  # noqa: E402
from pyconnect.kafka.config import to_librdkafka  # noqa: E402
from pyconnect.testing.brokers import Broker, start_tansu  # noqa: E402
from tests.test_mirror_topologies import MirrorMakerProcess  # noqa: E402

PREFIX = "sc-"
HEADER = "## Cost curve: one MirrorMaker worker from 10 to 2,000 partitions (bench/scale_bench.py)"


@dataclass
class Window:
    cores: float = 0.0
    client_cores: float = 0.0  # of `cores`: librdkafka's own threads (fetches, metadata, statistics)
    rss_mb: float = 0.0
    machine_cores: float = 0.0
    commits_per_s: float = 0.0
    syncs_per_s: float = 0.0
    produced_per_s: float = 0.0


@dataclass
class Result:
    partitions: int
    setup_s: float = 0.0
    task_start_s: float = 0.0
    copied_s: float = 0.0
    discovery_s: float = 0.0
    idle: Window = field(default_factory=Window)
    steady: Window = field(default_factory=Window)
    notes: list[str] = field(default_factory=list)


def create_topics(bootstrap: str, names: list[str], partitions: int = 4) -> None:
    """100 topics per CreateTopics request (one request per topic takes minutes on Tansu)."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for i in range(0, len(names), 100):
        for fut in admin.create_topics([NewTopic(n, partitions, 1) for n in names[i:i + 100]],
                                       request_timeout=120).values():
            fut.result(180)


def producer_for(broker: Broker, batched: bool = False) -> Producer:
    """The bench's own producer: with the test bed's one-record batches, or (`batched`, with --user-defaults)
    batching as librdkafka does by default."""
    overrides = {} if batched else to_librdkafka(broker.client_overrides, "producer")
    return Producer({"bootstrap.servers": broker.bootstrap, **overrides})


def one_per_partition(broker: Broker, names: list[str]) -> None:
    producer = producer_for(broker)
    for name in names:
        for p in range(4):
            producer.produce(name, b"v", key=b"k", partition=p)
        producer.poll(0)
    producer.flush(120)


def count(broker: Broker, topics: list[str], partitions: int, idle: float = 1.0, expect: int | None = None,
          timeout: float = 120.0) -> int:
    """Records in `topics` (read from the beginning until `expect`, or nothing new for `idle` s)."""
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": f"count-{time.monotonic_ns()}",
                         "enable.auto.commit": False, **to_librdkafka(broker.client_overrides, "consumer")})
    consumer.assign([TopicPartition(t, p, 0) for t in topics for p in range(partitions)])
    seen, last, deadline = 0, time.monotonic(), time.monotonic() + timeout
    try:
        while time.monotonic() < deadline and (expect is None or seen < expect):
            got = [m for m in consumer.consume(10000, 0.2) if m.error() is None]
            seen += len(got)
            if got:
                last = time.monotonic()
            elif expect is None and time.monotonic() - last > idle:
                break
    finally:
        consumer.close()
    return seen


def written(broker: Broker, topics: list[str]) -> int:
    """Records written to `topics` so far: the sum of their partitions' high watermarks (ListOffsets is exact
    here: the worker's producers send one record per batch on Tansu, see test-brokers.md)."""
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": f"hw-{time.monotonic_ns()}"})
    try:
        meta = consumer.list_topics(timeout=30).topics
        return sum(consumer.get_watermark_offsets(TopicPartition(t, p), timeout=30)[1]
                   for t in topics if t in meta for p in meta[t].partitions)
    finally:
        consumer.close()


def internal_counts(a: Broker, b: Broker) -> tuple[int, int]:
    """(records in the offsets topics on B, records in the offset-syncs topic on A)."""
    topics_b = AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(timeout=30).topics
    return (written(b, [t for t in topics_b if t.startswith("mm2-offsets.")]),
            written(a, ["mm2-offset-syncs.B.internal"]))


def client_thread_cpu(proc: psutil.Process) -> float:
    """CPU seconds of the worker's librdkafka threads (named `rdk:*` by the client), live threads only."""
    total = 0.0
    for t in proc.threads():
        try:
            name = Path(f"/proc/{proc.pid}/task/{t.id}/comm").read_text().strip()
        except OSError:
            continue  # the thread ended
        if name.startswith("rdk:"):
            total += t.user_time + t.system_time
    return total


def measure(a: Broker, b: Broker, proc: psutil.Process, seconds: float) -> Window:
    """The worker's cores busy (and of them its Kafka clients' threads), RSS and internal-topic write rates
    over `seconds`."""
    commits0, syncs0 = internal_counts(a, b)
    machine, t0, c0, k0 = CpuWindow(), time.monotonic(), proc.cpu_times(), client_thread_cpu(proc)
    time.sleep(seconds)  # the measurement window itself
    c1, k1, wall = proc.cpu_times(), client_thread_cpu(proc), time.monotonic() - t0
    machine.stop()
    rss = proc.memory_info().rss / 2**20
    commits1, syncs1 = internal_counts(a, b)
    busy = (c1.user + c1.system) - (c0.user + c0.system)
    return Window(busy / wall, max(0.0, k1 - k0) / wall, rss, machine.cores, (commits1 - commits0) / wall,
                  (syncs1 - syncs0) / wall)


def paced(broker: Broker, names: list[str], rate: float, stop: threading.Event, sent: list[int],
          batched: bool = False) -> None:
    """`rate` records/s round-robin over every partition of `names`, in 10 ms steps, until `stop`."""
    producer = producer_for(broker, batched)
    tps = [(n, p) for n in names for p in range(4)]
    started, n = time.monotonic(), 0
    while not stop.is_set():
        due = int((time.monotonic() - started) * rate)
        while n < due:
            topic, partition = tps[n % len(tps)]
            try:
                producer.produce(topic, b"x" * 100, partition=partition)
            except BufferError:  # the broker takes less than `rate`: the rate sent is what it took
                producer.poll(0.05)
                continue
            n += 1
        producer.poll(0)
        time.sleep(0.01)
    producer.flush(60)
    sent.append(n)


def properties(a: Broker, b: Broker, tasks: int, batched: bool = False, fetch_default: bool = False) -> str:
    """mm2.properties for A->B. `batched`: the worker's producers keep librdkafka's batching (the Tansu
    override of one record per batch, there for tests that read end offsets, is left out); `fetch_default`:
    its consumers keep the default fetch wait (500 ms) instead of the Tansu override of 50 ms."""
    lines = ["clusters = A, B", f"A.bootstrap.servers = {a.bootstrap}", f"B.bootstrap.servers = {b.bootstrap}",
             "A->B.enabled = true", f"A->B.topics = {PREFIX}.*", "refresh.topics.interval.seconds = 5",
             f"tasks.max = {tasks}"]
    lines += [f"{k} = 1" for k in ("replication.factor", "checkpoints.topic.replication.factor",
                                   "heartbeats.topic.replication.factor", "offset-syncs.topic.replication.factor",
                                   "offset.storage.replication.factor", "status.storage.replication.factor",
                                   "config.storage.replication.factor")]
    for alias, broker in (("A", a), ("B", b)):
        overrides = {k: v for k, v in broker.client_overrides.items()
                     if not (batched and k in ("batch.num.messages", "linger.ms"))
                     and not (fetch_default and k == "fetch.max.wait.ms")}
        lines += [f"{alias}.{k} = {v}" for k, v in overrides.items()]
        lines += [f"{alias}.{role}.{k} = {v}" for k, v in overrides.items() for role in ("producer", "consumer")]
    return "\n".join(lines) + "\n"


def wait(condition: object, timeout: float, what: str, interval: float = 0.2) -> float:
    """Seconds until `condition()` holds (polled under a deadline)."""
    started = time.monotonic()
    while not condition():  # type: ignore[operator]
        if time.monotonic() - started > timeout:
            raise TimeoutError(what)
        time.sleep(interval)
    return time.monotonic() - started


def discovery(a: Broker, b: Broker, unique: str) -> float:
    """A new matching topic on A with one record: seconds from its creation until the record is read on B, by
    one consumer that looks for the remote topic every 50 ms and then reads it (a consumer per look, as before,
    added up to a second of its own start-up to the figure)."""
    name, remote = f"{PREFIX}new-{unique}", f"A.{PREFIX}new-{unique}"
    consumer = Consumer({"bootstrap.servers": b.bootstrap, "group.id": f"disc-{unique}",
                         "enable.auto.commit": False, **to_librdkafka(b.client_overrides, "consumer")})
    try:
        started = time.monotonic()
        create_topics(a.bootstrap, [name], 1)
        producer = producer_for(a)
        producer.produce(name, b"new", partition=0)
        producer.flush(30)
        wait(lambda: remote in consumer.list_topics(timeout=10).topics, 120, "the remote topic on B", 0.05)
        consumer.assign([TopicPartition(remote, 0, 0)])
        wait(lambda: (m := consumer.poll(0.05)) is not None and m.error() is None, 120, "the new record on B", 0)
        return time.monotonic() - started
    finally:
        consumer.close()


def run_size(partitions: int, args: argparse.Namespace, work: Path) -> Result:
    names = [f"{PREFIX}{i:04d}" for i in range(max(1, round(partitions / 4)))]
    partitions = 4 * len(names)  # 10 -> 3 topics, 12 partitions
    res = Result(partitions)
    a, b = start_tansu("A"), start_tansu("B")
    mm = None
    try:
        started = time.monotonic()
        create_topics(a.bootstrap, names)
        one_per_partition(a, names)
        res.setup_s = time.monotonic() - started
        path = work / f"mm2-{partitions}.properties"
        log = work / f"mm-{partitions}.log"
        path.write_text(properties(a, b, args.tasks, args.user_defaults, args.user_defaults))
        started = time.monotonic()
        mm = MirrorMakerProcess(path, log)
        proc = psutil.Process(mm.proc.pid)
        res.task_start_s = wait(lambda: "mirroring " in log.read_text(errors="replace"), 600, "task start", 0.05)
        remote = [f"A.{n}" for n in names]
        wait(lambda: count(b, remote, 4, expect=partitions, timeout=5) >= partitions, 600, "first copy", 0.5)
        res.copied_s = time.monotonic() - started
        time.sleep(args.settle)  # let the start-up work (first commits, syncs, checkpoints) pass
        res.idle = measure(a, b, proc, args.window)
        print(f"idle: {res.idle.cores:.3f} core ({res.idle.client_cores:.3f} client threads) over "
              f"{args.window:.0f} s, 1-min load average {os.getloadavg()[0]:.1f}", flush=True)
        if args.idle_only:
            return res
        res.discovery_s = discovery(a, b, str(partitions))
        stop, sent = threading.Event(), []
        producer = threading.Thread(target=paced, args=(a, names, args.rate, stop, sent, args.user_defaults))
        producer.start()
        time.sleep(args.settle)
        t0 = time.monotonic()
        res.steady = measure(a, b, proc, args.window)
        stop.set()
        producer.join(120)
        res.steady.produced_per_s = sent[0] / (time.monotonic() - t0 + args.settle) if sent else 0.0
        if mm.proc.poll() is not None:
            res.notes.append(f"worker exited with {mm.proc.returncode}")
    finally:
        if mm is not None:
            mm.stop()
        a.stop()
        b.stop()
    return res


def row(r: Result) -> str:
    i, s = r.idle, r.steady
    cells = [f"{r.partitions:,}", f"{r.setup_s:.0f}", f"{r.task_start_s:.1f} / {r.copied_s:.1f}",
             f"{r.discovery_s:.1f}",
             f"{i.cores:.3f} ({i.client_cores:.3f})", f"{i.rss_mb:.0f}",
             f"{i.commits_per_s:.2f} / {i.syncs_per_s:.2f}", f"{i.machine_cores:.2f}", f"{s.produced_per_s:,.0f}",
             f"{s.cores:.3f}", f"{s.rss_mb:.0f}", f"{s.commits_per_s:.1f} / {s.syncs_per_s:.1f}",
             f"{s.machine_cores:.2f}"]
    return "| " + " | ".join(cells) + " |"


TABLE_HEAD = ("| partitions | setup (s) | task start / all copied (s) | new topic on B (s) | "
              "idle cores (of which client threads) | idle RSS (MB) | idle commits / syncs per s | "
              "machine busy cores (idle) | steady rec/s sent | steady cores | steady RSS (MB) | "
              "steady commits / syncs per s | machine busy cores (steady) |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def record(rows: list[str], args: argparse.Namespace, load: str) -> None:
    doc = REPO / "docs" / "benchmarks.md"
    text = doc.read_text()
    clients = " (no Tansu client overrides)" if args.user_defaults else " plus the Tansu client overrides"
    section = (f"{HEADER}\n\nOne run, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {args.label}. "
               f"Topics of 4 partitions on two fresh Tansu brokers per size, one record per partition before the "
               f"start; a dedicated MirrorMaker process (tasks.max={args.tasks}, refresh.topics.interval.seconds=5, "
               f"otherwise defaults{clients}), measured with psutil over {args.window:.0f} s "
               f"windows. Steady: {args.rate:,.0f} rec/s of 100 B round-robin over all partitions. "
               f"Machine load: {load}.\n\n{TABLE_HEAD}\n" + "\n".join(rows) + "\n")
    if HEADER in text:
        start = text.index(HEADER)
        end = text.find("\n## ", start + len(HEADER))
        text = text[:start] + section + (text[end + 1:] if end != -1 else "")
    else:
        text = text.rstrip() + "\n\n" + section
    doc.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10,100,1000,2000")
    parser.add_argument("--window", type=float, default=30.0)
    parser.add_argument("--settle", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=5000.0)
    parser.add_argument("--tasks", type=int, default=1)
    parser.add_argument("--label", default="")
    parser.add_argument("--user-defaults", action="store_true",
                        help="the worker's clients without the Tansu overrides (batching, 500 ms fetch wait)")
    parser.add_argument("--no-record", action="store_true")
    parser.add_argument("--idle-only", action="store_true",
                        help="measure the idle window only (no discovery, no steady traffic; implies --no-record)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="scale-bench-"))
    rows = []
    load_before = os.getloadavg()
    for size in (int(s) for s in args.sizes.split(",")):
        res = run_size(size, args, work)  # size: topics of 4 partitions, rounded
        rows.append(row(res))
        print(TABLE_HEAD.splitlines()[0] if len(rows) == 1 else "", rows[-1], res.notes, flush=True)
    load = (f"1-min load average {load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after "
            f"(2 shared cores), logs in {work}")
    print(load)
    if not (args.no_record or args.idle_only):
        record(rows, args, load)


if __name__ == "__main__":
    main()
