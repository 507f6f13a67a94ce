"""The shipped alert rules and dashboard (docs/monitoring, and the chart's copies): `promtool check rules`,
`promtool test rules` firing and resolving each alert on synthetic series, the docs copies equal to what
the chart renders, and every series the dashboard and the rules query exported by the runtime (the live
list tests/test_metrics_strimzi.py asserts)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.test_metrics_strimzi import EXPORTED

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs" / "monitoring"
RULES, RULES_TEST, DASHBOARD = DOCS / "replikafka-rules.yaml", DOCS / "replikafka-rules.test.yaml", \
    DOCS / "replikafka-dashboard.json"
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool (Debian package prometheus) is not installed")
ALERTS = {"ReplikafkaConnectorFailed", "ReplikafkaTaskFailed", "ReplikafkaLagRecords", "ReplikafkaLagSeconds",
          "ReplikafkaCheckpointsStale", "ReplikafkaHeartbeatsMissing", "ReplikafkaWorkersMissing"}
# Names in PromQL that are series (everything else there is a function, keyword or label).
SERIES = re.compile(r"\b((?:kafka|process|python)_[a-zA-Z0-9_:]+)")


def rendered(values: dict[str, Any]) -> dict[str, str]:
    """The chart's monitoring ConfigMaps' data, rendered offline with `values`."""
    helm = pytest.importorskip("helm_python", reason="helm-python-sdk is not installed")
    out = helm.Chart.load(str(REPO / "helm")).render(values, name="rk", namespace="replication")
    data: dict[str, str] = {}
    for path, text in out.items():
        for doc in ([] if path.endswith("NOTES.txt") else yaml.safe_load_all(text)):
            if doc and doc.get("kind") == "ConfigMap" and doc["metadata"]["name"].startswith("rk-replikafka-"):
                data.update(doc.get("data", {}))
    return data


def _promtool(*args: str, cwd: Path = DOCS) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run([PROMTOOL, *args], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_docs_copies_match_what_the_chart_renders() -> None:
    """One source of truth: helm/templates/_rules.tpl and helm/files/replikafka-dashboard.json; docs/monitoring
    holds them rendered with the default values."""
    data = rendered({"monitoring": {"rulesConfigMap": {"enabled": True}, "dashboard": {"enabled": True}}})
    assert yaml.safe_load(data["replikafka-rules.yaml"]) == yaml.safe_load(RULES.read_text()), \
        "docs/monitoring/replikafka-rules.yaml differs from helm/templates/_rules.tpl rendered with default values"
    assert json.loads(data["replikafka-dashboard.json"]) == json.loads(DASHBOARD.read_text())


def test_thresholds_come_from_values() -> None:
    data = rendered({"replicas": 3, "monitoring": {"rulesConfigMap": {"enabled": True}, "thresholds": {
        "lagRecords": 123, "heartbeatMinutes": 7, "lagFor": "2m"}}})
    rules = {r["alert"]: r for r in yaml.safe_load(data["replikafka-rules.yaml"])["groups"][0]["rules"]}
    assert rules.keys() == ALERTS
    assert rules["ReplikafkaLagRecords"]["expr"].endswith("> 123") and rules["ReplikafkaLagRecords"]["for"] == "2m"
    assert rules["ReplikafkaHeartbeatsMissing"]["expr"].endswith("> 420")
    assert rules["ReplikafkaWorkersMissing"]["expr"].endswith("< 3")


@needs_promtool
def test_promtool_checks_the_rules() -> None:
    result = _promtool("check", "rules", RULES.name)
    assert result.returncode == 0, result.stdout + result.stderr


@needs_promtool
def test_each_alert_fires_and_resolves() -> None:
    """promtool's unit tests: every alert fires on its synthetic series, then resolves."""
    tests = yaml.safe_load(RULES_TEST.read_text())["tests"]
    fired = {case["alertname"] for t in tests for case in t["alert_rule_test"] if case.get("exp_alerts")}
    resolved = {case["alertname"] for t in tests for case in t["alert_rule_test"] if not case.get("exp_alerts")}
    assert fired == resolved == ALERTS
    result = _promtool("test", "rules", RULES_TEST.name)
    assert result.returncode == 0, result.stdout + result.stderr


def _queries() -> dict[str, str]:
    """Every PromQL expression the dashboard and the rules hold, named by where it is."""
    out = {f"dashboard panel {p['title']!r}": t["expr"] for p in json.loads(DASHBOARD.read_text())["panels"]
           for t in p["targets"]}
    out.update({f"alert {r['alert']}": r["expr"] for g in yaml.safe_load(RULES.read_text())["groups"]
                for r in g["rules"]})
    return out


def test_every_queried_series_is_exported() -> None:
    """No empty panel and no alert on a series that never exists: each series queried is one the live
    test (tests/test_metrics_strimzi.py) finds on a running worker and a dedicated MirrorMaker."""
    queries = _queries()
    assert len(queries) > 20
    unknown = {where: sorted(set(SERIES.findall(expr)) - EXPORTED) for where, expr in queries.items()}
    assert {k: v for k, v in unknown.items() if v} == {}
    assert all(SERIES.findall(expr) for expr in queries.values())
