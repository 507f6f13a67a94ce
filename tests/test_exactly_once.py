"""Exactly-once source tasks (KIP-618) on a real broker: records and offsets in one transaction.

Ports the cases of Kafka's ExactlyOnceSourceIntegrationTest that a Python runtime on Tansu can run:
testPollBoundary (exactly once, in order, with a worker killed at random moments instead of one
clean run), testPreflightValidation (the `required` checks, through REST) and testFencedLeaderRecovery's
idea for tasks (a fenced producer never commits again). What a read_committed consumer sees is
computed by tests/harness/committed.py, because Tansu does not filter aborted transactions itself, and
the brokers run behind tests/harness/txn_proxy.py, so that the runtime's own read_committed offsets
reader sees what it would see on Kafka.
"""

from __future__ import annotations

import collections
import random
import signal
import time
from typing import Any

import httpx
import pytest

from tests.harness.brokers import Broker
from tests.harness.committed import read_committed
from tests.harness.connectors import all_running, committed, sequence_connector, status
from tests.harness.workers import Cluster, wait_for

EOS = {"exactly.once.source.support": "enabled"}


def _sequences(records: list[tuple[int, int, bytes | None, bytes | None]], tasks: int, count: int
               ) -> tuple[int, list[str], list[str]]:
    """(duplicates, missing, out-of-order tasks) of the `<task>:<n>` values, n < count."""
    seen = collections.Counter(r[3] for r in records)
    missing = [f"{t}:{n}" for t in range(tasks) for n in range(count) if seen[f"{t}:{n}".encode()] == 0]
    order: dict[int, list[int]] = collections.defaultdict(list)
    for _p, _o, _k, value in sorted(records, key=lambda r: (r[0], r[1])):
        task, seq = (value or b"").decode().split(":")
        order[int(task)].append(int(seq))
    unordered = [str(t) for t, seqs in order.items() if seqs != sorted(seqs)]
    return sum(c - 1 for c in seen.values()), missing, unordered


def test_killed_workers_leave_every_record_exactly_once_in_order(cluster_factory: Any, txn_broker: Broker,
                                                                 unique: str) -> None:
    """Default-suite version: five kills (the ten-kill run is `-m slow`)."""
    _killed_workers(cluster_factory, txn_broker, unique, 5)


@pytest.mark.slow
def test_ten_killed_workers_leave_every_record_exactly_once_in_order(cluster_factory: Any, txn_broker: Broker,
                                                                     unique: str) -> None:
    """Three workers, a worker killed -9 at a random moment ten times while the
    sequences are written: the committed view holds each record once, in order per task."""
    _killed_workers(cluster_factory, txn_broker, unique, 10)


def _killed_workers(cluster_factory: Any, txn_broker: Broker, unique: str, kills: int) -> None:
    cluster: Cluster = cluster_factory(extra=EOS, on=txn_broker)
    w = cluster.start(3)
    topic, tasks, count = f"eos-{unique}", 6, 3000
    # Connect's REST waits up to 90 s for the herder. On a fresh Apache Kafka node the first config-topic write waits
    # for its producer's id, which Kafka hands out once its transaction coordinator loaded ("Coordinator load in
    # progress"): 45 s once on a loaded 2-core machine, past the harness's 30 s request timeout.
    r = httpx.post(f"{w[0].url}/connectors", json=sequence_connector("seq", topic, tasks, count, rate=250),
                   timeout=90, **w[0].client)
    assert r.status_code == 201, r.text
    wait_for(lambda: all_running(w[0], "seq", tasks), 60, "6 running tasks")
    rng = random.Random(unique)
    for kill in range(kills):
        time.sleep(rng.uniform(0.5, 2.5))  # a random moment: a test of timing, not a synchronisation
        victim = rng.choice([x for x in cluster.live() if x is not w[0]] or cluster.live())
        victim.kill()
        wait_for(lambda: all_running(w[0], "seq", tasks, on={x.worker_id for x in cluster.live()}), 60,
                 f"tasks running on the survivors after kill {kill + 1}", 0.05)
        victim.start().wait_ready()
    wait_for(lambda: committed(w[0], "seq") >= tasks * count, 180, "every sequence committed")
    dups, missing, unordered = _sequences(read_committed(cluster.broker.bootstrap, topic), tasks, count)
    print(f"\nEXACTLY-ONCE after {kills} kill -9: {dups} duplicates, {len(missing)} missing, "
          f"unordered tasks {unordered}")
    assert (dups, missing[:5], unordered) == (0, [], [])


def test_required_on_a_worker_without_exactly_once_is_refused(cluster_factory: Any, unique: str) -> None:
    """Item 5 (DistributedHerderTest.testExactlyOnceSourceSupportValidationWhenExactlyOnceNotEnabledOnWorker)."""
    w = cluster_factory().start(1)[0]
    body = sequence_connector("seq", f"t-{unique}", 1, 10)
    body["config"]["exactly.once.support"] = "required"
    r = w.request("POST", "/connectors", body)
    assert r.status_code == 400, r.text
    assert r.json()["error_code"] == 400
    assert r.json()["message"].startswith("Connector configuration is invalid and contains the following 1 "
                                          "error(s):\nThis worker does not have exactly-once source support enabled.")
    v = w.request("PUT", "/connector-plugins/SequenceSourceConnector/config/validate",
                  {**body["config"], "name": "seq"}).json()
    errors = {c["value"]["name"]: c["value"]["errors"] for c in v["configs"]}
    assert errors["exactly.once.support"] == ["This worker does not have exactly-once source support enabled."]
    assert v["error_count"] == 1


def test_transactions_unavailable_fail_the_task_readably_and_write_nothing(cluster_factory: Any, txn_broker: Broker,
                                                                          unique: str) -> None:
    """Item 5: the cluster the task's producer writes to does not answer, so no transaction can be set
    up there: the task is FAILED with a reason naming that cluster, and no record reached the topic."""
    w = cluster_factory(extra=EOS, on=txn_broker).start(1)[0]
    topic = f"t-{unique}"
    body = sequence_connector("seq", topic, 1, 10)
    body["config"]["producer.override.bootstrap.servers"] = "127.0.0.1:9"  # nothing listens there
    assert w.request("POST", "/connectors", body).status_code == 201

    def failed() -> dict[str, Any]:
        tasks = status(w, "seq").get("tasks", [])
        return tasks[0] if tasks and tasks[0]["state"] == "FAILED" else {}
    task = wait_for(failed, 120, "the task FAILED")
    # The first step that needs the target fails: creating the task's offsets topic there (its producer
    # writes to another cluster than the worker's offsets topic), before any transaction could begin.
    reason = task["trace"].strip().splitlines()[-1]
    assert "127.0.0.1:9" in reason and "offsets topic" in reason, task["trace"]
    assert read_committed(w.props["bootstrap.servers"], topic) == []


def test_a_zombie_worker_commits_nothing_after_its_tasks_moved(cluster_factory: Any, txn_broker: Broker,
                                                               unique: str) -> None:
    """A worker frozen (SIGSTOP) past the session timeout loses its tasks; their new
    owners register the same transactional ids, which fences it. Thawed, its tasks fail as fenced or stop on
    their lost lease, nothing it wrote becomes committed, and it rejoins and runs tasks again."""
    cluster: Cluster = cluster_factory(extra={**EOS, "session.timeout.ms": "4000", "heartbeat.interval.ms": "500"},
                                       on=txn_broker)
    w = cluster.start(2)
    topic, tasks, count = f"zombie-{unique}", 4, 2500
    r = w[0].request("POST", "/connectors", sequence_connector("seq", topic, tasks, count, rate=200))
    assert r.status_code == 201, r.text
    wait_for(lambda: all_running(w[0], "seq", tasks), 60, "4 running tasks")
    zombie = w[1]
    moved = {t["id"] for t in status(w[0], "seq")["tasks"] if t["worker_id"] == zombie.worker_id}
    assert moved, "the zombie-to-be runs some tasks"
    wait_for(lambda: committed(w[0], "seq") >= tasks * 200, 30, "part of the sequences committed")
    assert zombie.process is not None
    log_start = len(zombie.log_path.read_text(errors="replace"))
    zombie.process.send_signal(signal.SIGSTOP)
    try:
        wait_for(lambda: all_running(w[0], "seq", tasks, on={w[0].worker_id}), 60, "tasks moved off the zombie")
    finally:
        zombie.process.send_signal(signal.SIGCONT)
    # It rejoins without a restart: tasks spread over both workers again.
    wait_for(lambda: all_running(w[0], "seq", tasks, on={w[0].worker_id, zombie.worker_id})
             and zombie.worker_id in {t["worker_id"] for t in status(w[0], "seq")["tasks"]}, 120,
             "the thawed worker runs tasks again")
    wait_for(lambda: committed(w[0], "seq") >= tasks * count, 120, "every sequence committed")
    dups, missing, unordered = _sequences(read_committed(cluster.broker.bootstrap, topic), tasks, count)
    after = zombie.log_path.read_text(errors="replace")[log_start:]
    # Thawed, each of its tasks either tried to go on and was fenced (the broker's words on produce, or ours on
    # init/commit/abort), or saw first that its worker had lost the assignment and stopped without sending or
    # committing more (the runner's lease check): which comes first depends on where each task was frozen.
    fenced = after.count("fences the current one") + after.count("fenced by a newer producer")
    stopped = after.count("the worker lost this task's assignment")
    print(f"\nZOMBIE: tasks {sorted(moved)} moved; after SIGCONT {fenced} fenced transaction call(s) logged, "
          f"{stopped} task(s) stopped on their lost lease; {dups} duplicates, {len(missing)} missing")
    assert (dups, missing[:5], unordered) == (0, [], [])
    assert fenced + stopped >= 1, after[-3000:]


def test_a_task_writing_to_another_cluster_keeps_its_offsets_there(cluster_factory: Any, txn_broker: Broker,
                                                                   txn_broker_b: Broker, unique: str) -> None:
    """The separate offsets topic (ExactlyOnceSourceIntegrationTest.testSeparateOffsetsTopic's layout): the
    worker's offsets topic is on A, the task's producer writes to B, so its offsets go to an offsets topic
    on B inside its transactions, and are copied to the worker's. Killed -9 twice, it resumes from B's.
    On Apache Kafka the task reads its offsets topic on B right after creating it, when B's metadata already names
    the leader but ListOffsets still answers NOT_LEADER_FOR_PARTITION: the task failed there until end-offset
    queries asked again on a moving leader (pyconnect/kafka/clients.py)."""
    cluster: Cluster = cluster_factory(extra=EOS, on=txn_broker)
    w = cluster.start(1)[0]
    topic, tasks, count, own = f"far-{unique}", 2, 2000, f"far-offsets-{unique}"
    body = sequence_connector("seq", topic, tasks, count, rate=300)
    body["config"].update({"producer.override.bootstrap.servers": txn_broker_b.bootstrap, "offsets.storage.topic": own})
    assert w.request("POST", "/connectors", body).status_code == 201
    for _ in range(2):
        wait_for(lambda: all_running(w, "seq", tasks), 60, "tasks running")
        time.sleep(1.5)  # let some transactions commit before the kill
        w.kill()
        w.start().wait_ready()
    wait_for(lambda: committed(w, "seq") >= tasks * count, 120, "every sequence committed (worker's copy)")
    dups, missing, unordered = _sequences(read_committed(txn_broker_b.bootstrap, topic), tasks, count)
    on_b = {r[3] for r in read_committed(txn_broker_b.bootstrap, own)}
    print(f"\nSEPARATE OFFSETS TOPIC: {dups} duplicates, {len(missing)} missing; {len(on_b)} offset values on B")
    assert (dups, missing[:5], unordered) == (0, [], [])
    assert {b'{"seq":%d}' % (count - 1)} <= on_b, "the last offsets of both tasks are in B's offsets topic"
