"""Shutdown with every cluster gone: SIGTERM ends a worker within task.shutdown.graceful.timeout.ms
(Connect's default 5 s) plus a small margin, in distributed and in dedicated mode, where it took 25.9 s. Kubernetes
kills a pod 30 s after SIGTERM. With the clusters up the stop is quick and commits everything."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from tests.harness.brokers import free_port
from tests.harness.connectors import all_running, committed, sequence_connector
from tests.harness.faults import own_brokers, sigterm_another_thread, sigterm_group, start_mirror_maker, timed_sigterm
from tests.harness.kafka_io import create_topic, produce_many
from tests.harness.workers import Cluster, wait_for

GRACEFUL = 5.0
MARGIN = 2.5  # the leave record, the internal stores and the process's exit, on a loaded 2-core machine


def test_distributed_worker_stops_in_time_with_its_cluster_gone(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    with own_brokers("shut") as (broker,):
        cluster = Cluster(broker, tmp_path, "shut")
        request.addfinalizer(cluster.close)
        (w,) = cluster.start(1)
        w.wait_ready()
        assert w.request("POST", "/connectors", sequence_connector("seq", "t", 2, 10**9, 400)).status_code == 201
        wait_for(lambda: all_running(w, "seq", 2), 60, "running")
        wait_for(lambda: committed(w, "seq") > 200, 30, "offsets committed")
        broker.pause()  # SIGSTOP: the cluster stops answering, connections stay open
        assert w.process is not None
        seconds, code = timed_sigterm(w.process)
        print(f"SIGTERM with the cluster gone: exit {code} after {seconds:.1f}s")
        assert code == 0 and seconds <= GRACEFUL + MARGIN, seconds
        assert "abandoned" in w.log_path.read_text() or "not committed" in w.log_path.read_text()


def test_distributed_worker_stops_quickly_with_its_cluster_up(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    with own_brokers("shutup") as (broker,):
        cluster = Cluster(broker, tmp_path, "shutup")
        request.addfinalizer(cluster.close)
        (w,) = cluster.start(1)
        w.wait_ready()
        assert w.request("POST", "/connectors", sequence_connector("seq", "t", 2, 10**9, 400)).status_code == 201
        wait_for(lambda: all_running(w, "seq", 2), 60, "running")
        assert w.process is not None
        seconds, code = timed_sigterm(w.process)
        print(f"SIGTERM with the cluster up: exit {code} after {seconds:.1f}s")
        assert code == 0 and seconds <= 3.0, seconds
        assert "not committed" not in w.log_path.read_text()


def test_dedicated_mirror_maker_stops_in_time_with_both_clusters_gone(tmp_path: Path) -> None:
    with own_brokers("shutA", "shutB") as (a, b):
        for broker in (a, b):
            create_topic(broker.bootstrap, "orders", 2)
            produce_many(broker.bootstrap, "orders", 200, 2)
        port = free_port()
        process = start_mirror_maker(tmp_path, a, b, port, "orders")
        try:
            def running() -> bool:
                return all(httpx.get(f"http://127.0.0.1:{port}/{s}/{t}/connectors/MirrorSourceConnector/status",
                                     timeout=5).json()["tasks"][0]["state"] == "RUNNING"
                           for s, t in (("A", "B"), ("B", "A")))
            wait_for(running, 90, "both flows replicating")
            a.pause()
            b.pause()
            seconds, code = timed_sigterm(process)
            print(f"dedicated mode, SIGTERM with both clusters gone: exit {code} after {seconds:.1f}s")
            assert code == 0 and seconds <= GRACEFUL + MARGIN, seconds
        finally:
            sigterm_group(process)


def test_a_sigterm_another_thread_received_stops_the_worker(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """The kernel delivers a signal sent to a process to any thread that does not block it. CPython runs the
    handler only in the main thread, so a main thread asleep in an untimed wait never ran it: a dedicated
    process ignored the chart test's SIGTERM (and a second one) for 10 minutes. The signal goes to a thread
    other than the main one here, as the kernel may choose; the worker must still stop, cleanly."""
    with own_brokers("shutthread") as (broker,):
        cluster = Cluster(broker, tmp_path, "shutthread")
        request.addfinalizer(cluster.close)
        (w,) = cluster.start(1)
        w.wait_ready()
        assert w.process is not None
        start = time.monotonic()
        tid = sigterm_another_thread(w.process.pid)
        code = w.process.wait(30)
        print(f"SIGTERM to thread {tid} of {w.process.pid}: exit {code} after {time.monotonic() - start:.1f}s")
        assert code == 0 and time.monotonic() - start <= 3.0
        assert "received signal 15, shutting down" in w.log_path.read_text()


def test_a_sigterm_another_thread_received_stops_a_dedicated_mirror_maker(tmp_path: Path) -> None:
    """The same for `replikafka mirror-maker` (the process of the chart test that hung)."""
    with own_brokers("shutthrA", "shutthrB") as (a, b):
        port = free_port()
        process = start_mirror_maker(tmp_path, a, b, port, "orders")
        try:
            wait_for(lambda: httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200, 90,
                     "/health 200")
            start = time.monotonic()
            sigterm_another_thread(process.pid)
            code = process.wait(30)
            assert code == 0 and time.monotonic() - start <= 3.0
        finally:
            sigterm_group(process)
