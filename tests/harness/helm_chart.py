"""The Helm chart rendered offline (helm-python-sdk), for the chart's tests and the tests that run what it renders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

CHART = Path(__file__).resolve().parents[2] / "helm"


def render_values(values: dict[str, Any]) -> list[dict[str, Any]]:
    """The chart's manifests for `values` (release `rk` in namespace `replication`), NOTES.txt left out."""
    import helm_python as helm

    rendered = helm.Chart.load(str(CHART)).render(values, name="rk", namespace="replication")
    docs = []
    for path, text in rendered.items():
        if path.endswith("NOTES.txt"):
            continue
        docs += [d for d in yaml.safe_load_all(text) if d]
    return docs


def by_kind(docs: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    """The one rendered manifest of `kind` (the chart renders one Deployment, one ConfigMap of properties)."""
    (doc,) = [d for d in docs if d["kind"] == kind and not d["metadata"]["name"].endswith(("-dashboard", "-rules"))]
    return doc
