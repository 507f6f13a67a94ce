"""The operator console's charts: plain inline SVG (polylines over a 15-minute time axis)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

from pyconnect.runtime.metrics.history import KINDS, TOTAL, MetricHistory, Point

COLOURS = ("#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bf3989")
MAX_POINTS = 120  # per polyline: more than the chart's pixels would show
TOP_SERIES = 5  # partitions drawn next to the total, the highest first


def _thin(points: Sequence[Point]) -> Sequence[Point]:
    step = math.ceil(len(points) / MAX_POINTS) if points else 1
    return points if step <= 1 else [*points[::step][:-1], points[-1]]


def _polyline(points: Sequence[Point], x0: float, top: float, width: float, height: float,
              since: float, window: float, high: float) -> str:
    return " ".join(f"{x0 + (t - since) / window * width:.1f},{top + height - v / high * height:.1f}"
                    for t, v in _thin(points))


def _number(value: float) -> str:
    if value >= 100 or value == int(value):
        return f"{value:,.0f}"
    return f"{value:.2f}"


def chart(key: str, title: str, series: Mapping[str, Sequence[Point]], now: float, window: float) -> str:
    """An SVG chart of the total and the `TOP_SERIES` highest series of one figure over the window.

    `data-points` counts the total's points (what a test or a script can read without parsing lines)."""
    width, height, left, top = 560.0, 150.0, 60.0, 24.0
    since = now - window
    total = series.get(TOTAL, [])
    others = sorted((name for name in series if name != TOTAL), key=lambda n: -series[n][-1][1])[:TOP_SERIES]
    drawn = [(TOTAL, total), *((name, series[name]) for name in others)]
    high = max((v for _, points in drawn for _, v in points), default=0.0) or 1.0
    parts = [f'<svg class="chart" data-kind="{key}" data-points="{len(total)}" width="{left + width + 150:.0f}" '
             f'height="{top + height + 24:.0f}" xmlns="http://www.w3.org/2000/svg">',
             f'<text x="{left}" y="14" class="title">{escape(title)}</text>',
             f'<rect x="{left}" y="{top}" width="{width}" height="{height}" class="plot"/>',
             f'<text x="{left - 4}" y="{top + 10}" class="axis" text-anchor="end">{_number(high)}</text>',
             f'<text x="{left - 4}" y="{top + height}" class="axis" text-anchor="end">0</text>',
             f'<text x="{left}" y="{top + height + 16}" class="axis">-{window / 60:.0f} min</text>',
             f'<text x="{left + width}" y="{top + height + 16}" class="axis" text-anchor="end">now</text>']
    for index, (name, points) in enumerate(drawn):
        colour = COLOURS[index % len(COLOURS)]
        if points:
            line = _polyline(points, left, top, width, height, since, window, high)
            parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" '
                         f'stroke-width="{2 if name == TOTAL else 1}"/>')
        last = _number(points[-1][1]) if points else "-"
        parts.append(f'<text x="{left + width + 8}" y="{top + 10 + index * 14}" class="legend" fill="{colour}">'
                     f'{escape(name)}: {last}</text>')
    if not total:
        parts.append(f'<text x="{left + width / 2}" y="{top + height / 2}" class="axis" text-anchor="middle">'
                     "no data yet</text>")
    parts.append("</svg>")
    return "".join(parts)


def sparkline(points: Sequence[Point], now: float, window: float) -> str:
    """A small line of one series over the window (the partition table's trend column)."""
    width, height = 160.0, 24.0
    if not points:
        return ""
    high = max(v for _, v in points) or 1.0
    line = _polyline(points, 0.0, 2.0, width, height - 4, now - window, window, high)
    return (f'<svg class="spark" width="{width:.0f}" height="{height:.0f}" xmlns="http://www.w3.org/2000/svg">'
            f'<polyline points="{line}" fill="none" stroke="{COLOURS[0]}" stroke-width="1"/></svg>')


def charts_html(history: MetricHistory, now: float) -> str:
    """One chart per figure the worker's tasks report (all of them, empty ones saying so)."""
    return "".join(chart(kind.key, kind.title, history.series(kind.key), now, history.window) for kind in KINDS)


def partitions_html(history: MetricHistory, now: float) -> str:
    """A row per topic-partition: its latest figures and its lag over the window (per-group figures,
    the checkpoint latencies, are in their chart only)."""
    kinds = [kind for kind in KINDS if not kind.per_group]
    by_kind = {kind.key: history.series(kind.key) for kind in kinds}
    names = sorted({name for series in by_kind.values() for name in series if name != TOTAL})
    if not names:
        return "<p>No topic-partitions reported yet.</p>"
    head = "".join(f"<th>{escape(kind.title)}</th>" for kind in kinds)
    rows = [f'<table id="partition-table"><tr><th>Topic-partition</th>{head}<th>Lag trend</th></tr>']
    for name in names:
        cells = "".join(f'<td class="num">{_number(by_kind[kind.key][name][-1][1])}</td>'
                        if name in by_kind[kind.key] else "<td></td>" for kind in kinds)
        trend = sparkline(by_kind["lag_records"].get(name, []), now, history.window)
        rows.append(f'<tr class="partition"><td>{escape(name)}</td>{cells}<td>{trend}</td></tr>')
    rows.append("</table>")
    return "".join(rows)
