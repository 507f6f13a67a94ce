"""The Helm chart, validated offline: lint, render every helm/ci/*.yaml, Kubernetes schemas, and content."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from connectors.mirror.maker_config import MirrorMakerConfig
from pyconnect.config.properties import parse_properties
from tests.harness.helm_chart import CHART, by_kind, render_values

VALUE_SETS = sorted((CHART / "ci").glob("*.yaml"))
helm = pytest.importorskip("helm_python", reason="helm-python-sdk is not installed (pip install -e '.[test]')")
kv = pytest.importorskip("kubernetes_validate", reason="kubernetes-validate is not installed")


def render(values_file: Path) -> list[dict[str, Any]]:
    return render_values(yaml.safe_load(values_file.read_text()) or {})


def test_lint_is_clean() -> None:
    report = helm.lint(str(CHART), strict=False)
    assert report["errors"] == [] and all(m["severity"] < 3 for m in report["messages"]), report


def test_schema_rejects_bad_values() -> None:
    with pytest.raises(helm.HelmError):
        helm.Chart.load(str(CHART)).render({"replicas": "two"}, name="rk")


@pytest.mark.parametrize("values_file", VALUE_SETS, ids=[p.stem for p in VALUE_SETS])
def test_value_set_renders_valid_manifests(values_file: Path) -> None:
    docs = render(values_file)
    kinds = {d["kind"]: d for d in docs}
    for doc in docs:
        if doc["apiVersion"].startswith("monitoring.coreos.com"):
            continue  # CRDs: not in the bundled Kubernetes schemas (and only rendered when the CRD exists)
        kv.validate(doc, "1.30.0", strict=True)
    assert {"Deployment", "Service", "ConfigMap", "PodDisruptionBudget"} <= set(kinds)
    assert kinds["PodDisruptionBudget"]["spec"]["maxUnavailable"] == 1
    container = kinds["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    for probe in ("livenessProbe", "readinessProbe"):  # the root /health answers for every flow of the process
        assert container[probe]["httpGet"] == {"path": "/health", "port": "rest"}
    assert {"name": "rest", "containerPort": 8083} in container["ports"]
    assert {"name": "tcp-prometheus", "containerPort": 9404} in container["ports"]
    assert "ServiceMonitor" not in kinds, "guarded by the monitoring.coreos.com/v1 API being available"
    assert kinds["Deployment"]["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True

    (name, text), = kinds["ConfigMap"]["data"].items()
    # Secrets stay in Secrets: passwords only as ${...} provider references, never literal values.
    assert not re.search(r'password\s*=\s*"?(?!\$\{)[^"\s;]+', text, re.I), text
    if name == "mm2.properties":
        cfg = MirrorMakerConfig(parse_properties(text, name), resolve_providers=False)
        target = container["args"][-1]
        assert container["args"][:2] == ["mirror-maker", "/etc/replikafka/config/mm2.properties"]
        # The process runs the flows into its target (`--clusters target`): one per mirror, whatever their number.
        mirrors = (yaml.safe_load(values_file.read_text()) or {}).get("mirrors", [])
        assert {str(f) for f in cfg.flows if f.target == target} == {
            f"{m['source']['alias']}->{target}" for m in mirrors}
    else:
        assert container["args"] == ["distributed", "/etc/replikafka/config/worker.properties"]


@pytest.mark.parametrize("enabled", [False, True], ids=["monitoring-off", "monitoring-on"])
def test_dashboard_and_rules_render_valid_manifests(enabled: bool) -> None:
    """The optional Grafana dashboard and rules ConfigMaps; the PrometheusRule only where its API exists
    (never offline: helm-python-sdk renders without the monitoring.coreos.com/v1 capability)."""
    values = {"monitoring": {"prometheusRule": {"enabled": enabled}, "rulesConfigMap": {"enabled": enabled},
                             "dashboard": {"enabled": enabled}}}
    base = yaml.safe_load((CHART / "ci" / "default-values.yaml").read_text()) or {}
    rendered = helm.Chart.load(str(CHART)).render({**base, **values}, name="rk", namespace="replication")
    docs = [d for p, text in rendered.items() if not p.endswith("NOTES.txt") for d in yaml.safe_load_all(text) if d]
    for doc in docs:
        kv.validate(doc, "1.30.0", strict=True)
    maps = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ConfigMap"}
    assert "PrometheusRule" not in {d["kind"] for d in docs}
    assert ("rk-replikafka-dashboard" in maps) is enabled and ("rk-replikafka-rules" in maps) is enabled
    if enabled:
        assert maps["rk-replikafka-dashboard"]["metadata"]["labels"]["grafana_dashboard"] == "1"
        assert yaml.safe_load(maps["rk-replikafka-rules"]["data"]["replikafka-rules.yaml"])["groups"]


def test_thresholds_are_validated() -> None:
    with pytest.raises(helm.HelmError):
        helm.Chart.load(str(CHART)).render({"monitoring": {"thresholds": {"lagFor": "ten minutes"}}}, name="rk")


def test_prometheus_rule_holds_the_docs_rules(tmp_path: Path) -> None:
    """The PrometheusRule as a cluster with the operator's API gets it: a copy of the chart whose API guard is
    lifted (offline rendering has no capabilities) renders the rules of docs/monitoring/replikafka-rules.yaml."""
    chart = tmp_path / "chart"
    shutil.copytree(CHART, chart)
    template = chart / "templates" / "monitoring.yaml"
    guard = '(.Capabilities.APIVersions.Has "monitoring.coreos.com/v1")'
    assert guard in template.read_text()
    template.write_text(template.read_text().replace(guard, "true"))
    rendered = helm.Chart.load(str(chart)).render({"monitoring": {"prometheusRule": {"enabled": True,
                                                  "labels": {"release": "prom"}}}}, name="rk")
    (rule,) = [d for p, text in rendered.items() if not p.endswith("NOTES.txt") for d in yaml.safe_load_all(text)
               if d and d["kind"] == "PrometheusRule"]
    assert rule["apiVersion"] == "monitoring.coreos.com/v1" and rule["metadata"]["labels"]["release"] == "prom"
    docs = yaml.safe_load((CHART.parent / "docs" / "monitoring" / "replikafka-rules.yaml").read_text())
    assert rule["spec"] == docs


def test_strimzi_connector_values_and_rack_render() -> None:
    """Strimzi's KafkaMirrorMaker2 per-connector specs (tasksMax, state, autoRestart, config) become
    `<flow>.<Connector>.*` lines, the exclude patterns topics.exclude/groups.exclude, and spec.rack an init
    container reading the node's label, a ClusterRole that may get nodes bound to the pod's service account,
    and the source consumers' client.rack read from what the init step wrote."""
    docs = render(CHART / "ci" / "strimzi-connectors-values.yaml")
    (_, text), = by_kind(docs, "ConfigMap")["data"].items()
    lines = {line.strip() for line in text.splitlines()}
    assert {"A->B.MirrorSourceConnector.tasks.max = 3", "A->B.MirrorSourceConnector.state = running",
            "A->B.MirrorSourceConnector.auto.restart.enabled = true",
            "A->B.MirrorSourceConnector.auto.restart.max.restarts = 5",
            "A->B.MirrorCheckpointConnector.state = paused",
            "A->B.MirrorCheckpointConnector.auto.restart.enabled = false",
            "A->B.MirrorCheckpointConnector.emit.checkpoints.interval.seconds = 5",
            "A->B.MirrorHeartbeatConnector.state = stopped", "A->B.topics.exclude = orders-test.*",
            "A->B.groups.exclude = console-consumer-.*",
            "A.consumer.client.rack = ${file:/etc/replikafka/rack/rack.properties:client.rack}"} <= lines, text
    pod = by_kind(docs, "Deployment")["spec"]["template"]["spec"]
    (init,) = pod["initContainers"]
    assert {"name": "TOPOLOGY_KEY", "value": "topology.kubernetes.io/zone"} in init["env"]
    assert init["volumeMounts"] == [{"name": "rack", "mountPath": "/etc/replikafka/rack"}]
    mount = {"name": "rack", "mountPath": "/etc/replikafka/rack", "readOnly": True}
    assert mount in pod["containers"][0]["volumeMounts"]
    assert {"name": "rack", "emptyDir": {}} in pod["volumes"]
    role, binding = by_kind(docs, "ClusterRole"), by_kind(docs, "ClusterRoleBinding")
    assert role["rules"] == [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}]
    assert binding["roleRef"]["name"] == role["metadata"]["name"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": pod["serviceAccountName"],
                                    "namespace": "replication"}]
    plain = render(CHART / "ci" / "default-values.yaml")
    assert "ClusterRole" not in {d["kind"] for d in plain}, "no rack: no cluster-wide permission"
    assert "initContainers" not in by_kind(plain, "Deployment")["spec"]["template"]["spec"]


@pytest.mark.parametrize("connector", [{"state": "sleeping"}, {"tasksMax": 0}, {"autoRestart": {"maxRestarts": 3}},
                                       {"taskMax": 2}])
def test_schema_rejects_bad_connector_values(connector: dict[str, Any]) -> None:
    mirror = {"source": {"alias": "A", "bootstrapServers": "a:9092"}, "checkpointConnector": connector}
    with pytest.raises(helm.HelmError):
        helm.Chart.load(str(CHART)).render({"mirrors": [mirror]}, name="rk")
