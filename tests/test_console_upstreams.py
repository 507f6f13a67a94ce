"""Where a flow's target hears from: upstream clusters and hops from heartbeats, on the console and in
Prometheus, next to each group's checkpoint age ("checkpoint age per group, upstream clusters and
hops from heartbeats").

A ring of three flows in one dedicated process, A->B, B->C and C->A, with heartbeats on. B's heartbeat
topics become `A.heartbeats` (A's, one hop) and `A.C.heartbeats` (C's, through A: two hops), which is
what MM2's MirrorClient.replicationHops answers for B (MirrorClientTest.testReplicationHops reads the
same names). Fresh brokers: a shared one may hold heartbeat topics of other tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from confluent_kafka import Consumer, TopicPartition

from pyconnect.testing.brokers import Broker, free_port
from tests.harness.kafka_io import create_topic, produce_many
from tests.harness.mirror import cluster_lines, mm2_settings
from tests.harness.own_broker import start_own_broker
from tests.harness.workers import wait_for
from tests.test_metrics import sample
from tests.test_mirror_topologies import MirrorMakerProcess

HOPS = "kafka_connect_mirror_mirrorsourceconnector_upstream_replication_hops"


@pytest.fixture
def ring() -> Iterator[dict[str, Broker]]:
    brokers = {alias: start_own_broker(alias) for alias in ("A", "B", "C")}
    yield brokers
    for b in brokers.values():
        b.stop()


def test_a_flows_upstream_clusters_hops_and_checkpoint_ages(tmp_path: Path, ring: dict[str, Broker]) -> None:
    port = free_port()
    create_topic(ring["A"].bootstrap, "ring", 1)
    produce_many(ring["A"].bootstrap, "ring", 20, 1)
    consumer = Consumer({"bootstrap.servers": ring["A"].bootstrap, "group.id": "ring-readers"})
    consumer.commit(offsets=[TopicPartition("ring", 0, 10)], asynchronous=False)
    consumer.close()
    path = tmp_path / "mm2.properties"
    path.write_text(cluster_lines(ring)
                    + "A->B.enabled = true\nB->C.enabled = true\nC->A.enabled = true\n"
                    + "topics = ring\nrefresh.topics.interval.seconds = 1\nemit.heartbeats.interval.seconds = 1\n"
                    + f"B.metrics.prometheus.port = {port}\n" + mm2_settings(ring).replace(
                        "refresh.topics.interval.seconds=2\n", ""))
    mm = MirrorMakerProcess(path, tmp_path / "mm.log")
    try:
        def upstreams() -> str | None:
            page = httpx.get(f"http://127.0.0.1:{mm.port}/A/B/ui", timeout=5)
            row = re.search(r'<tr class="flow" data-flow="A-B">(.*?)</tr>', page.text) if page.status_code == 200 \
                else None
            return row.group(1) if row and "C (2)" in row.group(1) and "ring-readers: " in row.group(1) else None
        row = wait_for(upstreams, 120, "B's upstream clusters on the A->B console")
        assert "A (1), C (2)" in row, row
        assert "MirrorSourceConnector" in row and "RUNNING" in row, row
        age = re.search(r'data-group="ring-readers">ring-readers: (\d+) s<', row)
        assert age and int(age.group(1)) < 30, row
        scrape = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
        assert sample(scrape, HOPS, source="A", target="B", upstream="A") == 1, scrape[-3000:]
        assert sample(scrape, HOPS, source="A", target="B", upstream="C") == 2
        assert sample(scrape, HOPS, source="A", target="B", upstream="B") is None, "a cluster is not its own upstream"
    finally:
        mm.stop()
