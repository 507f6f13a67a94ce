"""The Helm chart, validated offline: lint, render every helm/ci/*.yaml, Kubernetes schemas, and content."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from connectors.mirror.maker_config import MirrorMakerConfig
from pyconnect.config.properties import parse_properties

CHART = Path(__file__).resolve().parents[1] / "helm"
VALUE_SETS = sorted((CHART / "ci").glob("*.yaml"))
helm = pytest.importorskip("helm_python", reason="helm-python-sdk is not installed (pip install -e '.[test]')")
kv = pytest.importorskip("kubernetes_validate", reason="kubernetes-validate is not installed")


def render(values_file: Path) -> list[dict[str, Any]]:
    values = yaml.safe_load(values_file.read_text()) or {}
    rendered = helm.Chart.load(str(CHART)).render(values, name="rk", namespace="replication")
    docs = []
    for path, text in rendered.items():
        if path.endswith("NOTES.txt"):
            continue
        docs += [d for d in yaml.safe_load_all(text) if d]
    return docs


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
    assert container["livenessProbe"]["httpGet"]["path"] == "/health"
    assert container["readinessProbe"]["httpGet"]["path"] == "/health"
    assert {"name": "tcp-prometheus", "containerPort": 9404} in container["ports"]
    assert "ServiceMonitor" not in kinds, "guarded by the monitoring.coreos.com/v1 API being available"
    assert kinds["Deployment"]["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True

    (name, text), = kinds["ConfigMap"]["data"].items()
    # Secrets stay in Secrets: passwords only as ${...} provider references, never literal values.
    assert not re.search(r'password\s*=\s*"?(?!\$\{)[^"\s;]+', text, re.I), text
    if name == "mm2.properties":
        cfg = MirrorMakerConfig(parse_properties(text, name), resolve_providers=False)
        target = container["args"][-1]
        assert container["args"][:2] == ["mirror-maker", "/etc/pyconnect/config/mm2.properties"]
        assert {str(f) for f in cfg.flows} == {f"{m}->{target}" for m in cfg.clusters if m != target} | {
            f"{target}->{m}" for m in cfg.clusters if m != target}
    else:
        assert container["args"] == ["distributed", "/etc/pyconnect/config/worker.properties"]
