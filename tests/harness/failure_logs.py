"""What a failed test's processes logged, attached to its report.

CI keeps only what pytest prints. A test that fails waiting for a cluster to do something says what it
waited for, not why it did not happen; the why is in the logs its workers and MirrorMaker processes
wrote under the test's `tmp_path`, which are gone with the CI machine. So on a failure the report gets,
for each such log, its warnings and errors and its last lines, within a fixed budget per test.
"""

from __future__ import annotations

from pathlib import Path

_TAIL_LINES = 25  # the end of each log: what the process was doing when the test gave up
_NOTABLE_LINES = 15  # the newest WARNING/ERROR lines before that end
_BUDGET = 12_000  # characters per failed test, so one failure cannot flood CI's output
_NOTABLE = ("] WARNING ", "] ERROR ", "] CRITICAL ")  # a traceback follows its ERROR line


def summary(log: Path) -> str:
    """The newest warnings and errors of one log, then its last lines."""
    lines = log.read_text(errors="replace").splitlines()
    tail = lines[-_TAIL_LINES:]
    earlier = lines[:-_TAIL_LINES]
    notable = [line for line in earlier if any(mark in line for mark in _NOTABLE)][-_NOTABLE_LINES:]
    parts = [f"{log.name}: {len(lines)} lines"]
    if notable:
        parts += ["-- newest warnings and errors before the end:", *notable]
    parts += ["-- last lines:", *tail]
    return "\n".join(line[:400] for line in parts)


def report(directory: Path) -> str:
    """The summaries of every `*.log` under `directory`, newest first, cut to the budget."""
    logs = sorted(directory.rglob("*.log"), key=lambda p: p.stat().st_mtime, reverse=True)
    text = "\n\n".join(summary(log) for log in logs if log.is_file())
    return text if len(text) <= _BUDGET else text[:_BUDGET] + "\n[cut: the logs are longer]"
