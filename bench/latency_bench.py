"""End-to-end replication latency: what the mirror adds to a record's trip, next to direct hops, in one run.

    python bench/latency_bench.py [--rates 200,1000,5000] [--seconds 15] [--partitions 4]

Two local brokers A and B (Tansu, or Apache Kafka with `REPLIKAFKA_TEST_BROKER=kafka`: bench_brokers.py; each row
names its broker); a dedicated MirrorMaker process (`python -m replikafka mirror-maker`, the settings a user gets
plus, on Tansu, the test bed's Tansu client overrides, as every test and demo here uses) replicates A->B. For each
rate, in turn:
- direct: a paced producer writes topic `direct` on A and a consumer of A reads it: one produce->fetch hop;
- mirror: the same producer writes `lat` on A, the mirror copies it to `A.lat` on B, a consumer of B reads it.
Latency is the consumer's arrival time minus the record's CreateTime (set by the producer when it sent the record;
the mirror keeps it). The mirror path has two hops (A, then B) plus the mirror's own work; the added latency is
mirror p50 minus two direct p50 (and the same at p99). The producer, the consumers and the clock are in this
process, the mirror in its own, as a user runs it. Results are printed and added to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_brokers import broker_label, start_pair  # noqa: E402
from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from pyconnect.kafka.config import to_librdkafka  # noqa: E402
from pyconnect.testing.brokers import Broker  # noqa: E402
from tests.harness.mirror import mm2_settings  # noqa: E402
from tests.test_mirror_topologies import MirrorMakerProcess  # noqa: E402


def create(bootstrap: str, topic: str, partitions: int) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})  # held: the futures need the client alive
    for fut in admin.create_topics([NewTopic(topic, partitions, 1)]).values():
        fut.result(30)


_BATCHING_OVERRIDES = ("batch.num.messages", "linger.ms")  # the test bed's one-record batches


def paced(broker: Broker, topic: str, rate: float, seconds: float, partitions: int, batching: bool = False) -> int:
    """Produces `rate` records/s for `seconds` in 10 ms steps; returns how many. `batching`: with librdkafka's
    batching, as a user's producer has it, instead of the test bed's one record per batch."""
    overrides = {k: v for k, v in broker.client_overrides.items() if not (batching and k in _BATCHING_OVERRIDES)}
    producer = Producer({"bootstrap.servers": broker.bootstrap, **to_librdkafka(overrides, "producer")})
    started, sent = time.monotonic(), 0
    while (now := time.monotonic()) - started < seconds:
        due = int((now - started) * rate)
        while sent < due:
            producer.produce(topic, b"x" * 100, partition=sent % partitions)
            sent += 1
        producer.poll(0)
        time.sleep(0.01)
    producer.flush(30)
    return sent


def arrivals(broker: Broker, topic: str, partitions: int, stop: threading.Event, out: list[float]) -> None:
    """Latency in ms of every record of `topic` that arrives until `stop` (read from its end)."""
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": f"lat-{time.monotonic_ns()}",
                         "enable.auto.commit": False, **to_librdkafka(broker.client_overrides, "consumer")})
    consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    try:
        while not stop.is_set():
            for m in consumer.consume(1000, 0.05):
                if m.error() is None:
                    out.append(time.time() * 1000 - m.timestamp()[1])
    finally:
        consumer.close()


def measure(producer_side: Broker, topic: str, consumer_side: Broker, read: str, rate: float, seconds: float,
            partitions: int, batching: bool = False) -> list[float]:
    """Latencies of one paced run, waiting for the records to arrive (or 30 s)."""
    got: list[float] = []
    stop = threading.Event()
    reader = threading.Thread(target=arrivals, args=(consumer_side, read, partitions, stop, got))
    reader.start()
    time.sleep(2)  # the reader's first fetch is out before the first record (a warm-up, not a sync)
    already = len(got)
    sent = paced(producer_side, topic, rate, seconds, partitions, batching)
    deadline = time.monotonic() + 30
    while len(got) - already < sent and time.monotonic() < deadline:
        time.sleep(0.1)
    stop.set()
    reader.join(10)
    return got[already:]


def pct(values: list[float], p: float) -> float:
    ranked = sorted(values)
    return ranked[min(len(ranked) - 1, max(0, int(len(ranked) * p / 100 + 0.5) - 1))]


def mirror_maker(a: Broker, b: Broker, work: Path, batching: bool = False) -> MirrorMakerProcess:
    path = work / "mm2.properties"
    settings = [line for line in mm2_settings({"A": a, "B": b}).splitlines()
                if not (batching and line.split("=")[0].endswith(_BATCHING_OVERRIDES))]
    path.write_text(f"clusters = A, B\nA.bootstrap.servers = {a.bootstrap}\nB.bootstrap.servers = {b.bootstrap}\n"
                    "A->B.enabled = true\ntopics = lat\nemit.heartbeats.enabled = false\n" + "\n".join(settings) + "\n")
    return MirrorMakerProcess(path, work / "mm.log")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rates", default="200,1000,5000")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--batching", action="store_true",
                        help="producers (this bench's and the mirror's) batch as librdkafka does by default; "
                             "consumers keep the test bed's 50 ms fetch wait (Tansu holds a fetch for the whole wait)")
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    a, b = start_pair("lat")
    args.broker = broker_label(a)
    work = Path(tempfile.mkdtemp(prefix="latency-bench-"))
    mm = None
    try:
        create(a.bootstrap, "lat", args.partitions)
        create(a.bootstrap, "direct", args.partitions)
        mm = mirror_maker(a, b, work, args.batching)
        wait_remote(b, "A.lat")
        warm = measure(a, "lat", b, "A.lat", 100, 3, args.partitions)
        print(f"warm-up: {len(warm)} records through the mirror", flush=True)
        rows = []
        for rate in (float(r) for r in args.rates.split(",")):
            direct = measure(a, "direct", a, "direct", rate, args.seconds, args.partitions, args.batching)
            mirrored = measure(a, "lat", b, "A.lat", rate, args.seconds, args.partitions, args.batching)
            rows.append(row(args.broker, rate, direct, mirrored))
            print(rows[-1], flush=True)
        if not args.no_record:
            record(rows, args)
    finally:
        if mm is not None:
            mm.stop()
        a.stop()
        b.stop()


def wait_remote(b: Broker, topic: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    while time.monotonic() < deadline:
        if topic in admin.list_topics(timeout=10).topics:
            return
        time.sleep(0.5)
    raise RuntimeError(f"{topic} never appeared on B")


def row(broker: str, rate: float, direct: list[float], mirrored: list[float]) -> str:
    d50, d99, m50, m99 = pct(direct, 50), pct(direct, 99), pct(mirrored, 50), pct(mirrored, 99)
    return (f"| {broker} | {rate:,.0f} | {len(mirrored):,} | {d50:.0f} / {d99:.0f} / {max(direct):.0f} | "
            f"{m50:.0f} / {m99:.0f} / {max(mirrored):.0f} | {m50 - 2 * d50:+.0f} | {m99 - 2 * d99:+.0f} | "
            f"{statistics.mean(mirrored):.0f} |")


def record(rows: list[str], args: argparse.Namespace) -> None:
    doc = REPO / "docs" / "benchmarks.md"
    text = doc.read_text()
    header = "## Replication latency (bench/latency_bench.py)"
    quirks = " plus the test bed's Tansu client overrides" if args.broker == "Tansu" else ""
    table = ("| broker | rec/s | records | direct hop p50 / p99 / max (ms) | mirror A->B p50 / p99 / max (ms) | added "
             "p50 (mirror - 2 direct) | added p99 | mirror mean |\n|---|---|---|---|---|---|---|---|\n"
             + "\n".join(rows))
    section = (f"{header}\n\nOne run, {time.strftime('%Y-%m-%d')}, {args.seconds:.0f} s per rate, "
               f"{args.partitions} partitions, two {args.broker} brokers on loopback, a dedicated MirrorMaker "
               f"process with default settings{quirks}.\n\n{table}\n")
    if header in text:
        start = text.index(header)
        end = text.find("\n## ", start + len(header))
        text = text[:start] + section + (text[end + 1:] if end != -1 else "")
    else:
        text = text.rstrip() + "\n\n" + section
    doc.write_text(text)


if __name__ == "__main__":
    main()
