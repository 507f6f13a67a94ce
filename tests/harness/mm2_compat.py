"""What the compatibility tests between replikafka's and Java's MirrorMaker 2 need on real brokers: our
dedicated mode as a process, consumer-group commits on the source, the checkpoints a topic holds (decoded by
the independent reader of java_mm2_state), and the ground truth every translation is judged against.

Ground truth: records are written with unique values (`topic:n`), so where each upstream record landed
downstream is read off both clusters. A group at upstream position u (the next record it would read) is
truly at the downstream offset of record u's first copy, or at the copy's end when u is the partition's
end. A translation above that skips records; the amount below it is what a failed-over group re-reads.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka import Consumer, KafkaException, TopicPartition

from pyconnect.testing.parent_death import die_with_parent
from tests.harness.java_mm2_state import Checkpoint
from tests.harness.kafka_io import read_all, read_to_end
from tests.harness.workers import REPO, wait_for

Commits = dict[str, dict[int, int]]  # group -> partition -> committed upstream offset
Key = tuple[str, str, int]  # group, remote topic, partition


def start_replikafka_mm2(mm2_properties: Path, directory: Path) -> subprocess.Popen[bytes]:
    """`replikafka mirror-maker <file>` as a process (logs to replikafka-mm2.log in `directory`)."""
    with open(directory / "replikafka-mm2.log", "ab") as log:  # noqa: PTH123 - the child keeps its own
        return subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(mm2_properties)],
                                cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, stdout=log,
                                stderr=subprocess.STDOUT, preexec_fn=die_with_parent())


def stop_process(process: subprocess.Popen[bytes], timeout: float = 60.0) -> int:
    """SIGTERM, kill -9 after `timeout`; the exit code."""
    process.terminate()
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait(10)


def commit_groups(bootstrap: str, topic: str, commits: Commits, timeout: float = 60.0) -> None:
    """Commit each group's offsets on `topic`, as its consumers on the source cluster would; a retriable error
    (a new broker's group coordinator still loading) is retried until `timeout`."""
    deadline = time.monotonic() + timeout
    for group, offsets in commits.items():
        consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
        try:
            while True:
                try:
                    consumer.commit(offsets=[TopicPartition(topic, p, o) for p, o in offsets.items()],
                                    asynchronous=False)
                    break
                except KafkaException as exc:
                    if not exc.args[0].retriable() or time.monotonic() > deadline:
                        raise
                    time.sleep(0.5)  # the poll interval of a retry under the deadline
        finally:
            consumer.close()


def checkpoint_records(bootstrap: str, topic: str = "A.checkpoints.internal") -> list[Checkpoint]:
    """Every checkpoint in the topic, in the order written."""
    return [Checkpoint.decode(k or b"", v or b"") for _p, _o, k, v in
            sorted(read_to_end(bootstrap, topic), key=lambda r: r[1])]


def latest_checkpoints(bootstrap: str, topic: str = "A.checkpoints.internal") -> dict[Key, Checkpoint]:
    """The last checkpoint per (group, remote topic, partition)."""
    return {(c.group, c.topic, c.partition): c for c in checkpoint_records(bootstrap, topic)}


@dataclass
class Truth:
    """Where each upstream record of one topic landed on its remote copy, per partition."""

    downstream: dict[int, dict[int, int]]  # partition -> upstream offset -> first downstream offset
    upstream_ends: dict[int, int]
    downstream_ends: dict[int, int]

    def position(self, partition: int, upstream: int) -> int:
        """The true downstream position of a group at `upstream` (all of it must have been copied)."""
        if upstream >= self.upstream_ends[partition]:
            return self.downstream_ends[partition]
        return self.downstream[partition][upstream]

    def copied(self) -> bool:
        return all(len(self.downstream[p]) == end for p, end in self.upstream_ends.items())


def truth(source: str, target: str, topic: str, remote: str) -> Truth:
    """Read both clusters' copies of `topic` (values unique) and map them."""
    where: dict[bytes, tuple[int, int]] = {}
    upstream_ends: dict[int, int] = {}
    for p, o, _k, v in read_all(source, topic, idle=1.0):
        where[v or b""] = (p, o)
        upstream_ends[p] = max(upstream_ends.get(p, 0), o + 1)
    downstream: dict[int, dict[int, int]] = {p: {} for p in upstream_ends}
    downstream_ends: dict[int, int] = dict.fromkeys(upstream_ends, 0)
    for p, o, _k, v in sorted(read_all(target, remote, idle=1.0), key=lambda r: r[1]):
        downstream_ends[p] = max(downstream_ends.get(p, 0), o + 1)
        if (v or b"") in where:
            source_partition, upstream = where[v or b""]
            assert source_partition == p, f"record {v!r} of partition {source_partition} copied to {p}"
            downstream[p].setdefault(upstream, o)
    return Truth(downstream, upstream_ends, downstream_ends)


def wait_copied(source: str, target: str, topic: str, remote: str, timeout: float) -> Truth:
    """The truth once every record of `topic` is on `remote` (polled every second until `timeout`)."""
    def copied() -> Truth | None:
        found = truth(source, target, topic, remote)
        return found if found.copied() else None
    found = wait_for(copied, timeout, f"every record of {topic} on {remote}", interval=1.0)
    assert found is not None  # wait_for returns a truthy value only
    return found
