"""The console's flows and backfills.

A flow is a source -> target pair, read from the connectors' `source.cluster.alias` and
`target.cluster.alias` (what MirrorMaker 2's three connectors carry; other connectors have no flow and
are listed under the connectors only). Its target's upstream clusters and their hops come from the
MirrorSourceConnector's gauge (connectors/mirror/upstream_hops.py: heartbeat topic names, as MM2's
MirrorClient reads them). A backfill's progress is what its batch task reports in its
status (`progress`: records copied of the total, rate, ETA), so the console shows what `GET
/connectors/{name}/status` shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

Json = dict[str, Any]


@dataclass
class Flow:
    """One source -> target pair and what runs for it."""

    source: str
    target: str
    connectors: list[tuple[str, str]] = field(default_factory=list)  # (name, state)
    upstreams: dict[str, int] = field(default_factory=dict)  # alias -> hops to the target
    checkpoints: dict[str, float] = field(default_factory=dict)  # group -> when its checkpoints were current

    @property
    def label(self) -> str:
        return f"{self.source} \u2192 {self.target}"


Current = Sequence[tuple[Mapping[str, str], float]]


def flows(statuses: Sequence[Json], configs: Mapping[str, Mapping[str, str]], hops: Current = (),
          checkpoints: Current = ()) -> list[Flow]:
    """The flows of the connectors whose configs name a source and a target cluster, in name order,
    with the upstream clusters their target hears from (`hops`: MirrorSourceConnector's gauge samples)
    and when each group's checkpoints were last brought up to date (MirrorCheckpointConnector's)."""
    found: dict[tuple[str, str], Flow] = {}
    for status in statuses:
        config = configs.get(str(status["name"]), {})
        source, target = config.get("source.cluster.alias"), config.get("target.cluster.alias")
        if not source or not target:
            continue
        flow = found.setdefault((source, target), Flow(source, target))
        flow.connectors.append((str(status["name"]), str(status["connector"].get("state", ""))))
    for labels, value in hops:
        heard = found.get((labels.get("source", ""), labels.get("target", "")))
        if heard is not None and "upstream" in labels:
            heard.upstreams[labels["upstream"]] = int(value)
    for labels, value in checkpoints:
        checked = found.get((labels.get("source", ""), labels.get("target", "")))
        if checked is not None and "group" in labels:
            checked.checkpoints[labels["group"]] = max(value, checked.checkpoints.get(labels["group"], 0.0))
    return [found[key] for key in sorted(found)]


def _ages(flow: Flow, now: float) -> str:
    """Each group's checkpoint age, the oldest first (what an operator looks for)."""
    ages = sorted(((max(0.0, now - at), group) for group, at in flow.checkpoints.items()), reverse=True)
    return ", ".join(f'<span class="checkpoint" data-group="{escape(group, quote=True)}">{escape(group)}: '
                     f"{_seconds(age)}</span>" for age, group in ages) or "-"


def flows_html(found: Sequence[Flow], now: float) -> str:
    """One row per flow: its connectors and their states, the target's upstreams, checkpoint ages."""
    if not found:
        return "<p>No MirrorMaker 2 flows on this worker.</p>"
    rows = ['<table id="flow-table"><tr><th>Flow</th><th>Connectors</th>'
            '<th>Upstream clusters of the target (hops, from heartbeats)</th><th>Checkpoint age per group</th></tr>']
    for flow in found:
        connectors = ", ".join(f'{escape(name)} <span class="state-{escape(state)}">{escape(state)}</span>'
                               for name, state in flow.connectors)
        upstreams = ", ".join(f"{escape(alias)} ({hops})" for alias, hops in
                              sorted(flow.upstreams.items(), key=lambda item: (item[1], item[0]))) or "-"
        rows.append(f'<tr class="flow" data-flow="{escape(flow.source)}-{escape(flow.target)}">'
                    f"<td><b>{escape(flow.label)}</b></td><td>{connectors}</td><td>{upstreams}</td>"
                    f"<td>{_ages(flow, now)}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def _seconds(value: Any) -> str:
    if value is None:
        return "-"
    seconds = float(value)
    return f"{seconds:,.0f} s" if seconds < 120 else f"{seconds / 60:,.1f} min"


def backfill_html(statuses: Sequence[Json]) -> str:
    """One row per backfill task that reports progress: copied of total, percent, rate and ETA."""
    rows = []
    for status in statuses:
        for task in status["tasks"]:
            progress = task.get("progress")
            if not isinstance(progress, Mapping):
                continue
            copied, total = int(progress.get("records_copied", 0)), int(progress.get("records_total", 0))
            percent = 100.0 * copied / total if total else 100.0
            rows.append(f'<tr class="backfill" data-connector="{escape(str(status["name"]), quote=True)}">'
                        f'<td>{escape(str(status["name"]))} task {task["id"]}</td>'
                        f'<td>{escape(str(progress.get("state", "")))}</td>'
                        f'<td class="num">{copied:,} / {total:,}</td><td class="num">{percent:.1f}%</td>'
                        f'<td class="num">{float(progress.get("rate_records_per_second") or 0):,.0f}/s</td>'
                        f'<td class="num">{_seconds(progress.get("eta_seconds"))}</td></tr>')
    if not rows:
        return "<p>No backfill running.</p>"
    head = "<tr><th>Backfill</th><th>State</th><th>Copied</th><th></th><th>Rate</th><th>ETA</th></tr>"
    return f'<table id="backfill-table">{head}{"".join(rows)}</table>'
