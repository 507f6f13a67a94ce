"""`consumer.poll.timeout.ms` of MirrorSourceConnector and MirrorCheckpointConnector, honoured as Kafka's tasks
honour it and shown the way a Connect user sees it, on real brokers.

Followed (apache/kafka): connect/mirror MirrorSourceTask.poll (`consumer.poll(pollTimeout)`: up to the timeout
for records, at once when some arrive), MirrorCheckpointTask.poll (sleeps `pollTimeout` at a time until
`emit.checkpoints.interval.seconds` have passed), MirrorConnectorConfig's CONSUMER_POLL_TIMEOUT_MILLIS, and
connect/runtime AbstractWorkerSourceTask (`recordPollReturned`: a poll that returned records is timed into the
source-task-metrics `poll-batch-max-time-ms` / `poll-batch-avg-time-ms`, SourceTaskMetricsGroup).
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

from tests.harness.brokers import Broker, free_port
from tests.harness.checkpoints import checkpoint_config, commit
from tests.harness.connectors import all_running, status
from tests.harness.faults import timed_sigterm
from tests.harness.kafka_io import create_topic, produce_many, read_to_end, topic_names
from tests.harness.mirror import mirror_source
from tests.harness.workers import Cluster, WorkerProcess, wait_for
from tests.test_metrics import sample

MAX = "kafka_connect_source_task_poll_batch_max_time_ms"
AVG = "kafka_connect_source_task_poll_batch_avg_time_ms"
LONG_MS = 30_000  # a poll timeout far longer than any wait the tests allow: only slicing keeps them short
GAP = 0.4  # seconds between a record landing and the next being produced (see copy_times)


def scraper(port: int) -> Callable[[], str]:
    return lambda: httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text


def figure(text: str, name: str, connector: str) -> float:
    """One task-0 figure of a connector (NaN when absent)."""
    value = sample(text, name, connector=connector, task="0")
    return math.nan if value is None else value


def worker_on(cluster_factory: Any, broker_b: Broker) -> tuple[WorkerProcess, int]:
    port = free_port()
    cluster: Cluster = cluster_factory(on=broker_b, extra={"metrics.prometheus.port": str(port),
                                                           "offset.flush.interval.ms": "1000"})
    (w,) = cluster.start(1)
    return w, port


@pytest.fixture
def target_reader(broker_b: Broker) -> Iterator[Callable[[str], Consumer]]:
    """A consumer of one remote topic on B from its beginning (closed after the test)."""
    consumers: list[Consumer] = []

    def reader(remote: str) -> Consumer:
        wait_for(lambda: remote in topic_names(broker_b.bootstrap), 30, f"{remote} created on B")
        consumer = Consumer({"bootstrap.servers": broker_b.bootstrap, "group.id": f"reader-{uuid.uuid4().hex[:6]}",
                             "enable.auto.commit": False, "fetch.wait.max.ms": 20})
        consumer.assign([TopicPartition(remote, 0, OFFSET_BEGINNING)])
        consumers.append(consumer)
        return consumer

    yield reader
    for consumer in consumers:
        consumer.close()


def landed(consumer: Consumer, value: bytes, timeout: float = 20.0) -> float:
    """When (time.monotonic()) `value` was read from the target."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = consumer.poll(0.02)
        if m is not None and m.error() is None and m.value() == value:
            return time.monotonic()
    raise AssertionError(f"{value!r} not copied within {timeout}s")


def copy_times(producer: Producer, topic: str, consumer: Consumer, rounds: int = 4) -> list[float]:
    """Seconds from producing each of `rounds` records to reading it on the target; each record after the first
    is produced GAP s after the previous one landed, so it reaches a poll that has been waiting at least GAP s."""
    times = []
    for i in range(rounds):
        if i:
            time.sleep(GAP)  # places the record mid-wait of the poll that began before the previous one landed
        value = f"{topic}-{i}".encode()
        sent = time.monotonic()
        producer.produce(topic, value, partition=0)
        assert producer.flush(10) == 0
        times.append(landed(consumer, value) - sent)
    return times


def test_source_poll_waits_for_consumer_poll_timeout_and_stays_responsive(
        cluster_factory: Any, broker: Broker, broker_b: Broker, target_reader: Callable[[str], Consumer],
        unique: str) -> None:
    """Three idle MirrorSource tasks with consumer.poll.timeout.ms 100, 1000 and 30,000: each record is copied
    promptly (the poll returns as soon as records arrive, whatever the timeout), and the poll that returned a
    record produced GAP s into its wait shows that wait in poll-batch-max-time-ms with 1,000 (>= GAP) but not
    with 100 (the poll had been restarted at most 100 ms before). The 30 s poll does not hold up the offset
    commit (every second here), a pause or the worker's stop."""
    w, port = worker_on(cluster_factory, broker_b)
    timeouts = {f"p{ms}": ms for ms in (100, 1000, LONG_MS)}
    for name, ms in timeouts.items():
        create_topic(broker.bootstrap, f"{name}{unique}", 1)
        assert w.request("POST", "/connectors", {"name": name, "config": mirror_source(broker, broker_b, {
            "topics": f"{name}{unique}", "consumer.poll.timeout.ms": str(ms)})}).status_code == 201
    for name in timeouts:
        wait_for(lambda name=name: all_running(w, name, 1), 60, f"{name} running")
    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 0})
    copies = {name: copy_times(producer, f"{name}{unique}", target_reader(f"A.{name}{unique}"))
              for name in timeouts}
    text = scraper(port)()
    figures = {name: (figure(text, MAX, name), figure(text, AVG, name)) for name in timeouts}
    print(f"copy times (s): {copies}\npoll-batch max/avg (ms): {figures}")
    for name in timeouts:
        assert max(copies[name]) < 3.0, (name, copies[name])  # not held until a 1 s or 30 s timeout ran out
    assert figures["p1000"][0] >= GAP * 1000, figures  # a poll waited GAP s, then returned with the record
    assert figures["p1000"][0] < 1000 + 300, figures  # and never beyond its timeout
    assert figures["p100"][0] < 300, figures  # polls of 100 ms: restarted at most 100 ms before a record came
    assert figures[f"p{LONG_MS}"][0] >= GAP * 1000, figures

    # Commits every second go on while the 30 s poll waits: the last record's offset is committed.
    long_name = f"p{LONG_MS}"
    # Within half the 30 s poll (a loaded CI machine took over 5 s): only a commit made during the poll can pass.
    wait_for(lambda: source_offset(w, long_name) == 3, LONG_MS / 2000, "the last record's offset committed during "
             "a long poll")
    asked = time.monotonic()
    assert w.request("PUT", f"/connectors/{long_name}/pause").status_code == 202
    wait_for(lambda: status(w, long_name)["tasks"][0]["state"] == "PAUSED", 5, "paused during a long poll")
    paused_after = time.monotonic() - asked
    assert w.process is not None
    seconds, code = timed_sigterm(w.process)
    print(f"paused after {paused_after:.2f}s; worker stopped after {seconds:.2f}s")
    # Both far below the 30 s a poll may wait (stopping three MirrorSource connectors took 1.1-2.7 s here).
    assert paused_after < 3.0 and code == 0 and seconds <= 5.0, (paused_after, code, seconds)


def source_offset(w: WorkerProcess, connector: str) -> int:
    """The committed source offset of the connector's one partition (-1 when none)."""
    r = w.request("GET", f"/connectors/{connector}/offsets")
    offsets = r.json().get("offsets", []) if r.status_code == 200 else []
    return int(offsets[0]["offset"]["offset"]) if offsets else -1


def test_checkpoint_poll_waits_the_interval_rounded_up_to_poll_timeouts(
        cluster_factory: Any, broker: Broker, broker_b: Broker, unique: str) -> None:
    """MirrorCheckpointTask.poll sleeps consumer.poll.timeout.ms at a time until emit.checkpoints.interval.seconds
    have passed: with an interval of 1 s, a poll that emits checkpoints takes ~1 s with a 100 ms timeout and
    ~2.5 s with 2,500 ms (poll-batch-avg/max-time-ms). A group whose
    committed offset keeps moving gives both tasks checkpoints to emit. A 30 s timeout holds up no pause."""
    topic, group = f"cpt{unique}", f"cpt-g-{unique}"
    create_topic(broker.bootstrap, topic, 1)
    produce_many(broker.bootstrap, topic, 10, 1)
    w, port = worker_on(cluster_factory, broker_b)
    assert w.request("POST", "/connectors", {"name": "src", "config": mirror_source(
        broker, broker_b, {"topics": topic})}).status_code == 201
    wait_for(lambda: len(read_to_end(broker_b.bootstrap, f"A.{topic}")) == 10, 60, "replicated")
    commit(broker.bootstrap, group, topic, 10)
    timeouts = {f"cp{ms}": ms for ms in (100, 2500, LONG_MS)}
    for name, ms in timeouts.items():
        assert w.request("POST", "/connectors", {"name": name, "config": checkpoint_config(
            broker, broker_b, topic, group, consumer_poll_timeout_ms=str(ms))}).status_code == 201
    for name in timeouts:
        wait_for(lambda name=name: all_running(w, name, 1), 60, f"{name} running")
    scrape, flip = scraper(port), [10, 0]

    def polls_timed() -> str | None:
        """Moves the group between offsets 10 and 0 (each move a new checkpoint: the downstream offset
        advanced, or the upstream one rewound) until each short-timeout task has timed its polls."""
        flip.reverse()
        commit(broker.bootstrap, group, topic, flip[0])
        text = scrape()
        return text if all(not math.isnan(figure(text, MAX, n)) for n in ("cp100", "cp2500")) else None

    text = wait_for(polls_timed, 30, "checkpoint polls timed", interval=0.7)
    figures = {n: (figure(text, MAX, n), figure(text, AVG, n)) for n in ("cp100", "cp2500")}
    print(f"checkpoint poll-batch max/avg (ms): {figures}")
    assert 950 <= figures["cp100"][1] <= figures["cp100"][0] < 1800, figures
    assert 2450 <= figures["cp2500"][1] <= figures["cp2500"][0] < 3300, figures
    asked = time.monotonic()
    assert w.request("PUT", f"/connectors/cp{LONG_MS}/pause").status_code == 202
    wait_for(lambda: status(w, f"cp{LONG_MS}")["tasks"][0]["state"] == "PAUSED", 5, "paused during a long wait")
    assert time.monotonic() - asked < 3.0
