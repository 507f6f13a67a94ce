"""A task whose source is far does not wait for its offset syncs at every offset commit.

The offset syncs go to `mm2-offset-syncs.<target>.internal` on the SOURCE cluster (MM2's default placement),
which is across the link when the task runs near its target, as MM2 recommends. Java's MirrorSourceTask sends
them without waiting (MirrorSourceTask.commit -> OffsetSyncWriter.firePendingOffsetSyncs: producer.send, no
flush); ours flushed its sync producer at every commit, so a far task stood still for a round trip to the source
at each offset commit, and for up to 10 s when that cluster was slow. Only the final commit of a stopped task
waits, so its last syncs (exact positions for fail-over) are on Kafka when it has stopped.

The source sits behind tests/harness/wan_proxy.py, 150 ms each way; the real task under the real runner, which
commits offsets every 0.1 s (as bench/mirror_source_bench.py drives it), copying records produced while it runs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from confluent_kafka import Producer

from connectors.mirror.source_task import MirrorSourceTask
from pyconnect.storage.log import MemoryLog, MemoryTopic
from pyconnect.storage.offset_store import OffsetStore
from tests.harness.brokers import Broker
from tests.harness.kafka_io import create_topic
from tests.harness.mirror import offset_syncs, task_runner, wait_running
from tests.harness.wan_proxy import FarBroker, start_far_tansu

ONE_WAY_MS, RECORDS = 150, 6000
SYNCS = "mm2-offset-syncs.B.internal"


class TimedCommits(MirrorSourceTask):
    """The real task, timing each commit(): (seconds, syncs waiting in its producer, the final commit)."""

    def __init__(self) -> None:
        super().__init__()
        self.commits: list[tuple[float, int, bool]] = []

    def commit(self) -> None:
        queued = len(self.sync_producer) if self.sync_producer is not None else 0
        began = time.monotonic()
        super().commit()
        self.commits.append((time.monotonic() - began, queued, self._stopping.is_set()))


@pytest.fixture
def far_source() -> Iterator[FarBroker]:
    far = start_far_tansu("far-syncs", 0)
    yield far
    far.stop()


def trickle(bootstrap: str, topic: str, stop: threading.Event) -> None:
    """RECORDS records, 100 every 50 ms (3 s): the task polls, acknowledges and commits many times, syncs due."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(RECORDS):
        producer.produce(topic, b"%d" % i, key=b"k%d" % i, partition=0)
        if i % 100 == 99:
            producer.poll(0)
            if stop.wait(0.05):
                break
    producer.flush(30)


def copy(far: FarBroker, target: Broker, topic: str, task: MirrorSourceTask, offsets: OffsetStore) -> None:
    """Once the task is RUNNING, RECORDS are produced to `topic` (trickle); the task copies them until every
    record's offset is committed, then is stopped."""
    runner = task_runner("far", task, far.bootstrap, target.bootstrap, [f"{topic}-0"], offsets)
    stop = threading.Event()
    producer = threading.Thread(target=trickle, args=(far.bootstrap, topic, stop), daemon=True)
    runner.start()
    deadline = time.monotonic() + 90
    position = {"cluster": "A", "partition": 0, "topic": topic}
    try:
        wait_running(runner, deadline)
        producer.start()
        while (offsets.get("far", position) or {"offset": -1})["offset"] < RECORDS - 1:
            assert runner.state != "FAILED" and time.monotonic() < deadline, f"task {runner.state}"
            time.sleep(0.01)  # polling the committed offset under the deadline
    finally:
        stop.set()
        if producer.is_alive():
            producer.join(60)
        runner.stop()
        assert runner.join(30)


def test_commits_do_not_wait_for_syncs_across_the_link(far_source: FarBroker, broker_b: Broker, unique: str) -> None:
    topic = f"syncs{unique}"
    create_topic(far_source.bootstrap, topic, 1)
    create_topic(far_source.bootstrap, SYNCS, 1)  # as MirrorSourceConnector creates it before its tasks run
    create_topic(broker_b.bootstrap, f"A.{topic}", 1)
    far_source.proxy.set_delay(ONE_WAY_MS)
    task, offsets = TimedCommits(), OffsetStore(MemoryLog(MemoryTopic(25)))
    offsets.start()
    copy(far_source, broker_b, topic, task, offsets)
    periodic = [c for c in task.commits if not c[2]]
    with_syncs = [seconds for seconds, queued, _ in periodic if queued]
    print(f"{len(periodic)} periodic commits, {len(with_syncs)} with syncs queued, the longest "
          f"{max(s for s, _, _ in periodic) * 1000:.1f} ms; RTT {2 * ONE_WAY_MS} ms")
    assert with_syncs, "no commit found a sync still in flight: the test did not exercise the case"
    assert max(s for s, _, _ in periodic) < ONE_WAY_MS / 1000, "a periodic commit waited for the source cluster"
    # The final commit waited for the last syncs: the one of the partition's last record is on the source cluster.
    far_source.proxy.set_delay(0)
    mine = [s for s in offset_syncs(far_source.bootstrap, SYNCS) if s.topic == topic]
    assert mine and mine[-1].upstream_offset == RECORDS - 1 and mine[-1].downstream_offset == RECORDS - 1
