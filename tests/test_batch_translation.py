"""Batch offset translation (KIP-1239, Kafka 4.2) against a real checkpoints topic holding several groups.

Kafka's MirrorClientTest has no broker test of the pattern form; these follow the KIP's contract: every group
whose whole id matches, from one read of `<alias>.checkpoints.internal`, each equal to its single-group
translation, groups that do not match left out.
"""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from connectors.mirror.client import MirrorClient
from connectors.mirror.formats import Checkpoint
from connectors.mirror.remote_cluster_utils import OffsetAndMetadata, translate_offsets
from pyconnect.testing.brokers import Broker
from tests.harness.checkpoints import checkpoint_config, commit
from tests.harness.kafka_io import create_topic, produce, produce_many, read_to_end
from tests.harness.mirror import mirror_source
from tests.harness.workers import REPO, Cluster, wait_for


class CountingClient(MirrorClient):
    """A MirrorClient that counts its reads of each topic (each read is one consumer reading it to its end)."""

    def __init__(self, conf: dict[str, str]) -> None:
        super().__init__(conf)
        self.reads: dict[str, int] = {}

    def _read(self, topic: str, *args: Any, **kwargs: Any) -> list[tuple[bytes, bytes]]:
        self.reads[topic] = self.reads.get(topic, 0) + 1
        return super()._read(topic, *args, **kwargs)


@dataclass
class Scenario:
    alias: str
    topic: str  # the remote topic on the target the checkpoints name
    matching: dict[str, dict[tuple[str, int], Checkpoint]]  # group -> its latest checkpoints
    others: list[str]  # groups in the topic that the regex must leave out
    regex: str


def checkpoint_records(scenario_id: str, topic: str) -> tuple[list[Checkpoint], list[str]]:
    """Checkpoints of three matching groups (some superseded by later ones) and three near misses."""
    groups = [f"orders-{scenario_id}-{i}" for i in (1, 2, 3)]
    others = [f"billing-{scenario_id}-1", f"xorders-{scenario_id}-1", f"orders-{scenario_id}-1-old"]
    cps: list[Checkpoint] = []
    for n, group in enumerate(groups + others):
        for p in range(3):
            cps.append(Checkpoint(group, topic, p, 100 * n + p, 100 * n + p + 7, f"m{n}"))
    # Newer checkpoints of the same (group, topic, partition) win, whatever came between them.
    cps += [Checkpoint(groups[0], topic, 1, 500, 512, "newer"), Checkpoint(groups[2], topic, 0, 900, 903)]
    return cps, others


@pytest.fixture
def scenario(broker_b: Broker, unique: str) -> Iterator[Scenario]:
    """A checkpoints topic of this test's own source alias on B, written in Java's byte layout."""
    alias, topic = f"S{unique}", f"S{unique}.orders"
    create_topic(broker_b.bootstrap, f"{alias}.checkpoints.internal", 1, {"cleanup.policy": "compact"})
    create_topic(broker_b.bootstrap, topic, 3)
    cps, others = checkpoint_records(unique, topic)
    records: list[tuple[bytes | None, bytes]] = [(cp.key(), cp.value()) for cp in cps]
    records.insert(4, (b"junk", b"no checkpoint"))  # skipped, as Java skips a record it cannot read
    produce(broker_b.bootstrap, f"{alias}.checkpoints.internal", records)
    matching: dict[str, dict[tuple[str, int], Checkpoint]] = {}
    for cp in cps:
        if cp.group not in others:
            matching.setdefault(cp.group, {})[(cp.topic, cp.partition)] = cp
    yield Scenario(alias, topic, matching, others, rf"orders-{unique}-\d")


def test_batch_equals_per_group_from_one_read(broker_b: Broker, scenario: Scenario,
                                              caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "connectors.mirror.client")
    client = CountingClient({"bootstrap.servers": broker_b.bootstrap})
    checkpoints_topic = f"{scenario.alias}.checkpoints.internal"
    started = time.monotonic()
    batch = client.remote_consumer_offsets(re.compile(scenario.regex), scenario.alias)
    batch_s = time.monotonic() - started
    assert client.reads == {checkpoints_topic: 1}, "one read of the checkpoints topic for every group"
    expected = {g: {tp: cp.downstream_offset for tp, cp in cps.items()} for g, cps in scenario.matching.items()}
    assert batch == expected
    assert not set(batch) & set(scenario.others), "a group matches only when the regex matches its whole id"
    skipped = [r.getMessage() for r in caplog.records if r.name == "connectors.mirror.client"]
    assert skipped == [f"skipped 1 record(s) of {checkpoints_topic} that are no checkpoints"]
    started = time.monotonic()
    for group in expected:
        assert client.remote_consumer_offsets(group, scenario.alias) == batch[group]
    per_group_s = time.monotonic() - started
    assert client.reads == {checkpoints_topic: 1 + len(expected)}, "per group: one read each"
    print(f"\nBATCH: {len(batch)} groups in 1 read, {batch_s:.2f} s; per group: {len(expected)} reads, "
          f"{per_group_s:.2f} s")


def test_remote_cluster_utils_forms(broker_b: Broker, scenario: Scenario) -> None:
    """RemoteClusterUtils.translateOffsets: a group id and a pattern give the same OffsetAndMetadata."""
    props = {"bootstrap.servers": broker_b.bootstrap}
    batch = translate_offsets(props, scenario.alias, re.compile(scenario.regex))
    assert batch == {g: {tp: OffsetAndMetadata(cp.downstream_offset, cp.metadata) for tp, cp in cps.items()}
                     for g, cps in scenario.matching.items()}
    first = sorted(scenario.matching)[0]
    assert batch[first][(scenario.topic, 1)] == OffsetAndMetadata(512, "newer")
    for group in scenario.matching:
        assert translate_offsets(props, scenario.alias, group) == batch[group]
    assert translate_offsets(props, scenario.alias, "nobody") == {}
    # A group id is no pattern: its dots and brackets match themselves only.
    assert translate_offsets(props, scenario.alias, f"orders-{scenario.alias[1:]}-.") == {}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "replikafka", "offsets", "translate", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_cli_group_regex_json_and_table(broker_b: Broker, scenario: Scenario) -> None:
    base = ("--target-bootstrap", broker_b.bootstrap, "--source-alias", scenario.alias)
    out = cli(*base, "--group-regex", scenario.regex, "--format", "json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {g: {f"{t}-{p}": cp.downstream_offset for (t, p), cp in cps.items()}
                                      for g, cps in scenario.matching.items()}
    for group in scenario.matching:  # the same as each group's own translation
        one = cli(*base, "--group", group, "--format", "json")
        assert {f"{r['topic']}-{r['partition']}": r["offset"] for r in json.loads(one.stdout)} == \
            json.loads(out.stdout)[group]
    table = cli(*base, "--group-regex", scenario.regex)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["GROUP", "TOPIC", "PARTITION", "UPSTREAM", "TARGET", "OFFSET"]
    assert len(lines) == 1 + sum(len(cps) for cps in scenario.matching.values())
    none = cli(*base, "--group-regex", "nobody-.*")
    assert none.returncode == 3 and "no checkpoints for any group matching 'nobody-.*'" in none.stderr


def committed(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        return {tp.partition: tp.offset for tp in consumer.committed([TopicPartition(topic, p) for p in range(3)],
                                                                     timeout=10)}
    finally:
        consumer.close()


def test_cli_apply_per_group_refuses_the_active_one(broker_b: Broker, scenario: Scenario) -> None:
    active, *idle = sorted(scenario.matching)
    member = Consumer({"bootstrap.servers": broker_b.bootstrap, "group.id": active, "enable.auto.commit": False,
                       "session.timeout.ms": 10000})
    member.subscribe([scenario.topic])
    try:
        wait_for(lambda: (member.poll(0.2), member.assignment())[1], 60, f"{active} active on B")
        out = cli("--target-bootstrap", broker_b.bootstrap, "--source-alias", scenario.alias,
                  "--group-regex", scenario.regex, "--apply")
        assert out.returncode == 4, out.stderr
        assert f"group {active!r} is active on the target" in out.stderr
        for group in idle:
            assert f"applied 3 offset(s) to group {group!r}" in out.stderr
            assert committed(broker_b.bootstrap, group, scenario.topic) == {
                p: scenario.matching[group][(scenario.topic, p)].downstream_offset for p in range(3)}
        assert f"applied 3 offset(s) to group {active!r}" not in out.stderr
    finally:
        member.close()
    assert all(o < 0 for o in committed(broker_b.bootstrap, active, scenario.topic).values())


def test_checkpoints_of_a_running_connector(cluster_factory: Any, broker: Broker, broker_b: Broker,
                                           unique: str) -> None:
    """Checkpoints MirrorCheckpointConnector writes to the session's shared `A.checkpoints.internal` (other
    tests' groups in it too): the regex picks this test's groups, each as its single-group translation."""
    t = f"bt{unique}"
    create_topic(broker.bootstrap, t, 2)
    produce_many(broker.bootstrap, t, 400, 2)
    wanted = {f"app{i}-{unique}": 50 * i for i in (1, 2, 3)}
    for group, offset in {**wanted, f"other-{unique}": 7}.items():
        for p in range(2):
            commit(broker.bootstrap, group, t, offset + p, partition=p)
    cluster: Cluster = cluster_factory(on=broker_b)
    (w,) = cluster.start(1)
    assert w.request("POST", "/connectors", {"name": "src", "config": mirror_source(
        broker, broker_b, {"topics": t})}).status_code == 201
    wait_for(lambda: len(read_to_end(broker_b.bootstrap, f"A.{t}")) >= 400, 60, "copied")
    assert w.request("POST", "/connectors", {"name": "cp", "config": checkpoint_config(
        broker, broker_b, t, f".*-{unique}")}).status_code == 201
    client = CountingClient({"bootstrap.servers": broker_b.bootstrap})
    pattern = re.compile(rf"app\d-{unique}")
    expected = {g: {(f"A.{t}", p): o + p for p in range(2)} for g, o in wanted.items()}

    def translated() -> dict[str, dict[tuple[str, int], int]] | None:
        # The remote topic holds nothing but the copy: exact translation is the upstream offset itself.
        batch = client.remote_consumer_offsets(pattern, "A")
        return batch if batch == expected else None
    batch = wait_for(translated, 60, "checkpoints of every app group")
    reads = client.reads["A.checkpoints.internal"]
    assert {g: client.remote_consumer_offsets(g, "A") for g in wanted} == batch
    assert client.reads["A.checkpoints.internal"] == reads + len(wanted)
    assert client.remote_consumer_offsets(f"other-{unique}", "A"), "checkpointed, left out by the regex"
