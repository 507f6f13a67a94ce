"""One identity per worker, end to end: worker processes on a real broker that share one worker id.

The worker id is the advertised `host:port` (as Connect's). Two processes get the same one from a copied
worker.properties, or, as here, from different listeners behind one `rest.advertised.host.name`/`port`.
Java Connect has no such case to follow (its group coordinator gives each member its own member id, see
Kafka's WorkerGroupMember/WorkerCoordinator); the membership topic is our coordinator, so it arbitrates
(pyconnect/runtime/cluster/membership.py states the invariant).
"""

from __future__ import annotations

import signal
import time
from typing import Any

import orjson

from tests.harness.brokers import free_port
from tests.harness.connectors import all_running, sequence_connector, status
from tests.harness.kafka_io import read_all, read_to_end
from tests.harness.workers import Cluster, WorkerProcess, wait_for, worker_properties
from tests.test_worker_cluster import check_sequences, complete

SESSION_S = 4.0  # shorter than the default 10 s: restarts after a crash and take-overs wait it out
TIMING = {"session.timeout.ms": str(int(SESSION_S * 1000)), "heartbeat.interval.ms": "500"}


def membership(worker: WorkerProcess, group: str) -> list[dict[str, Any]]:
    """The membership topic's records in log order, decoded (read directly, not through the code under test)."""
    recs = read_to_end(worker.props["bootstrap.servers"], f"connect-membership.{group}.internal")
    return [orjson.loads(v) for _p, _o, k, v in sorted(recs, key=lambda r: r[1]) if k and v]


def leader_epoch(worker: WorkerProcess, group: str) -> int:
    return max((r["leader_epoch"] for r in membership(worker, group) if "leader_epoch" in r and "generation"
                not in r), default=0)


def beats_of(worker: WorkerProcess, group: str) -> int:
    """Heartbeats written by `worker`'s process (every heartbeat names its pid)."""
    assert worker.process is not None
    return sum(1 for r in membership(worker, group) if "seq" in r and r.get("pid") == worker.process.pid)


def twin(cluster: Cluster, of_port: int, name: str) -> WorkerProcess:
    """A worker process of `cluster` on its own listener that advertises the REST address `of_port`."""
    props = worker_properties(cluster.broker, cluster.group, free_port(),
                              {"rest.advertised.host.name": "127.0.0.1", "rest.advertised.port": str(of_port),
                               **cluster.extra})
    worker = WorkerProcess(cluster.directory, props, name)
    cluster.workers.append(worker)
    return worker


def exit_code(worker: WorkerProcess, timeout: float) -> int:
    assert worker.process is not None
    return wait_for(lambda: worker.process is not None and worker.process.poll() is not None
                    and (worker.process.returncode,), timeout, f"{worker.name} to exit")[0]


def test_a_second_process_with_a_running_workers_id_refuses_and_nothing_is_copied_twice(
        cluster_factory: Any, unique: str) -> None:
    cluster: Cluster = cluster_factory(extra=TIMING)
    [first] = cluster.start(1)
    topic, count = f"seq-{unique}", 3000
    assert first.request("POST", "/connectors", sequence_connector("seq", topic, 2, count, rate=300)).status_code == 201
    wait_for(lambda: all_running(first, "seq", 2), 60, "2 running tasks")
    epoch = leader_epoch(first, cluster.group)
    assert epoch >= 1

    second = twin(cluster, first.port, "second").start()
    started = time.monotonic()
    code = exit_code(second, 30 + SESSION_S)
    exited_at, refused_after = time.time(), time.monotonic() - started
    assert second.process is not None
    [join_ts] = [r["ts"] for r in membership(first, cluster.group) if r.get("pid") == second.process.pid]
    after_join = exited_at - join_ts / 1000
    log = second.log_path.read_text(errors="replace")
    print(f"\nREFUSED: exit code {code} {after_join:.2f} s after its join claim, {refused_after:.1f} s after the "
          f"second process started (Python start included); it wrote {beats_of(second, cluster.group)} heartbeat(s)")
    assert code != 0
    assert after_join < SESSION_S, "refused within a session timeout of joining"
    assert f"worker id {first.worker_id} is in use by another live worker process" in log
    assert first.process is not None and f"pid {first.process.pid}" in log, "names the process that holds the id"
    assert beats_of(second, cluster.group) == 1, "its join claim only: it never joined"
    assert f"error: worker id {first.worker_id} is in use" in log and "Traceback" not in log, "one line, no traceback"

    wait_for(lambda: complete(cluster.broker.bootstrap, topic, 2, count), 60, "the whole sequence written")
    dups = check_sequences(read_all(cluster.broker.bootstrap, topic), 2, count)
    final = leader_epoch(first, cluster.group)
    print(f"DUPLICATES: {dups} of {2 * count}; leader epoch {epoch} before, {final} after")
    assert dups == 0
    assert final == epoch, "no leadership claims: the first worker kept its id and its leadership"
    assert {t["worker_id"] for t in status(first, "seq")["tasks"]} == {first.worker_id}


def test_two_processes_started_at_once_with_one_id_exactly_one_runs(cluster_factory: Any) -> None:
    cluster: Cluster = cluster_factory(extra=TIMING)
    port = free_port()
    a, b = twin(cluster, port, "a").start(), twin(cluster, port, "b").start()
    started = time.monotonic()

    def one_exited() -> list[WorkerProcess]:
        return [w for w in (a, b) if w.process is not None and w.process.poll() is not None]
    [loser] = wait_for(one_exited, 30 + SESSION_S, "one of the two to exit")
    decided = time.monotonic() - started
    winner = b if loser is a else a
    assert loser.process is not None and loser.process.returncode != 0
    assert f"worker id 127.0.0.1:{port} is in use" in loser.log_path.read_text(errors="replace")
    winner.wait_ready()
    wait_for(lambda: leader_epoch(winner, cluster.group), 30, "a leader")
    beats = beats_of(winner, cluster.group)
    wait_for(lambda: beats_of(winner, cluster.group) >= beats + 4, 30, "four more heartbeats of the winner")
    epoch = leader_epoch(winner, cluster.group)
    print(f"\nRACE: {loser.name} refused {decided:.1f} s after both started; {winner.name} leads (epoch {epoch} "
          f"after {beats_of(winner, cluster.group)} heartbeats)")
    assert epoch == 1, "one claim: the refused process never claimed, and no claim storm followed"
    assert winner.process is not None and winner.process.poll() is None


def test_ordinary_restarts_of_a_worker_id(cluster_factory: Any) -> None:
    """A restart after a graceful stop takes the id at once; after kill -9 on the same machine too (the old
    pid is gone from this pid namespace), not a session timeout (the default 10 s here) later."""
    cluster: Cluster = cluster_factory()
    [worker] = cluster.start(1)
    assert worker.terminate() == 0
    t0 = time.monotonic()
    again = WorkerProcess(cluster.directory, worker.props, "again").start().wait_ready()
    cluster.workers.append(again)
    after_leave = time.monotonic() - t0
    again.kill()
    t0 = time.monotonic()
    third = WorkerProcess(cluster.directory, worker.props, "third").start().wait_ready(30 + SESSION_S)
    cluster.workers.append(third)
    after_crash = time.monotonic() - t0
    print(f"\nRESTART: ready {after_leave:.1f} s after a graceful stop, {after_crash:.1f} s after kill -9 "
          "(session timeout 10 s)")
    assert after_crash < after_leave + 3, "a restart after kill -9 waited for the dead process's session"
    assert "taken over" not in third.log_tail(200) and "in use" not in third.log_tail(200)


def test_a_frozen_worker_replaced_under_its_id_is_fenced_when_it_thaws(cluster_factory: Any, unique: str) -> None:
    """SIGSTOP (a long GC pause, a suspended VM) for more than a session timeout: a process started with the
    same id takes it over; once thawed, the old one stops its tasks instead of running them a second time."""
    cluster: Cluster = cluster_factory(extra=TIMING)
    [old] = cluster.start(1)
    topic, count = f"seq-{unique}", 3000
    assert old.request("POST", "/connectors", sequence_connector("seq", topic, 2, count, rate=300)).status_code == 201
    wait_for(lambda: all_running(old, "seq", 2), 60, "2 running tasks")
    assert old.process is not None
    old.process.send_signal(signal.SIGSTOP)
    frozen = time.monotonic()
    try:
        new = twin(cluster, old.port, "new").start().wait_ready(30 + SESSION_S)
        took_over = time.monotonic() - frozen  # a stopped pid still exists: the session is waited out
        assert took_over >= SESSION_S - 1
        wait_for(lambda: all_running(new, "seq", 2), 60, "the tasks running in the new process")
    finally:
        old.process.send_signal(signal.SIGCONT)
    beats_at_thaw = beats_of(old, cluster.group)
    wait_for(lambda: "was taken over by another worker process" in old.log_tail(400), 30, "the old process fenced")
    wait_for(lambda: complete(cluster.broker.bootstrap, topic, 2, count), 60, "the whole sequence written")
    dups = check_sequences(read_all(cluster.broker.bootstrap, topic), 2, count)
    epoch = leader_epoch(new, cluster.group)
    print(f"\nFENCED: the new process took the id {took_over:.1f} s after the freeze; duplicates {dups} of "
          f"{2 * count}; the thawed process beat {beats_of(old, cluster.group) - beats_at_thaw} more time(s); "
          f"leader epoch {epoch}")
    # The tasks resumed from the last committed offsets (flush every 1 s at 300 rec/s per task): duplicates
    # are that window, as after a kill -9; the thawed process running its tasks on would copy thousands.
    assert dups <= 2 * 300 * 2
    assert beats_of(old, cluster.group) - beats_at_thaw <= 1, "a fenced process stops beating"
    assert epoch == 2, "one claim, by the new process"
    assert old.process.poll() is None, "fenced, not crashed: it says why in its log"
    health = old.request("GET", "/health")
    assert health.status_code == 500 and "fenced" in health.json()["message"], "its probes fail: a restart is needed"
