"""TLS for real: Tansu brokers behind stunnel, in distributed mode (a Connect worker running
the MM2 connectors) and dedicated mode (`replikafka mirror-maker`).

- one-way TLS with CA and hostname verification (ssl.endpoint.identification.algorithm=https): replication;
- mutual TLS (stunnel `verify = 2`): a client without a certificate is refused, so replication, checkpoints,
  heartbeats and a worker whose internal topics work prove every client presented one;
- a wrong CA, an expired certificate and a wrong host name fail within 30 s with the cluster alias and the
  cause in the FAILED trace, the log and /health, while REST keeps answering;
- PEM (distributed: source side; dedicated: A) and PKCS12 (target side / B) key stores;
- the PKCS12 password comes through `${file:...}` and never shows in logs, traces or connector configs.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import Consumer, TopicPartition

from connectors.mirror.formats import Checkpoint
from pyconnect.kafka.admin import Admin
from pyconnect.kafka.cluster_trouble import ClusterUnreachable
from pyconnect.testing.brokers import free_port
from pyconnect.testing.tls import stunnel_binary
from tests.harness.tls_real import (
    FILE_PROVIDER,
    Brokers,
    Pki,
    commit,
    make_pki,
    own_client,
    p12_identity,
    pem_identity,
    produce,
    start_brokers,
    start_mirror_maker,
    tansu_quirks,
    trust,
    values,
)
from tests.harness.workers import WorkerProcess, wait_for

MIRROR = "org.apache.kafka.connect.mirror."
RECORDS = 20
# What each failure must say, besides the alias: the cause in an operator's words.
CAUSES = {"WrongCa": "not signed by a CA the client trusts", "Expired": "certificate has expired",
          "WrongHost": "certificate is for another host name"}
TIMES: dict[str, float] = {}  # measured times to the error, printed at the end of the module


@dataclass
class Env:
    pki: Pki
    brokers: Brokers
    directory: Path


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    if stunnel_binary() is None:
        pytest.skip("stunnel is not installed (Debian package stunnel4; scripts/setup.sh installs it)")
    directory = tmp_path_factory.mktemp("tls-real")
    pki = make_pki(directory)
    brokers = start_brokers(pki, directory)
    yield Env(pki, brokers, directory)
    brokers.stop()
    print("times to error (s):", {k: round(v, 1) for k, v in sorted(TIMES.items())})


def worker_props(env: Env, bootstrap: str, mutual: bool, port: int) -> dict[str, str]:
    group = f"tls-{uuid.uuid4().hex[:6]}"
    props = {"bootstrap.servers": bootstrap, "group.id": group, "config.storage.topic": f"{group}-configs",
             "offset.storage.topic": f"{group}-offsets", "status.storage.topic": f"{group}-status",
             "config.storage.replication.factor": "1", "offset.storage.replication.factor": "1",
             "status.storage.replication.factor": "1", "offset.flush.interval.ms": "1000",
             "listeners": f"http://127.0.0.1:{port}", "config.providers": "file",
             "config.providers.file.class": FILE_PROVIDER, **trust(env.pki),
             **tansu_quirks(("", "producer.", "consumer."))}
    if mutual:
        props.update(p12_identity(env.pki))
    return props


def start_worker(env: Env, bootstrap: str, mutual: bool, name: str) -> WorkerProcess:
    worker = WorkerProcess(env.directory, worker_props(env, bootstrap, mutual, free_port()), name).start()
    try:
        worker.wait_ready(90)
    except Exception:
        worker.terminate()
        raise
    return worker


@pytest.fixture(scope="module")
def one_way_worker(env: Env) -> Iterator[WorkerProcess]:
    worker = start_worker(env, env.brokers.b1.bootstrap, False, "oneway-w0")
    yield worker
    worker.terminate()


@pytest.fixture(scope="module")
def mutual_worker(env: Env) -> Iterator[WorkerProcess]:
    worker = start_worker(env, env.brokers.b2.bootstrap, True, "mutual-w0")
    yield worker
    worker.terminate()


def connector(env: Env, kind: str, source: str, source_bootstrap: str, target_bootstrap: str, mutual: bool,
              **extra: str) -> dict[str, str]:
    """A MirrorMaker connector config from `source` to B: PEM identity at the source, PKCS12 at the target."""
    config = {"connector.class": MIRROR + kind, "source.cluster.alias": source, "target.cluster.alias": "B",
              "source.cluster.bootstrap.servers": source_bootstrap,
              "target.cluster.bootstrap.servers": target_bootstrap,
              "replication.factor": "1", "offset-syncs.topic.replication.factor": "1",
              "checkpoints.topic.replication.factor": "1", "heartbeats.topic.replication.factor": "1",
              "refresh.topics.interval.seconds": "2", "emit.checkpoints.interval.seconds": "1",
              "emit.heartbeats.interval.seconds": "1", "sync.topic.acls.enabled": "false",
              **{f"source.cluster.{k}": v for k, v in trust(env.pki).items()},
              **{f"target.cluster.{k}": v for k, v in trust(env.pki).items()},
              **tansu_quirks(("source.consumer.", "target.producer.", "source.producer.", "target.consumer."))}
    if mutual:
        config.update({f"source.cluster.{k}": v for k, v in pem_identity(env.pki).items()})
        config.update({f"target.cluster.{k}": v for k, v in p12_identity(env.pki).items()})
    config.update(extra)
    return config


def states(worker: WorkerProcess, name: str) -> list[str]:
    response = worker.request("GET", f"/connectors/{name}/status")
    if response.status_code != 200:
        return []
    body = response.json()
    return [body["connector"]["state"]] + [t["state"] for t in body.get("tasks", [])]


def running(worker: WorkerProcess, name: str) -> bool:
    found = states(worker, name)
    assert "FAILED" not in found, worker.request("GET", f"/connectors/{name}/status").text
    return len(found) > 1 and set(found) == {"RUNNING"}


def checkpoint_of(bootstrap: str, client: dict[str, Any], source: str, group: str) -> Checkpoint | None:
    """The first checkpoint of `group` in `<source>.checkpoints.internal`, if the topic has one yet."""
    topic = f"{source}.checkpoints.internal"
    if not values(bootstrap, client, topic):
        return None
    consumer = Consumer({"bootstrap.servers": bootstrap, **client, "group.id": f"r-{uuid.uuid4().hex}",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, 0)])
    try:
        for m in consumer.consume(100, 3):
            if m.error() is None:
                cp = Checkpoint.decode(m.key() or b"", m.value() or b"")
                if cp.group == group:
                    return cp
    finally:
        consumer.close()
    return None


# distributed mode -------------------------------------------------------------------------------------


def test_distributed_one_way_tls_with_hostname_verification(env: Env, one_way_worker: WorkerProcess) -> None:
    b, client, topic = env.brokers, own_client(env.pki, False), f"ow{uuid.uuid4().hex[:6]}"
    produce(b.a1.bootstrap, client, topic, RECORDS)
    config = connector(env, "MirrorSourceConnector", "A", b.a1.bootstrap, b.b1.bootstrap, False, topics=topic)
    assert one_way_worker.request("PUT", "/connectors/oneway/config", config).status_code == 201
    copied = wait_for(lambda: len(values(b.b1.bootstrap, client, f"A.{topic}", RECORDS)) >= RECORDS, 60,
                      f"A.{topic} on B over one-way TLS")
    assert copied
    assert wait_for(lambda: running(one_way_worker, "oneway"), 30, "the connector and its task RUNNING")
    one_way_worker.request("DELETE", "/connectors/oneway")


def test_distributed_mutual_tls_every_client_with_pem_and_pkcs12(env: Env, mutual_worker: WorkerProcess) -> None:
    """Replication, checkpoints and heartbeats over mTLS; the worker's own internal topics too (status and
    config are read back); the target's PKCS12 password comes through the file provider."""
    b, pki, client = env.brokers, env.pki, own_client(env.pki, True)
    with pytest.raises(ClusterUnreachable, match="cluster B2 .*requires a client certificate"):
        Admin({"bootstrap.servers": b.b2.bootstrap, "security.protocol": "SSL", "ssl.ca.location": str(pki.ca.ca_path),
               "log_level": "0"}, "B2").topic_partitions(timeout=20)
    topic, group = f"mt{uuid.uuid4().hex[:6]}", f"g-{uuid.uuid4().hex[:6]}"
    produce(b.a2.bootstrap, client, topic, RECORDS)
    commit(b.a2.bootstrap, client, group, topic, RECORDS)
    kinds = {"mt-source": ("MirrorSourceConnector", {"topics": topic}),
             "mt-checkpoint": ("MirrorCheckpointConnector", {"groups": group}),
             "mt-heartbeat": ("MirrorHeartbeatConnector", {})}
    for name, (kind, extra) in kinds.items():
        config = connector(env, kind, "A", b.a2.bootstrap, b.b2.bootstrap, True, **extra)
        assert mutual_worker.request("PUT", f"/connectors/{name}/config", config).status_code == 201
    assert wait_for(lambda: len(values(b.b2.bootstrap, client, f"A.{topic}", RECORDS)) >= RECORDS, 60,
                    f"A.{topic} on B over mTLS")
    cp = wait_for(lambda: checkpoint_of(b.b2.bootstrap, client, "A", group), 60, "a checkpoint on B")
    assert cp.upstream_offset == RECORDS
    assert wait_for(lambda: values(b.b2.bootstrap, client, "heartbeats"), 30, "heartbeats on B")
    for name in kinds:
        assert wait_for(lambda name=name: running(mutual_worker, name), 30, f"{name} RUNNING")
    shown = mutual_worker.request("GET", "/connectors/mt-source/config").json()
    assert shown["target.cluster.ssl.keystore.password"] == pki.password_ref, "the placeholder, as Connect shows it"
    assert_secret_hidden(env, mutual_worker, list(kinds))


def assert_secret_hidden(env: Env, worker: WorkerProcess, names: list[str]) -> None:
    seen = [worker.request("GET", path).text for name in names for path in (
        f"/connectors/{name}/config", f"/connectors/{name}/status", f"/connectors/{name}/tasks",
        f"/connectors/{name}")]
    seen.append(worker.request("GET", "/connectors?expand=status&expand=info").text)
    for text in seen:
        assert env.pki.password not in text
    assert env.pki.password not in worker.log_path.read_text(errors="replace")


def test_distributed_bad_certificates_fail_readably_within_30s(env: Env, one_way_worker: WorkerProcess) -> None:
    b, pki = env.brokers, env.pki
    bad = {"WrongCa": (b.a1.bootstrap, {"source.cluster.ssl.truststore.location": str(pki.other.ca_path)}),
           "Expired": (b.exp.bootstrap, {}), "WrongHost": (b.host.bootstrap, {})}
    for alias, (bootstrap, extra) in bad.items():
        config = connector(env, "MirrorSourceConnector", alias, bootstrap, b.b1.bootstrap, False, topics="t.*",
                           **extra)
        started = time.monotonic()
        assert one_way_worker.request("PUT", f"/connectors/bad-{alias}/config", config).status_code == 201
        wait_for(lambda alias=alias: "FAILED" in states(one_way_worker, f"bad-{alias}"), 30,
                 f"bad-{alias} FAILED")
        TIMES[f"distributed {alias}"] = time.monotonic() - started
        trace = one_way_worker.request("GET", f"/connectors/bad-{alias}/status").json()["connector"]["trace"]
        assert f"cluster {alias} " in trace and CAUSES[alias] in trace, trace
        assert one_way_worker.request("GET", "/").status_code == 200, "REST still answers"
    log = one_way_worker.log_path.read_text(errors="replace")
    health = one_way_worker.request("GET", "/health")
    assert health.status_code == 200, "the worker is fine: a probe restarting it would not fix a certificate"
    for alias, cause in CAUSES.items():
        assert f"[bad-{alias}] connector failed: cluster {alias} " in log and cause in log
        assert f"cluster {alias} " in health.json()["message"] and cause in health.json()["message"]


# dedicated mode ---------------------------------------------------------------------------------------


def mm2_common(port: int) -> list[str]:
    lines = [f"listeners = http://127.0.0.1:{port}", "emit.checkpoints.interval.seconds = 1",
             "emit.heartbeats.interval.seconds = 1", "refresh.topics.interval.seconds = 2",
             "sync.topic.acls.enabled = false", "config.providers = file",
             f"config.providers.file.class = {FILE_PROVIDER}"]
    return lines + [f"{key} = 1" for key in (
        "replication.factor", "checkpoints.topic.replication.factor", "heartbeats.topic.replication.factor",
        "offset-syncs.topic.replication.factor", "offset.storage.replication.factor",
        "status.storage.replication.factor", "config.storage.replication.factor")]


def mm2_cluster(alias: str, bootstrap: str, settings: dict[str, str]) -> list[str]:
    lines = [f"{alias}.bootstrap.servers = {bootstrap}", f"{alias}.offset.flush.interval.ms = 1000"]
    lines += [f"{alias}.{k} = {v}" for k, v in settings.items()]
    return lines + [f"{alias}.{k} = {v}" for k, v in tansu_quirks(("", "producer.", "consumer.")).items()]


@dataclass
class Dedicated:
    process: Any
    log: Path
    url: str

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except Exception:
            self.process.kill()
            self.process.wait(10)

    def text(self) -> str:
        return self.log.read_text(errors="replace")


def run_dedicated(env: Env, name: str, lines: list[str]) -> Dedicated:
    path = env.directory / f"{name}.properties"
    path.write_text("\n".join(lines) + "\n")
    log = env.directory / f"{name}.log"
    port = int(next(line for line in lines if line.startswith("listeners")).rsplit(":", 1)[1])
    return Dedicated(start_mirror_maker(path, log), log, f"http://127.0.0.1:{port}")


def test_dedicated_one_way_and_mutual_tls(env: Env) -> None:
    """Two flows in one process: O->P over one-way TLS with hostname verification, A->B over mTLS with a PEM
    key store on A and a PKCS12 one (password through the file provider) on B."""
    b, pki = env.brokers, env.pki
    one, two = own_client(pki, False), own_client(pki, True)
    t1, t2, group = f"do{uuid.uuid4().hex[:6]}", f"dm{uuid.uuid4().hex[:6]}", f"g-{uuid.uuid4().hex[:6]}"
    produce(b.a1.bootstrap, one, t1, RECORDS)
    produce(b.a2.bootstrap, two, t2, RECORDS)
    commit(b.a2.bootstrap, two, group, t2, RECORDS)
    lines = mm2_common(free_port()) + ["clusters = O, P, A, B", "emit.heartbeats.enabled = false",
                                       "O->P.enabled = true", f"O->P.topics = {t1}",
                                       "A->B.enabled = true", "A->B.emit.heartbeats.enabled = true",
                                       f"A->B.topics = {t2}", f"A->B.groups = {group}"]
    lines += mm2_cluster("O", b.a1.bootstrap, trust(pki)) + mm2_cluster("P", b.b1.bootstrap, trust(pki))
    lines += mm2_cluster("A", b.a2.bootstrap, {**trust(pki), **pem_identity(pki)})
    lines += mm2_cluster("B", b.b2.bootstrap, {**trust(pki), **p12_identity(pki)})
    mm = run_dedicated(env, "dedicated-ok", lines)
    try:
        assert wait_for(lambda: len(values(b.b1.bootstrap, one, f"O.{t1}", RECORDS)) >= RECORDS, 90,
                        f"O.{t1} on P over one-way TLS")
        assert wait_for(lambda: len(values(b.b2.bootstrap, two, f"A.{t2}", RECORDS)) >= RECORDS, 60,
                        f"A.{t2} on B over mTLS")
        cp = wait_for(lambda: checkpoint_of(b.b2.bootstrap, two, "A", group), 60, "a checkpoint on B")
        assert cp.upstream_offset == RECORDS
        assert wait_for(lambda: values(b.b2.bootstrap, two, "heartbeats"), 30, "heartbeats on B")
        for flow in ("O/P", "A/B"):
            assert httpx.get(f"{mm.url}/{flow}/connectors", timeout=10).status_code == 200
        shown = [httpx.get(f"{mm.url}/A/B/connectors/{name}/{what}", timeout=10) for what in ("config", "status")
                 for name in ("MirrorSourceConnector", "MirrorCheckpointConnector", "MirrorHeartbeatConnector")]
        assert shown[0].json()["target.cluster.ssl.keystore.password"] == pki.password_ref
        assert all(r.status_code == 200 and pki.password not in r.text for r in shown)
    finally:
        mm.stop()
    assert pki.password not in mm.text()
    assert "certificate verify failed" not in mm.text()


def test_dedicated_bad_certificates_fail_readably_within_30s(env: Env) -> None:
    b, pki = env.brokers, env.pki
    lines = mm2_common(free_port()) + ["clusters = WrongCa, Expired, WrongHost, B", "emit.heartbeats.enabled = false"]
    lines += [f"{alias}->B.enabled = true" for alias in CAUSES] + [f"{alias}->B.topics = t.*" for alias in CAUSES]
    lines += mm2_cluster("WrongCa", b.a1.bootstrap, trust(pki, pki.other))
    lines += mm2_cluster("Expired", b.exp.bootstrap, trust(pki))
    lines += mm2_cluster("WrongHost", b.host.bootstrap, trust(pki))
    lines += mm2_cluster("B", b.b1.bootstrap, trust(pki))
    launched = time.monotonic()
    mm = run_dedicated(env, "dedicated-bad", lines)
    try:
        # The 30 s run from the first herder's start: a loaded machine may take long to start Python.
        wait_for(lambda: " started (group " in mm.text(), 60, "a herder started")
        started = time.monotonic()
        for alias, cause in CAUSES.items():
            wait_for(lambda alias=alias, cause=cause: f"connector failed: cluster {alias} " in mm.text()
                     and cause in mm.text(), max(1.0, 30 - (time.monotonic() - started)),
                     f"the {alias} failure in the log")
            TIMES[f"dedicated {alias} (from herder start)"] = time.monotonic() - started
            TIMES[f"dedicated {alias} (from process start)"] = time.monotonic() - launched
        health = httpx.get(mm.url + "/Expired/B/health", timeout=10)
        assert health.status_code == 200 and "cannot connect to" in health.json()["message"]
        for alias, cause in CAUSES.items():
            assert f"cluster {alias} " in health.json()["message"] and cause in health.json()["message"]
        assert mm.process.poll() is None, "the process keeps serving the flows it can"
    finally:
        mm.stop()


# the worker's own cluster ------------------------------------------------------------------------------


def test_a_worker_whose_own_cluster_has_an_expired_certificate_exits_with_the_cause(env: Env) -> None:
    """Distributed mode has no alias for its own cluster: the exit line names the bootstrap servers."""
    worker = WorkerProcess(env.directory, worker_props(env, env.brokers.exp.bootstrap, False, free_port()),
                           "own-expired").start()
    started = time.monotonic()
    assert worker.process is not None
    try:
        code = worker.process.wait(30)
    finally:
        worker.terminate()
    TIMES["distributed, own cluster expired (exit)"] = time.monotonic() - started
    last = worker.log_tail(1)
    assert code == 1 and f"cluster {env.brokers.exp.bootstrap} " in last and CAUSES["Expired"] in last, last


def test_dedicated_mode_names_the_alias_of_a_target_it_cannot_trust(env: Env) -> None:
    b, pki = env.brokers, env.pki
    lines = mm2_common(free_port()) + ["clusters = A, Expired", "emit.heartbeats.enabled = false",
                                       "A->Expired.enabled = true"]
    lines += mm2_cluster("A", b.a1.bootstrap, trust(pki)) + mm2_cluster("Expired", b.exp.bootstrap, trust(pki))
    started = time.monotonic()
    mm = run_dedicated(env, "dedicated-target-expired", lines)
    try:
        code = mm.process.wait(30)
    finally:
        mm.stop()
    TIMES["dedicated, target expired (exit)"] = time.monotonic() - started
    last = mm.text().splitlines()[-1]
    assert code == 1 and "cluster Expired " in last and CAUSES["Expired"] in last, last
