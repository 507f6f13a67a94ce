"""The console's flows and backfill sections (issue 16: "the flows (source -> target)" and "backfill
progress (copied/total, rate, ETA)"), rendered from status bodies as `GET /connectors/{name}/status` answers."""

from __future__ import annotations

from rest.console_flows import backfill_html, flows, flows_html


def _status(name: str, state: str = "RUNNING", tasks: list[dict[str, object]] | None = None) -> dict[str, object]:
    return {"name": name, "connector": {"state": state, "worker_id": "w1"}, "tasks": tasks or [], "type": "source"}


def test_connectors_group_into_flows_by_their_cluster_aliases() -> None:
    statuses = [_status("mm"), _status("cp", "PAUSED"), _status("back"), _status("sink")]
    configs = {"mm": {"source.cluster.alias": "A", "target.cluster.alias": "B"},
               "cp": {"source.cluster.alias": "A", "target.cluster.alias": "B"},
               "back": {"source.cluster.alias": "B", "target.cluster.alias": "A"},
               "sink": {"topics": "t"}}
    found = flows(statuses, configs)
    assert [(f.source, f.target, f.connectors) for f in found] == [
        ("A", "B", [("mm", "RUNNING"), ("cp", "PAUSED")]), ("B", "A", [("back", "RUNNING")])]
    html = flows_html(found)
    assert html.count('<tr class="flow"') == 2 and "A \u2192 B" in html and "sink" not in html


def test_no_flow_says_so() -> None:
    assert "No MirrorMaker 2 flows" in flows_html(flows([_status("sink")], {"sink": {}}))


def test_backfill_progress_shows_copied_total_rate_and_eta() -> None:
    progress = {"state": "copying", "records_copied": 1_500, "records_total": 6_000,
                "rate_records_per_second": 250.0, "eta_seconds": 18.0, "topics": {}}
    html = backfill_html([_status("mm", tasks=[{"id": 0, "state": "RUNNING", "progress": progress},
                                               {"id": 1, "state": "RUNNING"}])])
    assert html.count('<tr class="backfill"') == 1
    for text in ("mm task 0", "copying", "1,500 / 6,000", "25.0%", "250/s", "18 s"):
        assert text in html, (text, html)
    assert "No backfill running" in backfill_html([_status("mm", tasks=[{"id": 0, "state": "RUNNING"}])])
