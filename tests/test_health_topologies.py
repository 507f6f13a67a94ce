"""Health for every topology: the root `/health` of a dedicated MirrorMaker process answers for all its flows,
and the chart's probes and the image's HEALTHCHECK work with 2 and 3 mirrors.

Followed: KIP-1017 and Kafka's `HealthCheckIntegrationTest` / `ConnectRestServer` health resource (200
healthy, 503 starting, 500 unhealthy; body `WorkerStatus` {status, message}); Strimzi's
KafkaMirrorMaker2 probes, which call `/health` on the REST port (`KafkaConnectCluster`'s probe handlers).
A flow is made unhealthy as a lost cluster makes it: its target broker is SIGSTOPped, so that flow's herder
cannot read its membership topic for a session timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.harness.brokers import Broker, free_port
from tests.harness.helm_chart import CHART, by_kind, render_values
from tests.harness.mirror import mm2_settings
from tests.harness.own_broker import start_own_broker
from tests.harness.workers import REPO, wait_for

pytest.importorskip("helm_python", reason="helm-python-sdk is not installed (pip install -e '.[test]')")

# Herders notice a lost cluster after a session timeout; short here so that the test takes seconds.
SESSION = {"session.timeout.ms": "4000", "heartbeat.interval.ms": "1000"}
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def brokers() -> Iterator[dict[str, Broker]]:
    """Three brokers of this module's own: they are paused (SIGSTOP) here, which no shared broker may be."""
    started = {alias: start_own_broker(f"health-{alias}") for alias in ("A", "B", "C")}
    yield started
    for broker in started.values():
        broker.stop()


def cluster_id(broker: Broker) -> str:
    """The id the cluster reports (Tansu: its name; Apache Kafka: the id its log directory was formatted with)."""
    from confluent_kafka.admin import AdminClient

    return str(AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(timeout=10).cluster_id)


class Process:
    """A dedicated MirrorMaker process and its /health."""

    def __init__(self, command: list[str], log: Path, port: int, env: dict[str, str] | None = None) -> None:
        self.log, self.url = log, f"http://127.0.0.1:{port}/health"
        self.proc = subprocess.Popen(command, cwd=REPO, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                                     env={**os.environ, **(env or {})})

    def health(self) -> tuple[int, dict[str, Any]]:
        if self.proc.poll() is not None:
            raise AssertionError(f"the process exited: {self.log.read_text()[-2000:]}")
        answer = httpx.get(self.url, timeout=12)  # Connect answers /health within 10 s
        return answer.status_code, answer.json()

    def wait_health(self, status: int, timeout: float, naming: list[str] | None = None) -> dict[str, Any]:
        """The first /health body with `status` whose message names every flow of `naming` as not healthy
        (flows lose their cluster one session timeout after their last read: not all at the same instant)."""
        def answer() -> dict[str, Any] | None:
            code, body = self.health()
            named = body["message"].split(" not healthy.")[0]
            return body if code == status and all(flow in named for flow in naming or []) else None
        return wait_for(answer, timeout, f"/health {status} naming {naming or 'no flow'}")

    def stop(self) -> None:
        self.proc.terminate()
        assert self.proc.wait(60) == 0, self.log.read_text()[-2000:]


def assert_all_healthy(body: dict[str, Any], flows: list[str]) -> None:
    assert body["status"] == "healthy" and all(flow in body["message"] for flow in flows), body


def assert_names_only(body: dict[str, Any], bad: list[str], good: list[str]) -> None:
    """500 (unhealthy) naming exactly the flows whose cluster is lost."""
    assert body["status"] == "unhealthy", body
    named = body["message"].split(" not healthy.")[0]
    assert all(flow in named for flow in bad) and not any(flow in named for flow in good), body


TOPOLOGIES = {
    # flows, the broker to pause, the flows that lose their cluster (their herder's internal topics are on it)
    "2-flows": (["A->B", "A->C"], "C", ["A->C"]),
    "3-flows": (["A->B", "A->C", "B->C"], "B", ["A->B"]),
}


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_root_health_answers_for_every_flow(topology: str, brokers: dict[str, Broker], tmp_path: Path) -> None:
    """/health is 200 while every flow is healthy; with one flow's target cluster lost it is 500 naming that
    flow only, and 200 again once the cluster is back. Each flow keeps its own /{source}/{target}/health. `/`
    is Connect's ServerInfo plus each flow's cluster id, behind BasicAuth when it is on (as each flow's API)."""
    flows, paused, bad = TOPOLOGIES[topology]
    port = free_port()
    lines = [f"clusters = {', '.join(brokers)}", "emit.heartbeats.enabled = false", f"listeners = http://:{port}"]
    lines += [f"{alias}.bootstrap.servers = {b.bootstrap}" for alias, b in brokers.items()]
    lines += [f"{alias}.{k} = {v}" for alias in brokers for k, v in SESSION.items()]
    lines += [f"{flow}.enabled = true\n{flow}.topics = nothing-here" for flow in flows]
    (tmp_path / "credentials.properties").write_text("ops: s3cret,admin\n")
    for alias in brokers:  # each herder's REST settings are its target cluster's (<alias>.<key>), as in MM2
        lines += [f"{alias}.rest.extension.classes = org.apache.kafka.connect.rest.basic.auth.extension."
                  "BasicAuthSecurityRestExtension",
                  f"{alias}.rest.basic.auth.credentials.file = {tmp_path}/credentials.properties"]
    path = tmp_path / "mm2.properties"
    path.write_text("\n".join(lines) + "\n" + mm2_settings(brokers))
    process = Process([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], tmp_path / "mm.log", port)
    try:
        assert_all_healthy(process.wait_health(200, 60), flows)
        for flow in flows:
            source, target = flow.split("->")
            assert httpx.get(f"http://127.0.0.1:{port}/{source}/{target}/health", timeout=12).status_code == 200
            assert httpx.get(f"http://127.0.0.1:{port}/{source}/{target}/connectors", timeout=12).status_code == 401
        # BasicAuth on: /health stays open for probes (Process.health sends no credentials), `/` does not.
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=10).status_code == 401
        info = httpx.get(f"http://127.0.0.1:{port}/", auth=("ops", "s3cret"), timeout=10).json()  # + every flow
        assert {"version", "commit", "kafka_cluster_id"} <= set(info) and set(info["flows"]) == set(flows), info
        assert info["flows"][bad[0]]["kafka_cluster_id"] == cluster_id(brokers[paused])
        missing = httpx.get(f"http://127.0.0.1:{port}/connectors", timeout=10)  # per flow only: Connect's 404 body
        assert missing.status_code == 404 and missing.json()["error_code"] == 404
        brokers[paused].pause()
        try:
            assert_names_only(process.wait_health(500, 30, bad), bad, [f for f in flows if f not in bad])
        finally:
            brokers[paused].resume()
        assert_all_healthy(process.wait_health(200, 60), flows)
    finally:
        process.stop()


def chart_values(file: Path, target: Broker, source: Broker, port: int) -> dict[str, Any]:
    """A ci value set pointed at the test brokers (every mirror reads from `source`), with the settings a
    single-broker test cluster needs, on free ports."""
    values: dict[str, Any] = yaml.safe_load(file.read_text())
    alias = values["target"]["alias"]
    values["target"] = {**values["target"], "bootstrapServers": target.bootstrap, "config": {
        f"{kind}.storage.replication.factor": "1" for kind in ("offset", "status", "config")}}
    for mirror in values["mirrors"]:
        mirror["source"]["bootstrapServers"] = source.bootstrap
    clusters = {alias: target, **{m["source"]["alias"]: source for m in values["mirrors"]}}
    settings = [line.split("=", 1) for line in mm2_settings(clusters).splitlines() if "=" in line]
    values["config"] = {k.strip(): v.strip() for k, v in settings} | {f"{alias}.{k}": v for k, v in SESSION.items()}
    values["service"] = {"ports": {"rest": port}}
    values["metrics"] = {"port": free_port()}
    return values


def healthcheck_command(port: int) -> list[str]:
    """The Dockerfile's HEALTHCHECK CMD (exec form), run with this interpreter against `port`."""
    from dockerfile_parse import DockerfileParser

    (value,) = [i["value"] for i in DockerfileParser(path=str(REPO / "Dockerfile")).structure
                if i["instruction"] == "HEALTHCHECK"]
    command: list[str] = json.loads(value[value.index("CMD") + 3:])
    assert command[0] == "python" and "http://127.0.0.1:8083/health" in command[-1], command
    return [sys.executable, *command[1:-1], command[-1].replace(":8083/", f":{port}/")]


VALUE_SETS = {1: "default-values", 2: "aggregation-2-values", 3: "aggregation-3-values"}


@pytest.mark.parametrize("mirrors", VALUE_SETS)
def test_chart_probes_with_one_two_and_three_mirrors(mirrors: int, brokers: dict[str, Broker],
                                                     tmp_path: Path) -> None:
    """The chart rendered with a ci value set (1 mirror; the aggregation sets, 2 and 3 mirrors into one target):
    its mm2.properties run with the Deployment's command line, probed where its liveness and readiness probes
    point. 200 (with several flows, naming them all); with the target cluster lost, 500 naming every flow; 200
    again after. The image's HEALTHCHECK passes (exit 0) while healthy and fails while not."""
    port = free_port()
    values_file = CHART / "ci" / f"{VALUE_SETS[mirrors]}.yaml"
    docs = render_values(chart_values(values_file, brokers["B"], brokers["A"], port))
    container = by_kind(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    (name, text), = by_kind(docs, "ConfigMap")["data"].items()
    path = tmp_path / name
    path.write_text(text)
    args = [str(path) if arg == f"/etc/replikafka/config/{name}" else arg for arg in container["args"]]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    target = container["args"][-1]
    flows = [f"{m['source']['alias']}->{target}" for m in yaml.safe_load(values_file.read_text())["mirrors"]]
    assert len(flows) == mirrors
    named = flows if mirrors > 1 else []  # one flow: its own API at /, with Connect's messages as they are
    # ENTRYPOINT ["tini", "--", "replikafka"]: the console script of this install; POD_IP as Kubernetes sets it.
    process = Process([str(BIN / "replikafka"), *args], tmp_path / "mm.log", port, {"POD_IP": "127.0.0.1"})
    try:
        for probe in ("readinessProbe", "livenessProbe"):
            get = container[probe]["httpGet"]
            assert ports[get["port"]] == port
            process.url = f"http://127.0.0.1:{ports[get['port']]}{get['path']}"
            assert_all_healthy(process.wait_health(200, 90), named)
        check = healthcheck_command(port)
        assert subprocess.run(check, capture_output=True, timeout=10).returncode == 0
        brokers["B"].pause()
        try:
            assert_names_only(process.wait_health(500, 30, named), named, [])
            assert subprocess.run(check, capture_output=True, timeout=10).returncode != 0
        finally:
            brokers["B"].resume()
        assert_all_healthy(process.wait_health(200, 60), named)
    finally:
        process.stop()
