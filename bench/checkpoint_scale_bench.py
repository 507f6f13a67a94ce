"""Checkpointing 500 consumer groups over 1,000 partitions (issue 18).

    python bench/checkpoint_scale_bench.py [--groups 500] [--topics 250] [--rounds 3]

Two fresh Tansu brokers; `--topics` topics of 4 partitions on A with 10 records each; a dedicated MirrorMaker
process (A->B, `groups = ckg-.*`, emit.checkpoints.interval.seconds=1, refresh.groups.interval.seconds=5) mirrors
them. Group i commits offsets on every partition of topic i % topics (500 groups x 4 partitions: 2,000 group
offsets covering the 1,000 partitions twice), all groups committed together with AdminClient
alter_consumer_group_offsets. Each round commits new offsets for every group and reads A.checkpoints.internal on B:
- cycle: a checkpoint's record timestamp is the start of the task cycle that made it; arrival of a cycle's last
  checkpoint on B minus that timestamp is the cycle (reading every group's offsets, translating, producing);
- checkpoint latency: from the moment every group's new offsets were committed on A until the last of the
  2,000 new checkpoints was read on B (includes the wait for the next 1 s emit interval).
Also, in this process: reading the 500 groups' offsets one request at a time vs all in flight together
(`Admin.groups_commits`, what the checkpoint task does per cycle).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402

from bench.scale_bench import create_topics, producer_for, properties, wait  # noqa: E402
from connectors.mirror.formats import Checkpoint  # noqa: E402
from pyconnect.kafka.admin import Admin  # noqa: E402
from pyconnect.kafka.config import to_librdkafka  # noqa: E402
from pyconnect.testing.brokers import Broker, start_tansu  # noqa: E402
from tests.test_mirror_topologies import MirrorMakerProcess  # noqa: E402

HEADER = "## Checkpointing 500 consumer groups over 1,000 partitions (bench/checkpoint_scale_bench.py)"


def commit_all(bootstrap: str, groups: list[str], names: list[str], offset: int) -> None:
    """Every group commits `offset` on the 4 partitions of its topic, all requests in flight together."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = []
    for i, group in enumerate(groups):
        topic = names[i % len(names)]
        request = ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p, offset) for p in range(4)])
        futures += list(admin.alter_consumer_group_offsets([request]).values())
    for fut in futures:
        fut.result(120)


class CheckpointReader:
    """Follows A.checkpoints.internal on B: the newest checkpoint per key, with arrival times."""

    def __init__(self, broker: Broker) -> None:
        self.consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": f"cp-{time.monotonic_ns()}",
                                  "enable.auto.commit": False, **to_librdkafka(broker.client_overrides, "consumer")})
        self.consumer.assign([TopicPartition("A.checkpoints.internal", 0, 0)])
        self.latest: dict[tuple[str, str, int], tuple[Checkpoint, float, int]] = {}

    def drain(self) -> None:
        for m in self.consumer.consume(10000, 0.1):
            if m.error() is None and m.key() and m.value():
                cp = Checkpoint.decode(m.key(), m.value())
                self.latest[(cp.group, cp.topic, cp.partition)] = (cp, time.time(), m.timestamp()[1])

    def at(self, upstream: int) -> list[tuple[Checkpoint, float, int]]:
        return [v for v in self.latest.values() if v[0].upstream_offset == upstream]


def round_trips(a: Broker, groups: list[str]) -> tuple[float, float]:
    """Seconds to read every group's offsets one request at a time, and all in flight together."""
    admin = Admin({"bootstrap.servers": a.bootstrap})
    started = time.monotonic()
    for group in groups:
        admin.group_commits(group)
    one_by_one = time.monotonic() - started
    started = time.monotonic()
    admin.groups_commits(groups)
    return one_by_one, time.monotonic() - started


def run(args: argparse.Namespace) -> list[str]:
    names = [f"sc-{i:04d}" for i in range(args.topics)]
    groups = [f"ckg-{i:04d}" for i in range(args.groups)]
    a, b = start_tansu("A"), start_tansu("B")
    work = Path(tempfile.mkdtemp(prefix="checkpoint-bench-"))
    mm, rows = None, []
    try:
        create_topics(a.bootstrap, names)
        producer = producer_for(a)
        for name in names:
            for p in range(4):
                for _ in range(10):
                    producer.produce(name, b"v", partition=p)
            producer.poll(0)
        producer.flush(120)
        commit_all(a.bootstrap, groups, names, 1)
        sequential, together = round_trips(a, groups)
        rows.append(f"Reading {len(groups)} groups' offsets on A: {sequential:.2f} s one request at a time, "
                    f"{together:.2f} s all in flight together (what each checkpoint cycle now does).")
        path = work / "mm2.properties"
        path.write_text(properties(a, b, 1, args.batched) + "groups = ckg-.*\nemit.checkpoints.interval.seconds = 1\n"
                        "refresh.groups.interval.seconds = 5\n")
        mm = MirrorMakerProcess(path, work / "mm.log")
        reader = CheckpointReader(b)
        expected = len(groups) * 4

        def have(upstream: int) -> bool:
            reader.drain()
            return len(reader.at(upstream)) >= expected
        first = wait(lambda: have(1), 600, "the first checkpoints of every group", 0.0)
        rows.append(f"First checkpoints of all {len(groups)} groups on B {first:.1f} s after the MirrorMaker start.")
        for r in range(args.rounds):
            offset = 2 + r * 3
            commit_all(a.bootstrap, groups, names, offset)
            committed = time.time()
            wait(lambda offset=offset: have(offset), 120, f"round {r} checkpoints", 0.0)
            got = reader.at(offset)
            last = max(arrived for _cp, arrived, _ts in got)
            cycles = {}
            for _cp, arrived, ts in got:
                cycles[ts] = max(cycles.get(ts, 0.0), arrived - ts / 1000)
            rows.append(f"| {r + 1} | {len(got):,} | {len(cycles)} | {max(cycles.values()):.2f} | "
                        f"{last - committed:.2f} |")
    finally:
        if mm is not None:
            mm.stop()
        a.stop()
        b.stop()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--groups", type=int, default=500)
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batched", action="store_true", help="the worker's producers batch (no Tansu override)")
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    rows = run(args)
    notes, table = [r for r in rows if not r.startswith("|")], [r for r in rows if r.startswith("|")]
    producers = ", producers batching" if args.batched else ", one record per produce batch (Tansu rule)"
    text = (f"{HEADER}\n\nOne run, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: {args.groups} groups, "
            f"{args.topics} topics x 4 partitions, two Tansu brokers, a dedicated MirrorMaker process "
            f"(emit.checkpoints.interval.seconds=1{producers}). Cycle: start of the task cycle (the checkpoints' "
            "record timestamp) to its last checkpoint read on B. Latency: all groups' new offsets committed on A "
            "to the last new checkpoint read on B (includes the wait for the next 1 s interval).\n\n"
            + "\n".join(f"- {n}" for n in notes)
            + "\n\n| round | new checkpoints | cycles they came in | longest cycle (s) | checkpoint latency (s) |\n"
            "|---|---|---|---|---|\n" + "\n".join(table) + "\n")
    print(text)
    if not args.no_record:
        doc = REPO / "docs" / "benchmarks.md"
        doc.write_text(doc.read_text().rstrip() + "\n\n" + text)


if __name__ == "__main__":
    main()
