"""The console's flows and backfill sections ("the flows (source -> target)" and "backfill
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
    hops = [({"source": "A", "target": "B", "upstream": "A"}, 1.0), ({"source": "A", "target": "B", "upstream": "C"},
                                                                     2.0)]
    checkpoints = [({"source": "A", "target": "B", "group": "g1"}, 1_000.0),
                   ({"source": "A", "target": "B", "group": "g2"}, 1_055.0),
                   ({"source": "X", "target": "B", "group": "g3"}, 1_000.0)]
    found = flows(statuses, configs, hops, checkpoints)
    assert [(f.source, f.target, f.connectors) for f in found] == [
        ("A", "B", [("mm", "RUNNING"), ("cp", "PAUSED")]), ("B", "A", [("back", "RUNNING")])]
    assert found[0].upstreams == {"A": 1, "C": 2} and found[1].upstreams == {}
    assert found[0].checkpoints == {"g1": 1_000.0, "g2": 1_055.0}, "g3's flow X->B runs nowhere here"
    html = flows_html(found, now=1_060.0)
    assert html.count('<tr class="flow"') == 2 and "A \u2192 B" in html and "sink" not in html
    assert "A (1), C (2)" in html
    assert html.index("g1: 60 s") < html.index("g2: 5 s"), "ages, the oldest first"


def test_no_flow_says_so() -> None:
    assert "No MirrorMaker 2 flows" in flows_html(flows([_status("sink")], {"sink": {}}), 0.0)


def test_backfill_progress_shows_copied_total_rate_and_eta() -> None:
    progress = {"state": "copying", "records_copied": 1_500, "records_total": 6_000,
                "rate_records_per_second": 250.0, "eta_seconds": 18.0, "topics": {}}
    html = backfill_html([_status("mm", tasks=[{"id": 0, "state": "RUNNING", "progress": progress},
                                               {"id": 1, "state": "RUNNING"}])])
    assert html.count('<tr class="backfill"') == 1
    for text in ("mm task 0", "copying", "1,500 / 6,000", "25.0%", "250/s", "18 s"):
        assert text in html, (text, html)
    assert "No backfill running" in backfill_html([_status("mm", tasks=[{"id": 0, "state": "RUNNING"}])])
