"""The chart's Strimzi `authentication: {type: scram-sha-512}` with `tls.trustedCertificates`, run for real against
Apache Kafka's SASL_SSL SCRAM-SHA-512 listeners (pyconnect.testing.kafka_jvm, secure=True).

The chart is rendered offline exactly as tests/test_helm_authentication.py does (helm-python-sdk). Nothing of the
rendering is rewritten but the `/etc/replikafka/` root: the ConfigMap's mm2.properties, the container's arguments
and environment, and the Secret volumes laid out under a temporary root from Secrets the test makes (a
KafkaUser-style Secret holding the SCRAM password, a cluster CA Secret holding ca.crt, as Strimzi's are) the way the
pod spec mounts them (volume -> secretName, volumeMount -> mountPath). In both of the chart's modes the process
run with them joins its worker group on the target, runs the MirrorSourceConnector and copies every record:
mirror-maker mode runs the rendered mm2.properties; distributed mode runs worker.properties from rawProperties that
name the mounted Secret files, and takes the connector through REST. The password shows nowhere (not in the
rendered manifests, not in the log). Tansu serves no SASL logins: Kafka only.
"""

from __future__ import annotations

import base64
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from pyconnect.testing.brokers import free_port
from pyconnect.testing.kafka_jvm import KafkaBroker
from tests.harness.helm_chart import by_kind, render_values
from tests.harness.kafka_pair import kafka_pair
from tests.harness.mirror import mm2_settings
from tests.harness.tls_real import produce, values
from tests.harness.workers import REPO, wait_for

pytest.importorskip("helm_python", reason="helm-python-sdk is not installed (pip install -e '.[test]')")
kv = pytest.importorskip("kubernetes_validate", reason="kubernetes-validate is not installed")
RECORDS = 50
ROOT = "/etc/replikafka/"


@pytest.fixture(scope="module")
def secure() -> Iterator[tuple[KafkaBroker, KafkaBroker]]:
    with kafka_pair("chart-scram", secure=True) as pair:
        yield pair


def chart_values(a: KafkaBroker, b: KafkaBroker, port: int) -> dict[str, Any]:
    """Strimzi-style values: B the target, A the source, each its SASL_SSL listener, SCRAM-SHA-512 with the
    password in its own KafkaUser Secret and the CA in its cluster CA Secret; plus single-node test settings."""
    def cluster(alias: str, node: KafkaBroker) -> dict[str, Any]:
        assert node.sasl_ssl_bootstrap is not None
        return {"alias": alias, "bootstrapServers": node.sasl_ssl_bootstrap,
                "tls": {"trustedCertificates": [{"secretName": f"{alias.lower()}-cluster-ca-cert",
                                                 "certificate": "ca.crt"}]},
                "authentication": {"type": "scram-sha-512", "username": node.scram_user,
                                   "passwordSecret": {"secretName": f"{alias.lower()}-mm2-user",
                                                      "password": "password"}}}
    settings = [line.split("=", 1) for line in mm2_settings({"A": a, "B": b}).splitlines()]
    return {"target": cluster("B", b), "mirrors": [{"source": cluster("A", a), "groupsPattern": "none"}],
            "config": {k.strip(): v.strip() for k, v in settings} | {"emit.heartbeats.enabled": "false"},
            "service": {"ports": {"rest": port}}, "metrics": {"port": free_port()}}


def secrets(a: KafkaBroker, b: KafkaBroker) -> list[dict[str, Any]]:
    """The Secrets a Strimzi installation holds: per cluster the KafkaUser's (key `password`) and the cluster CA's
    (key `ca.crt`), their data base64-encoded as the API stores it; each one validated as a manifest."""
    def secret(name: str, data: dict[str, bytes]) -> dict[str, Any]:
        doc = {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
               "metadata": {"name": name, "namespace": "replication"},
               "data": {k: base64.b64encode(v).decode() for k, v in data.items()}}
        kv.validate(doc, "1.30.0", strict=True)
        return doc
    made = []
    for alias, node in (("a", a), ("b", b)):
        assert node.ca_path is not None
        made += [secret(f"{alias}-mm2-user", {"password": node.scram_password.encode()}),
                 secret(f"{alias}-cluster-ca-cert", {"ca.crt": node.ca_path.read_bytes()})]
    return made


def lay_out(docs: list[dict[str, Any]], made: list[dict[str, Any]], root: Path) -> dict[str, Any]:
    """Writes what the pod's volumes hold under `root` (a mount path /etc/replikafka/x becomes root/x): the
    ConfigMap's files and each Secret volume's keys, decoded. Returns the worker container's spec."""
    pod = by_kind(docs, "Deployment")["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    by_name = {s["metadata"]["name"]: s for s in made}
    config_map = by_kind(docs, "ConfigMap")
    for mount in container["volumeMounts"]:
        (volume,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
        files: dict[str, bytes]
        if "configMap" in volume:
            assert volume["configMap"]["name"] == config_map["metadata"]["name"]
            files = {k: v.encode() for k, v in config_map["data"].items()}
        else:
            files = {k: base64.b64decode(v) for k, v in by_name[volume["secret"]["secretName"]]["data"].items()}
        directory = root / mount["mountPath"].removeprefix(ROOT)
        directory.mkdir(parents=True)
        for key, data in files.items():
            (directory / key).write_bytes(data.replace(ROOT.encode(), f"{root}/".encode()))
    return dict(container)


def environment(container: dict[str, Any]) -> dict[str, str]:
    """The container's variables: literal values, and the pod IP (the one fieldRef the chart uses) as 127.0.0.1."""
    env = {}
    for var in container.get("env", []):
        if "value" in var:
            env[var["name"]] = str(var["value"])
        else:
            assert var["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP", var
            env[var["name"]] = "127.0.0.1"
    return env


def source_running(port: int) -> str | None:
    """The worker id running the MirrorSourceConnector's task, once the connector and the task are RUNNING."""
    answer = httpx.get(f"http://127.0.0.1:{port}/connectors/MirrorSourceConnector/status", timeout=10)
    if answer.status_code != 200:
        return None
    body = answer.json()
    tasks = body.get("tasks", [])
    if body["connector"]["state"] != "RUNNING" or not tasks or tasks[0]["state"] != "RUNNING":
        return None
    return str(tasks[0]["worker_id"])


def rendered(vals: dict[str, Any], a: KafkaBroker, b: KafkaBroker, root: Path) -> tuple[str, list[str], dict[str, str]]:
    """Renders `vals`, validates every manifest, checks no password is in them, lays the pod's files out under
    `root`: (the ConfigMap's one properties file's text, the container's command line, its environment)."""
    docs = render_values(vals)
    for doc in docs:
        kv.validate(doc, "1.30.0", strict=True)
    text = yaml.safe_dump_all(docs)
    assert a.scram_password not in text and b.scram_password not in text
    container = lay_out(docs, secrets(a, b), root)
    args = [str(root / arg.removeprefix(ROOT)) if arg.startswith(ROOT) else arg for arg in container["args"]]
    (properties,) = by_kind(docs, "ConfigMap")["data"].values()
    return properties, [sys.executable, "-m", "replikafka", *args], environment(container)


def run_and_copy(command: list[str], env: dict[str, str], log: Path, port: int, a: KafkaBroker, b: KafkaBroker,
                 connector: dict[str, str] | None = None) -> str:
    """Runs the rendered command until A's new topic is copied to B (`connector` PUT first, distributed mode); the
    worker id running the MirrorSourceConnector's task. The log holds no password and no traceback."""
    topic = f"chart{uuid.uuid4().hex[:6]}"
    produce(a.sasl_ssl_bootstrap or "", a.client_settings("SASL_SSL"), topic, RECORDS)
    with log.open("wb") as out:
        proc = subprocess.Popen(command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **env})
    try:
        if connector is not None:
            url = f"http://127.0.0.1:{port}/connectors/MirrorSourceConnector/config"
            wait_for(lambda: proc.poll() is None and httpx.put(url, json=connector | {"topics": topic}, timeout=10)
                     .status_code in (200, 201), 120, "the worker took the connector", 0.5)
        worker = wait_for(lambda: proc.poll() is None and source_running(port), 120,
                          "the MirrorSourceConnector's task RUNNING on the process's worker", 0.5)
        client = b.client_settings("SASL_SSL")
        copied = wait_for(lambda: len(got := values(b.sasl_ssl_bootstrap or "", client, f"A.{topic}", RECORDS))
                          >= RECORDS and got, 90, f"A.{topic} copied to B over SASL_SSL", 0.5)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    assert sorted(copied) == sorted(f"v{i}".encode() for i in range(RECORDS))
    output = log.read_text(errors="replace")
    assert a.scram_password not in output and b.scram_password not in output
    assert "Traceback" not in output, output[-3000:]
    return worker


def test_rendered_scram_sha_512_settings_join_and_copy_over_sasl_ssl(
        secure: tuple[KafkaBroker, KafkaBroker], tmp_path: Path) -> None:
    """mirror-maker mode (the chart's default): the rendered mm2.properties as it is."""
    a, b = secure
    port = free_port()
    text, command, env = rendered(chart_values(a, b, port), a, b, tmp_path / "etc")
    assert "B.sasl.mechanism = SCRAM-SHA-512" in text and "B.security.protocol = SASL_SSL" in text
    worker = run_and_copy(command, env, tmp_path / "mm.log", port, a, b)
    print(f"\nCHART SCRAM-SHA-512, mirror-maker mode (Kafka {a.version}): the worker {worker} joined B's group and "
          f"runs the task; {RECORDS} records copied")
    # The id the group's leader assigned the task to is the rendered advertised address, ${env:POD_IP} resolved.
    assert worker == f"127.0.0.1:{port}", worker


def sasl_lines(node: KafkaBroker, alias: str, root: str) -> dict[str, str]:
    """Kafka client settings of `node`'s SASL_SSL listener naming the files the chart mounts under `root`."""
    return {"bootstrap.servers": node.sasl_ssl_bootstrap or "", "security.protocol": "SASL_SSL",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required username="
                                f'"{node.scram_user}" password="${{directory:{root}secrets/{alias}:password}}";',
            "ssl.truststore.type": "PEM", "ssl.truststore.location": f"{root}certs/{alias}/ca.crt"}


def test_distributed_mode_worker_reads_the_mounted_secret_and_copies(
        secure: tuple[KafkaBroker, KafkaBroker], tmp_path: Path) -> None:
    """distributed mode: worker.properties from rawProperties naming the Secret files the chart mounts for the
    target and the mirror's source (as a values file would); a MirrorSourceConnector PUT through REST with the
    source's and target's settings naming the same files."""
    a, b = secure
    port, root = free_port(), tmp_path / "etc"
    worker_lines = sasl_lines(b, "B", ROOT)
    worker_lines |= {f"{client}.{k}": v for client in ("producer", "consumer", "admin")
                     for k, v in worker_lines.items() if k != "bootstrap.servers"}
    worker_lines |= {"group.id": "chart-connect", "listeners": f"http://0.0.0.0:{port}",
                     "rest.advertised.host.name": "${env:POD_IP}", "rest.advertised.port": str(port)}
    worker_lines |= {f"{kind}.storage.topic": f"chart-connect-{kind}s" for kind in ("config", "offset", "status")}
    worker_lines |= {f"{kind}.storage.replication.factor": "1" for kind in ("config", "offset", "status")}
    vals = chart_values(a, b, port) | {"mode": "distributed",
                                       "rawProperties": "".join(f"{k}={v}\n" for k, v in worker_lines.items())}
    text, command, env = rendered(vals, a, b, root)
    assert command[-2:] == ["distributed", str(root / "config" / "worker.properties")], command
    assert f"${{directory:{ROOT}secrets/B:password}}" in text and (root / "secrets" / "A" / "password").is_file()
    connector = {"connector.class": "MirrorSourceConnector", "source.cluster.alias": "A", "target.cluster.alias": "B",
                 "tasks.max": "1", "replication.factor": "1", "offset-syncs.topic.replication.factor": "1",
                 "sync.topic.acls.enabled": "false"}
    connector |= {f"source.cluster.{k}": v for k, v in sasl_lines(a, "A", f"{root}/").items()}
    connector |= {f"target.cluster.{k}": v for k, v in sasl_lines(b, "B", f"{root}/").items()}
    worker = run_and_copy(command, env, tmp_path / "worker.log", port, a, b, connector)
    print(f"\nCHART SCRAM-SHA-512, distributed mode (Kafka {a.version}): the worker {worker} joined its group on B and "
          f"runs the task; {RECORDS} records copied")
    assert worker == f"127.0.0.1:{port}", worker
