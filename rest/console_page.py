"""The operator console's HTML: the page, its connector table with the action buttons, and its script.

The page is complete as served (no CDN, no build step); its small script polls `ui/state` and swaps
in the sections the server rendered there, and sends the actions to the REST API itself
(`PUT connectors/{name}/pause` ...), so TLS and basic auth apply as to any REST call. URLs are
relative to the page (dedicated MirrorMaker serves each flow's console under `/{source}/{target}/ui`)
and built on `location.origin`, which carries no credentials a typed URL may hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

Json = dict[str, Any]

# Label, HTTP method and path (after `connectors/{name}`) of each action.
ACTIONS = (
    ("pause", "Pause", "PUT", "/pause"),
    ("resume", "Resume", "PUT", "/resume"),
    ("restart", "Restart failed tasks", "POST", "/restart?includeTasks=true&onlyFailed=true"),
    ("stop", "Stop", "PUT", "/stop"),
)

_STYLE = """
body{font:14px system-ui,sans-serif;margin:16px;color:#1f2328}
h1{font-size:20px}h2{font-size:16px;margin-top:24px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #d0d7de;padding:3px 8px;vertical-align:top}
th{background:#f6f8fa;text-align:left}.state-RUNNING{color:#1a7f37}.state-FAILED{color:#d1242f;font-weight:bold}
.state-PAUSED,.state-STOPPED{color:#9a6700}pre.trace{max-width:900px;max-height:160px;overflow:auto;margin:0;
font-size:12px;background:#fff8f8}button{margin:0 4px 0 0}#message{min-height:18px;color:#0550ae}
#message.refused{color:#d1242f}.plot{fill:#fafbfc;stroke:#d0d7de}.axis,.legend{font-size:11px}
.title{font-size:13px;font-weight:bold}.chart{margin:4px 12px 4px 0}.num{text-align:right}
"""

_SCRIPT = """
const base = new URL(location.pathname.replace(/ui\\/?$/, ''), location.origin);
const POLL_MS = %(poll_ms)d;
async function refresh() {
  try {
    const r = await fetch(new URL('ui/state', base), {credentials: 'same-origin', cache: 'no-store',
                                                      headers: {'X-Requested-With': 'XMLHttpRequest'}});
    if (!r.ok) { return; }
    const state = await r.json();
    for (const [id, html] of Object.entries(state.html)) {
      const el = document.getElementById(id);
      if (el) { el.innerHTML = html; }
    }
    document.getElementById('updated').textContent = new Date().toLocaleTimeString();
  } catch (e) { /* the worker is restarting: try again at the next poll */ }
}
async function act(button) {
  const msg = document.getElementById('message');
  const name = button.dataset.connector;
  const path = 'connectors/' + encodeURIComponent(name) + button.dataset.path;
  const what = button.dataset.action + ' ' + name + ': ';
  msg.className = '';
  msg.textContent = what + 'sent';
  try {
    const r = await fetch(new URL(path, base), {method: button.dataset.method, credentials: 'same-origin',
                                                headers: {'X-Requested-With': 'XMLHttpRequest'}});
    msg.className = r.ok ? '' : 'refused';
    msg.textContent = what + 'HTTP ' + r.status + (r.ok ? '' : ' (refused)');
  } catch (e) {
    msg.className = 'refused';
    msg.textContent = what + 'not sent (' + e + ')';
  }
  refresh();
}
document.addEventListener('click', (e) => {
  const button = e.target.closest('button[data-action]');
  if (button) { act(button); }
});
setInterval(refresh, POLL_MS);
"""


def _state_cell(state: Mapping[str, Any]) -> str:
    value = escape(str(state.get("state", "")))
    return f'<td class="state state-{value}">{value}</td><td>{escape(str(state.get("worker_id", "")))}</td>'


def _trace_cell(state: Mapping[str, Any]) -> str:
    trace = state.get("trace")
    return f'<td><pre class="trace">{escape(str(trace))}</pre></td>' if trace else "<td></td>"


def _buttons(name: str) -> str:
    quoted = escape(name, quote=True)
    return "".join(f'<button data-action="{action}" data-connector="{quoted}" data-method="{method}" '
                   f'data-path="{escape(path, quote=True)}" id="{action}-{quoted}">{label}</button>'
                   for action, label, method, path in ACTIONS)


def connectors_html(statuses: Sequence[Json], read_only: bool) -> str:
    """One row per connector and per task: state, worker id, failure trace (and the actions)."""
    if not statuses:
        return "<p>No connectors.</p>"
    head = "<th>Connector / task</th><th>Type</th><th>State</th><th>Worker</th><th>Trace</th>"
    rows = [f"<table id=\"connector-table\"><tr>{head}{'' if read_only else '<th>Actions</th>'}</tr>"]
    for status in statuses:
        name = str(status["name"])
        actions = "" if read_only else f"<td>{_buttons(name)}</td>"
        rows.append(f'<tr class="connector" data-connector="{escape(name, quote=True)}"><td><b>{escape(name)}</b>'
                    f'</td><td>{escape(str(status.get("type", "")))}</td>{_state_cell(status["connector"])}'
                    f'{_trace_cell(status["connector"])}{actions}</tr>')
        for task in status["tasks"]:
            rows.append(f'<tr class="task" data-connector="{escape(name, quote=True)}" data-task="{task["id"]}">'
                        f'<td>&nbsp;&nbsp;task {task["id"]}</td><td></td>{_state_cell(task)}{_trace_cell(task)}'
                        f'{"" if read_only else "<td></td>"}</tr>')
    rows.append("</table>")
    return "".join(rows)


def page(sections: Mapping[str, str], worker_id: str, read_only: bool, poll_ms: int) -> str:
    """The whole console: `sections` (element id -> HTML) as the state endpoint also returns them."""
    mode = " (read-only)" if read_only else ""
    return (
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>replikafka console</title>"
        f"<style>{_STYLE}</style></head><body>"
        f"<h1>replikafka operator console{mode}</h1>"
        f"<p>Worker <b>{escape(worker_id)}</b>; updated <span id=\"updated\">now</span></p>"
        "<div id=\"message\"></div>"
        f"<h2>Flows</h2><div id=\"flows\">{sections['flows']}</div>"
        f"<div id=\"backfills\">{sections['backfills']}</div>"
        f"<h2>Connectors and tasks</h2><div id=\"connectors\">{sections['connectors']}</div>"
        f"<h2>Last 15 minutes</h2><div id=\"charts\">{sections['charts']}</div>"
        f"<h2>Topic-partitions</h2><div id=\"partitions\">{sections['partitions']}</div>"
        f"<script>{_SCRIPT % {'poll_ms': poll_ms}}</script></body></html>"
    )
