"""The sink runtime's SinkTaskContext against a real broker, cases after Kafka's WorkerSinkTaskTest: a put that
raises RetriableException is redelivered (testPollRedelivery), context.offset rewinds on open (testRewind...),
request_commit commits at once (testRequestCommit), and the errant record reporter sends a record to the dead
letter queue as a TASK_PUT failure while the rest is delivered (WorkerErrantRecordReporterTest / KIP-610)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.harness.connectors import all_running, status
from tests.harness.kafka_io import create_topic, produce_many, read_messages
from tests.harness.sink_plugins import PATH
from tests.harness.sinks import group_offsets, lines, sink_worker_extra
from tests.harness.workers import wait_for

COUNT, PARTITIONS = 400, 2


def _start(cluster_factory: Any, broker: Any, topic: str, out: Path, **extra: str) -> Any:
    create_topic(broker.bootstrap, topic, PARTITIONS)
    produce_many(broker.bootstrap, topic, COUNT, PARTITIONS)
    (w,) = cluster_factory(extra=sink_worker_extra(broker)).start(1)
    body = {"name": "scripted", "config": {"connector.class": PATH, "topics": topic, "file": str(out),
                                           "value.converter": "org.apache.kafka.connect.storage.StringConverter",
                                           **extra}}
    r = w.request("POST", "/connectors", body)
    assert r.status_code == 201, r.text
    return w


def _offsets(out: Path) -> list[tuple[int, int]]:
    return sorted((int(p), int(o)) for _t, p, o, _v in (line.split(",", 3) for line in lines(out)))


def test_retriable_put_is_redelivered_exactly(cluster_factory: Any, broker: Any, unique: str, tmp_path: Path) -> None:
    """WorkerSinkTaskTest.testPollRedelivery: the same records are put again after the timeout, none lost
    and none written twice."""
    out = tmp_path / "out.txt"
    w = _start(cluster_factory, broker, f"retry-{unique}", out, **{"retriable.failures": "3"})
    wait_for(lambda: len(lines(out)) >= COUNT, 60, "every record written")
    assert _offsets(out) == sorted((p, o) for p in range(PARTITIONS) for o in range(COUNT // PARTITIONS))
    assert "RetriableException from SinkTask" in w.log_path.read_text()
    assert all_running(w, "scripted", 1), status(w, "scripted")


def test_context_offset_on_open_rewinds(cluster_factory: Any, broker: Any, unique: str, tmp_path: Path) -> None:
    """WorkerSinkTaskTest.testRewindOnRebalanceDuringPoll: offsets the task sets in open() are where each
    partition starts; the group commits from there."""
    out, topic = tmp_path / "out.txt", f"rewind-{unique}"
    _start(cluster_factory, broker, topic, out, **{"start.offset": "150"})
    per_partition = COUNT // PARTITIONS
    wait_for(lambda: len(lines(out)) >= PARTITIONS * (per_partition - 150), 60, "the records from offset 150")
    assert _offsets(out) == sorted((p, o) for p in range(PARTITIONS) for o in range(150, per_partition))
    wait_for(lambda: group_offsets(broker.bootstrap, "connect-scripted", topic, PARTITIONS)
             == dict.fromkeys(range(PARTITIONS), per_partition), 30, "the group at the end")


def test_request_commit_commits_without_waiting_for_the_interval(cluster_factory: Any, broker: Any, unique: str,
                                                                 tmp_path: Path) -> None:
    """WorkerSinkTaskTest.testRequestCommit: with offset.flush.interval.ms at 10 minutes, a requested commit
    still reaches the group at once."""
    out, topic = tmp_path / "out.txt", f"commit-{unique}"
    create_topic(broker.bootstrap, topic, PARTITIONS)
    produce_many(broker.bootstrap, topic, COUNT, PARTITIONS)
    (w,) = cluster_factory(extra={**sink_worker_extra(broker), "offset.flush.interval.ms": "600000"}).start(1)
    body = {"name": "scripted", "config": {"connector.class": PATH, "topics": topic, "file": str(out),
                                           "commit.every.put": "true"}}
    assert w.request("POST", "/connectors", body).status_code == 201
    wait_for(lambda: group_offsets(broker.bootstrap, "connect-scripted", topic, PARTITIONS)
             == dict.fromkeys(range(PARTITIONS), COUNT // PARTITIONS), 60, "the requested commit")


def test_errant_record_reporter_sends_to_the_dead_letter_queue(cluster_factory: Any, broker: Any, unique: str,
                                                               tmp_path: Path) -> None:
    """KIP-610: records the task reports land in the DLQ with stage TASK_PUT and the SinkTask class; the
    others are written, and the group commits past both."""
    out, topic, dlq = tmp_path / "out.txt", f"errant-{unique}", f"errant-dlq-{unique}"
    _start(cluster_factory, broker, topic, out, **{
        "errant.marker": ":1", "errors.tolerance": "all", "errors.deadletterqueue.topic.name": dlq,
        "errors.deadletterqueue.topic.replication.factor": "1",
        "errors.deadletterqueue.context.headers.enable": "true"})
    bad = [i for i in range(COUNT) if str(i).startswith("1")]
    wait_for(lambda: len(lines(out)) >= COUNT - len(bad), 60, "the good records written")
    dead = read_messages(broker.bootstrap, dlq, expect=len(bad))
    assert sorted(m.value() for m in dead) == sorted(f"{topic}:{i}".encode() for i in bad)
    headers = dict(dead[0].headers())
    assert headers["__connect.errors.stage"] == b"TASK_PUT"
    assert headers["__connect.errors.class.name"] == b"org.apache.kafka.connect.sink.SinkTask"
    assert headers["__connect.errors.exception.message"].startswith(b"cannot write")
    wait_for(lambda: group_offsets(broker.bootstrap, "connect-scripted", topic, PARTITIONS)
             == dict.fromkeys(range(PARTITIONS), COUNT // PARTITIONS), 30, "the group past the reported records")
