"""`offset.flush.timeout.ms`: how long a source task's offset flush waits for its offsets to be written.

Followed: Kafka's at-least-once WorkerSourceTask.commitOffsets (3.x) bounds the flush by
`offset.flush.timeout.ms`; on a timeout it logs "Timed out waiting to flush offsets to storage; will try again
on next flush interval with latest offsets", SourceTaskOffsetCommitter logs "Failed to commit offsets", and the
task keeps running. OffsetStorageWriter.cancelFlush keeps the offsets for the next flush
(OffsetStorageWriterTest.testFlushFailureReplacesOffsets; our unit twin is tests/unit/test_flush_committer.py).

Set up so that only the offset flush stalls: the workers' own cluster (offsets topic, and config, status and
membership) is a broker of the test's own that is frozen (SIGSTOP); each FileStreamSource task sends its records
to another broker (`producer.override.bootstrap.servers`), which keeps acknowledging them. Two workers differ
only in `offset.flush.timeout.ms` (1 s and 3 s, flush interval 0.5 s) and go through the same freeze.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from confluent_kafka import Consumer, TopicPartition

from tests.harness.brokers import Broker
from tests.harness.connectors import all_running, status
from tests.harness.faults import own_brokers
from tests.harness.kafka_io import create_topic, read_messages, read_to_end
from tests.harness.workers import Cluster, WorkerProcess, wait_for

TIMEOUTS_MS = (1000, 3000)
INTERVAL_MS = 500
BEFORE, DURING = 30, 30  # lines written before the freeze, and while the workers' cluster is frozen
TIMED_OUT = "Timed out waiting to flush offsets to storage; will try again on next flush interval with latest offsets"
GAVE_UP = re.compile(r"Failed to commit offsets: gave up after (\d+) ms")
FAILURES = 2  # timed-out flushes each worker must log during the freeze


@dataclass
class Flow:
    """One worker (group) with its FileStreamSource connector: a file's lines to a topic on the target."""

    timeout_ms: int
    worker: WorkerProcess
    file: Path
    topic: str

    @property
    def name(self) -> str:
        return f"file{self.timeout_ms}"

    def write(self, lines: range) -> int:
        """Append lines `<timeout>:<i>`; returns the file's size (the position the task commits after them)."""
        with self.file.open("a") as f:
            f.write("".join(f"{self.timeout_ms}:{i}\n" for i in lines))
        return self.file.stat().st_size

    def committed(self) -> int | None:
        """The task's committed byte position, over REST."""
        r = self.worker.request("GET", f"/connectors/{self.name}/offsets")
        offsets = r.json().get("offsets", []) if r.status_code == 200 else []
        return offsets[0]["offset"]["position"] if offsets else None

    def wait_committed(self, position: int, what: str) -> None:
        wait_for(lambda: self.committed() == position, 60, f"{self.name}: {what}")

    def wait_on_target(self, target: Broker, count: int, what: str) -> None:
        wait_for(lambda: len(read_messages(target.bootstrap, self.topic, expect=count, timeout=5)) == count, 30,
                 f"{self.name}: {what}")

    def failures(self, since: int) -> list[int]:
        """The give-up times (ms) of the failed flushes logged after byte `since` of the worker's log, checking
        that every one was a timeout (Kafka's message) and nothing else."""
        text = self.worker.log_path.read_text(errors="replace")[since:]
        gave_up = [int(ms) for ms in GAVE_UP.findall(text)]
        assert text.count(TIMED_OUT) == len(gave_up), text[-3000:]
        return gave_up

    def given_up(self, since: int) -> int:
        """How many flushes the worker gave up on after byte `since` of its log."""
        return len(GAVE_UP.findall(self.worker.log_path.read_text(errors="replace")[since:]))

    def wait_failures(self, since: int) -> list[int]:
        def enough() -> list[int] | None:
            found = self.failures(since)
            return found if len(found) >= FAILURES else None
        return wait_for(enough, 30, f"{FAILURES} timed-out flushes of {self.name}")


def _landed(consumer: Consumer, value: bytes) -> bool:
    return any(m.error() is None and m.value() == value for m in consumer.consume(10, 0.05))


def _latencies_while_flushing(flow: Flow, target: Broker, first: int) -> list[float]:
    """Lines `first`.. appended one at a time while the worker's offset flushes time out, and each one's time to
    land on the target: the task keeps producing while its flush waits. It runs from the end of one timed-out
    flush to the end of the next, so one whole flush wait is covered."""
    consumer = Consumer({"bootstrap.servers": target.bootstrap, "group.id": f"latency-{flow.topic}",
                         "enable.auto.commit": False, "fetch.wait.max.ms": 50})
    consumer.assign([TopicPartition(flow.topic, 0, first)])  # one record a line, in one partition
    mark = flow.worker.log_path.stat().st_size
    wait_for(lambda: flow.given_up(mark) >= 1, 30, f"the end of a timed-out flush of {flow.name}")
    mark, latencies = flow.worker.log_path.stat().st_size, []
    try:
        while flow.given_up(mark) < 1:
            line = first + len(latencies)
            flow.write(range(line, line + 1))
            written = time.monotonic()
            wait_for(partial(_landed, consumer, f"{flow.timeout_ms}:{line}".encode()), 30,
                     f"{flow.name}: line {line} on the target")
            latencies.append(time.monotonic() - written)
            time.sleep(0.2)  # pacing: the lines are spread over the flush's wait
    finally:
        consumer.close()
    return latencies


def _worker_settings(timeout_ms: int) -> dict[str, str]:
    return {"offset.flush.interval.ms": str(INTERVAL_MS), "offset.flush.timeout.ms": str(timeout_ms),
            # The freeze (several flush timeouts) must not cost the workers their tasks: a worker that cannot
            # read its cluster for a session timeout stops them (tests/test_cluster_outages.py covers that).
            "session.timeout.ms": "30000"}


def test_a_stalled_offset_flush_gives_up_after_the_timeout_and_a_later_flush_writes_the_offsets(
        tmp_path: Path, broker: Broker, unique: str) -> None:
    with own_brokers("flushW") as (frozen,):
        clusters = {t: Cluster(frozen, tmp_path, f"flush{t}", _worker_settings(t)) for t in TIMEOUTS_MS}
        try:
            _run(clusters, frozen, broker, tmp_path, unique)
        finally:
            frozen.resume()  # (a no-op unless the test failed during the freeze) the workers stop promptly
            for c in clusters.values():
                c.close()


def _start(clusters: dict[int, Cluster], target: Broker, tmp_path: Path, unique: str) -> list[Flow]:
    flows = [Flow(t, c.add_worker(), tmp_path / f"lines-{t}.txt", f"flush-{t}-{unique}") for t, c in clusters.items()]
    for flow in flows:  # both workers start at once, then both must answer
        flow.worker.wait_ready()
        create_topic(target.bootstrap, flow.topic, 1)
        flow.file.write_text("")
        body = {"name": flow.name, "config": {
            "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "file": str(flow.file),
            "topic": flow.topic, "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            "producer.override.bootstrap.servers": target.bootstrap}}
        assert flow.worker.request("POST", "/connectors", body).status_code == 201
    return flows


def _run(clusters: dict[int, Cluster], frozen: Broker, target: Broker, tmp_path: Path, unique: str) -> None:
    flows = _start(clusters, target, tmp_path, unique)
    for flow in flows:
        flow.wait_committed(flow.write(range(BEFORE)), "offsets committed before the freeze")
    marks = [flow.worker.log_path.stat().st_size for flow in flows]

    frozen.pause()
    frozen_at = time.monotonic()
    sizes = [flow.write(range(BEFORE, BEFORE + DURING)) for flow in flows]
    for flow in flows:  # the tasks carry on: their records land on the cluster that is not frozen
        flow.wait_on_target(target, BEFORE + DURING, "the lines written during the freeze on the target")
    slow = flows[-1]  # the 3 s timeout: a flush waits 3 s of every 3.5 s
    latencies = _latencies_while_flushing(slow, target, BEFORE + DURING)
    gave_up = [flow.wait_failures(mark) for flow, mark in zip(flows, marks, strict=True)]
    frozen.resume()
    thawed = time.monotonic()
    print(f"offsets cluster frozen {thawed - frozen_at:.1f}s; flushes given up on meanwhile (ms): "
          + ", ".join(f"timeout {flow.timeout_ms} ms: {ms}" for flow, ms in zip(flows, gave_up, strict=True)))
    for flow, ms in zip(flows, gave_up, strict=True):
        assert all(flow.timeout_ms <= m <= flow.timeout_ms + 1000 for m in ms), (flow.timeout_ms, ms)
    low, high = (sum(ms) / len(ms) for ms in gave_up)
    assert 1500 <= high - low <= 2500, (low, high)
    print(f"{len(latencies)} lines appended during one flush wait of {slow.name} landed after "
          f"{min(latencies):.2f}-{max(latencies):.2f} s")
    assert max(latencies) < slow.timeout_ms / 2000, latencies  # not held up until the flush gave up
    counts = {flow.name: BEFORE + DURING for flow in flows}
    counts[slow.name] += len(latencies)

    caught_up = []
    sizes[-1] = slow.file.stat().st_size
    for flow, size in zip(flows, sizes, strict=True):
        flow.wait_committed(size, "the offsets caught up after the freeze")
        caught_up.append(time.monotonic() - thawed)
    for flow, size, after in zip(flows, sizes, caught_up, strict=True):
        values = [value for _p, _o, _k, value in read_to_end(target.bootstrap, flow.topic)]
        expected = [f"{flow.timeout_ms}:{i}".encode() for i in range(counts[flow.name])]
        assert values == expected, "each line once, in order"
        assert all_running(flow.worker, flow.name, 1), status(flow.worker, flow.name)
        log = flow.worker.log_path.read_text(errors="replace")
        assert log.count(f"[{flow.name}-0] starting task") == 1 and "task failed" not in log, log[-3000:]
        print(f"timeout {flow.timeout_ms} ms: offsets at position {size} {after:.1f}s after the thaw, "
              f"{counts[flow.name]} records, each once")
