"""Worker cluster behaviour on a real broker: spread, fail-over, restart, leader loss."""

from __future__ import annotations

import collections
import time
from typing import Any

from tests.harness.connectors import all_running, committed, sequence_connector, status
from tests.harness.kafka_io import read_all, read_to_end
from tests.harness.membership import leader_of
from tests.harness.workers import Cluster, wait_for


def complete(bootstrap: str, topic: str, tasks: int, count: int) -> bool:
    """Every `<task>:<n>` is in the topic (duplicates do not count towards completeness)."""
    return len({r[3] for r in read_to_end(bootstrap, topic)}) >= tasks * count


def check_sequences(records: list[tuple[int, int, bytes | None, bytes | None]], tasks: int, count: int) -> int:
    """Every `<task>:<n>` for n < count is present; returns the number of duplicates."""
    seen = collections.Counter(r[3] for r in records)
    missing = [f"{t}:{n}" for t in range(tasks) for n in range(count) if seen[f"{t}:{n}".encode()] == 0]
    assert not missing, f"{len(missing)} sequence numbers missing, e.g. {missing[:5]}"
    return sum(c - 1 for c in seen.values())


def test_tasks_spread_and_fail_over_after_kill(cluster_factory: Any, unique: str) -> None:
    cluster: Cluster = cluster_factory()
    w = cluster.start(3)
    topic = f"seq-{unique}"
    count = 4000
    r = w[0].request("POST", "/connectors", sequence_connector("seq", topic, 6, count, rate=300))
    assert r.status_code == 201, r.text
    st = wait_for(lambda: all_running(w[0], "seq", 6), 60, "6 running tasks")
    per_worker = collections.Counter(t["worker_id"] for t in st["tasks"])
    assert sorted(per_worker.values()) == [2, 2, 2], per_worker

    victim = w[1]
    moved = {t["id"] for t in st["tasks"] if t["worker_id"] == victim.worker_id}
    survivors = {w[0].worker_id, w[2].worker_id}
    wait_for(lambda: committed(w[0], "seq") >= 6 * 300, 30, "part of the sequences committed")
    victim.kill()
    killed_at = time.monotonic()
    st = wait_for(lambda: all_running(w[0], "seq", 6, on=survivors), 60, "tasks moved to survivors", 0.05)
    failover = time.monotonic() - killed_at
    print(f"\nFAILOVER: tasks {sorted(moved)} of the killed worker RUNNING on survivors after {failover:.1f}s")
    assert failover < 15, f"fail-over took {failover:.1f}s"
    assert sorted(collections.Counter(t["worker_id"] for t in st["tasks"]).values()) == [3, 3]

    # Every sequence number lands; duplicates only from the uncommitted window of the dead worker.
    wait_for(lambda: complete(cluster.broker.bootstrap, topic, 6, count), 120, "all sequences written")
    dups = check_sequences(read_all(cluster.broker.bootstrap, topic), 6, count)
    print(f"DUPLICATES after kill -9: {dups} (offset flush interval 1 s, 300 rec/s per task)")
    assert dups <= 2 * 300 * 2 * 2  # two moved tasks, at most ~2 flush intervals of records each, with slack


def test_whole_cluster_restart_restores_state(cluster_factory: Any, unique: str) -> None:
    cluster: Cluster = cluster_factory()
    w = cluster.start(2)
    topic = f"seq-{unique}"
    count = 3000
    assert w[0].request("POST", "/connectors", sequence_connector("run", topic, 2, count, 250)).status_code == 201
    paused = sequence_connector("held", f"held-{unique}", 1, 10)
    paused["initial_state"] = "PAUSED"
    assert w[1].request("POST", "/connectors", paused).status_code == 201
    wait_for(lambda: all_running(w[0], "run", 2), 60, "run connector running")
    wait_for(lambda: committed(w[0], "run") >= 500, 30, "part of the sequence committed")
    for worker in w:
        assert worker.terminate() == 0
    before = read_all(cluster.broker.bootstrap, topic)
    assert 0 < len(before) < 2 * count, "stop the cluster mid-sequence"

    w2 = cluster.start(2)
    assert sorted(w2[0].request("GET", "/connectors").json()) == ["held", "run"]
    wait_for(lambda: status(w2[0], "held").get("connector", {}).get("state") == "PAUSED", 30, "held stays PAUSED")
    wait_for(lambda: complete(cluster.broker.bootstrap, topic, 2, count), 120, "sequence done")
    records = read_all(cluster.broker.bootstrap, topic)
    dups = check_sequences(records, 2, count)
    # A graceful stop commits offsets of acknowledged records, so the restart resumes exactly.
    assert dups == 0, f"{dups} duplicates after a graceful restart"
    offsets = w2[0].request("GET", "/connectors/run/offsets").json()["offsets"]
    assert sorted(o["offset"]["seq"] for o in offsets) == [count - 1, count - 1]


def test_leader_loss_elects_new_leader(cluster_factory: Any, unique: str) -> None:
    cluster: Cluster = cluster_factory()
    w = cluster.start(3)
    leader_id = wait_for(lambda: leader_of(cluster.broker.bootstrap, cluster.group), 30, "a leader")
    leader = next(x for x in w if x.worker_id == leader_id)
    others = [x for x in w if x is not leader]
    leader.kill()
    new_leader = wait_for(lambda: (lambda lid: lid if lid and lid != leader_id else "")(
        leader_of(cluster.broker.bootstrap, cluster.group)), 30, "a new leader")
    assert new_leader in {o.worker_id for o in others}
    # Until this follower has read the new leader's claim, Connect answers 409, or 500 "IO Error trying to
    # forward REST request" while it still forwards to the dead leader; clients retry.
    body = sequence_connector("after", f"after-{unique}", 2, 100, 500)
    r = wait_for(lambda: (lambda resp: resp if resp.status_code not in (409, 500) else None)(
        others[0].request("POST", "/connectors", body)), 30, "the write accepted by the new leader")
    assert r.status_code == 201, r.text
    st = wait_for(lambda: all_running(others[1], "after", 2), 40, "connector created after leader loss running")
    assert {t["worker_id"] for t in st["tasks"]} <= {o.worker_id for o in others}
