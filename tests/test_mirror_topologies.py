"""Seed topologies in dedicated mode: active/active over three clusters; two processes sharing a flow."""

from __future__ import annotations

import collections
import re
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pyconnect.testing.brokers import Broker
from tests.harness.brokers import free_port
from tests.harness.kafka_io import create_topic, produce_many, read_to_end, topic_names
from tests.harness.mirror import mm2_settings
from tests.harness.own_broker import start_own_broker
from tests.harness.workers import REPO, wait_for


@pytest.fixture
def broker_c() -> Iterator[Broker]:
    c = start_own_broker("C")
    yield c
    c.stop()


class MirrorMakerProcess:
    def __init__(self, path: Path, log: Path, *extra: str) -> None:
        self.port = free_port()
        self.log = open(log, "ab")  # noqa: SIM115 - owned by the child
        self.proc = subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path), "--listeners",
                                      f"http://127.0.0.1:{self.port}", *extra], cwd=REPO, stdout=self.log,
                                     stderr=subprocess.STDOUT)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def matching(bootstrap: str, pattern: str) -> list[bytes]:
    """What a consumer of `pattern` (e.g. `.*TOPIC1`) reads on this cluster: every matching topic."""
    out: list[bytes] = []
    for topic in sorted(t for t in topic_names(bootstrap) if re.fullmatch(pattern, t)):
        out += [r[3] or b"" for r in read_to_end(bootstrap, topic)]
    return out


def test_active_active_three_clusters(tmp_path: Path, broker: Broker, broker_b: Broker, broker_c: Broker) -> None:
    t = f"TOPIC1x{uuid.uuid4().hex[:6]}"
    named = {"A": broker, "B": broker_b, "C": broker_c}
    flows = "".join(f"{s}->{d}.enabled = true\n" for s in named for d in named if s != d)
    path = tmp_path / "active-active.properties"
    path.write_text("clusters = A, B, C\n" + "".join(f"{a}.bootstrap.servers = {b.bootstrap}\n"
                                                     for a, b in named.items())
                    + flows + f"topics = {t}\nemit.heartbeats.enabled = false\n" + mm2_settings(named))
    for i, b in enumerate(named.values()):
        create_topic(b.bootstrap, t, 1)
        produce_many(b.bootstrap, t, 200, 1, start=1000 * i)  # distinct values per cluster
    mm = MirrorMakerProcess(path, tmp_path / "mm.log")
    try:
        for alias, b in named.items():
            others = [o for o in named if o != alias]
            wait_for(lambda b=b, others=others: all(len(read_to_end(b.bootstrap, f"{o}.{t}")) == 200 for o in others),
                     120, f"remote copies on {alias}")
        for alias, b in named.items():
            names = {n for n in topic_names(b.bootstrap) if n.endswith(t)}
            assert names == {t} | {f"{o}.{t}" for o in named if o != alias}, (alias, names)
            # A `.*TOPIC1` consumer receives every record produced anywhere, exactly once.
            got = collections.Counter(matching(b.bootstrap, f".*{t}"))
            expected = {f"{t}:{1000 * i + n}".encode() for i in range(3) for n in range(200)}
            assert set(got) == expected and max(got.values()) == 1, alias
    finally:
        mm.stop()


def test_two_processes_share_a_flow_and_survive_a_kill(tmp_path: Path, broker: Broker, broker_b: Broker) -> None:
    t = f"shared{uuid.uuid4().hex[:6]}"
    create_topic(broker.bootstrap, t, 4)
    produce_many(broker.bootstrap, t, 4000, 4)
    named = {"A": broker, "B": broker_b}
    path = tmp_path / "dr.properties"
    path.write_text("clusters = A, B\n" + "".join(f"{a}.bootstrap.servers = {b.bootstrap}\n"
                                                  for a, b in named.items())
                    + f"A->B.enabled = true\nA->B.topics = {t}\nA->B.tasks.max = 2\nemit.heartbeats.enabled = false\n"
                    + mm2_settings(named))
    first, second = MirrorMakerProcess(path, tmp_path / "mm1.log"), MirrorMakerProcess(path, tmp_path / "mm2.log")
    try:
        import httpx

        def spread() -> set[str]:
            r = httpx.get(f"http://127.0.0.1:{first.port}/A/B/connectors/MirrorSourceConnector/status", timeout=10)
            return {task["worker_id"] for task in r.json().get("tasks", [])} if r.status_code == 200 else set()

        wait_for(lambda: len(spread()) == 2, 90, "the two source tasks on the two processes")
        wait_for(lambda: len(read_to_end(broker_b.bootstrap, f"A.{t}")) >= 4000, 60, "first batch copied")
        second.proc.kill()
        produce_many(broker.bootstrap, t, 4000, 4, start=4000)
        wait_for(lambda: spread() == {f"127.0.0.1:{first.port}"}, 60, "both tasks on the survivor")
        def missing() -> list[int]:
            values = {r[3] for r in read_to_end(broker_b.bootstrap, f"A.{t}")}
            return [i for i in range(8000) if f"{t}:{i}".encode() not in values]

        # Duplicates are allowed (the killed process's uncommitted window); losses are not.
        wait_for(lambda: not missing(), 90, "every record copied after the kill")
    finally:
        first.stop()
        second.stop()


@pytest.fixture
def broker_d() -> Iterator[Broker]:
    d = start_own_broker("D")
    yield d
    d.stop()


def test_fan_out_and_aggregation(tmp_path: Path, broker: Broker, broker_b: Broker, broker_c: Broker,
                                 broker_d: Broker) -> None:
    """One file, four clusters: A fans out to B, C and D; B, C and D aggregate into A."""
    uid = uuid.uuid4().hex[:6]
    fan, agg = f"fan{uid}", f"agg{uid}"
    named = {"A": broker, "B": broker_b, "C": broker_c, "D": broker_d}
    flows = "".join(f"A->{x}.enabled = true\nA->{x}.topics = {fan}\n{x}->A.enabled = true\n{x}->A.topics = {agg}\n"
                    for x in "BCD")
    path = tmp_path / "fan.properties"
    path.write_text("clusters = A, B, C, D\n" + "".join(f"{a}.bootstrap.servers = {b.bootstrap}\n"
                                                        for a, b in named.items())
                    + flows + "emit.heartbeats.enabled = false\n" + mm2_settings(named))
    create_topic(broker.bootstrap, fan, 2)
    produce_many(broker.bootstrap, fan, 300, 2)
    for i, x in enumerate("BCD"):
        create_topic(named[x].bootstrap, agg, 1)
        produce_many(named[x].bootstrap, agg, 100, 1, start=1000 * i)
    mm = MirrorMakerProcess(path, tmp_path / "mm.log")
    try:
        fan_values = {f"{fan}:{n}".encode() for n in range(300)}
        for x in "BCD":  # fan-out: every target has every record
            wait_for(lambda x=x: {r[3] for r in read_to_end(named[x].bootstrap, f"A.{fan}")} == fan_values, 120,
                     f"A.{fan} on {x}")
        for i, x in enumerate("BCD"):  # aggregation: A has each region's records under its prefix
            wanted = {f"{agg}:{1000 * i + n}".encode() for n in range(100)}
            wait_for(lambda x=x, wanted=wanted: {r[3] for r in read_to_end(broker.bootstrap, f"{x}.{agg}")} == wanted,
                     120, f"{x}.{agg} on A")
        assert len(matching(broker.bootstrap, f".*{agg}")) >= 300
    finally:
        mm.stop()


def test_secrets_from_config_providers_never_logged(tmp_path: Path, broker: Broker, broker_b: Broker) -> None:
    secret = f"s3cret-{uuid.uuid4().hex}"
    topic = f"sec{uuid.uuid4().hex[:6]}"
    create_topic(broker.bootstrap, topic, 1)
    secrets = tmp_path / "secrets.properties"
    secrets.write_text(f"password={secret}\n")
    named = {"A": broker, "B": broker_b}
    path = tmp_path / "secure.properties"
    # The clusters here accept plaintext; the SASL settings still travel through every layer.
    path.write_text("clusters = A, B\n" + "".join(f"{a}.bootstrap.servers = {b.bootstrap}\n"
                                                  for a, b in named.items())
                    + f"A->B.enabled = true\nA->B.topics = {topic}\nB->A.enabled = false\n"
                    + 'A.sasl.mechanism = SCRAM-SHA-512\nA.sasl.jaas.config = org.apache.kafka.common.security.scram.'
                    + f'ScramLoginModule required username="mm2" password="${{file:{secrets}:password}}";\n'
                    + mm2_settings(named))
    mm = MirrorMakerProcess(path, tmp_path / "mm.log")
    try:
        import httpx

        base = f"http://127.0.0.1:{mm.port}/A/B/connectors/MirrorSourceConnector"
        wait_for(lambda: httpx.get(f"{base}/config", timeout=5).status_code == 200, 60, "connector configured")
        config = httpx.get(f"{base}/config", timeout=5).json()
        assert secret not in str(config), "stored configs keep the placeholder (as Connect does)"
        assert f"${{file:{secrets}:password}}" in config["source.cluster.sasl.jaas.config"]
        tasks = wait_for(lambda: httpx.get(f"{base}/tasks", timeout=5).json(), 60, "task configs")
        assert secret not in str(tasks), "task configs get the placeholder back before they are stored"
    finally:
        mm.stop()
    assert secret not in (tmp_path / "mm.log").read_text(), "a secret value reached the log"
