"""The configuration audit: for every ConfigDef key of the reference, the client prefixes and the mm2.properties
scopes, whether it is honoured (and the tests that show it), refused (and where), pending or a known gap.

The data is config_audit.toml next to this module; the docs page is rendered from it and from the code's keys
at build time, so it cannot drift from either.

Invariants: every key of `config_sections()` resolves to exactly one entry (its own, else a `[shown]` or
`[pending]` pattern); a key without either is reported as MISSING here and fails
tests/unit/test_config_audit.py. An entry that names tests names them as `tests/<file>.py::<function>`.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from enum import Enum
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Any

from replikafka.reference.config_keys import config_sections

AUDIT_FILE = Path(__file__).with_name("config_audit.toml")
GROUPS = "Client prefixes and mm2.properties scopes"


class Status(Enum):
    """What the audit says of a key."""

    HONOURED = "honoured"
    REFUSED = "refused"
    PENDING = "pending"
    GAP = "gap"
    MISSING = "missing"  # in the code, not in the audit: the audit test fails


@dataclass(frozen=True)
class Entry:
    """One audited key (or prefix group) of one section."""

    section: str
    key: str
    status: Status
    tests: tuple[str, ...] = ()
    detail: str = ""  # the refusing module, the pending behaviour or the gap's reason


@cache
def load_audit(path: Path = AUDIT_FILE) -> dict[str, Any]:
    """The audit file's tables: `pending`, `groups` and `keys` (section title -> key -> entry)."""
    with path.open("rb") as f:
        return tomllib.load(f)


def _entry(section: str, key: str, raw: dict[str, Any]) -> Entry:
    """An entry from its table; the first of refused, pending, gap decides the status, else tests do."""
    tests = tuple(raw.get("tests", ()))
    for field, status in (("refused", Status.REFUSED), ("pending", Status.PENDING), ("gap", Status.GAP)):
        if field in raw:
            return Entry(section, key, status, tests, str(raw[field]))
    return Entry(section, key, Status.HONOURED if tests else Status.MISSING, tests)


def resolve(section: str, key: str, data: dict[str, Any] | None = None) -> Entry:
    """The audit's entry for `key` of `section`: its own, else the first matching `[shown]`, then `[pending]`
    pattern."""
    audit = load_audit() if data is None else data
    own = audit.get("keys", {}).get(section, {}).get(key)
    if own is not None:
        return _entry(section, key, own)
    for pattern, raw in audit.get("shown", {}).items():
        if fnmatchcase(f"{section}::{key}", pattern):
            return _entry(section, key, raw)
    for pattern, behaviour in audit.get("pending", {}).items():
        if fnmatchcase(f"{section}::{key}", pattern):
            return Entry(section, key, Status.PENDING, (), str(behaviour))
    return Entry(section, key, Status.MISSING)


def audit_entries(data: dict[str, Any] | None = None) -> list[Entry]:
    """Every key of the code's ConfigDefs (in the reference's order), then every prefix group."""
    audit = load_audit() if data is None else data
    out = [resolve(s.title, k.name, audit) for s in config_sections() for k in s.keys]
    out += [_entry(GROUPS, name, raw) for name, raw in audit.get("groups", {}).items()]
    return out


def _shown_by(entry: Entry) -> str:
    """The table cell naming the tests and the detail."""
    tests = "<br>".join(f"`{t}`" for t in entry.tests)
    detail = entry.detail.replace("|", "\\|")
    if entry.status is Status.REFUSED:
        detail = f"refused in `{entry.detail}`"
    return "<br>".join(part for part in (detail, tests) if part)


def audit_page() -> str:
    """The audit as a Markdown page: a summary, then one table per section."""
    entries = audit_entries()
    counts = {s: sum(1 for e in entries if e.status is s) for s in Status}
    lines = ["# Configuration audit", "",
             "Every key of every ConfigDef (the [configuration reference](../reference/configuration.md)), the "
             "client-setting prefixes and the mm2.properties scopes: **honoured** (the tests named show its "
             "behaviour), **refused** (a value this project cannot honour stops with an error naming the key), "
             "**pending** (being implemented) or a known **gap** (why it has no test or no effect). Generated "
             "at build time from the code's keys and the audit file replikafka/reference/config_audit.toml; the "
             "test tests/unit/test_config_audit.py fails when a key is missing or a named test does not exist.",
             "", "| Status | Keys |", "|---|---|"]
    lines += [f"| {s.value} | {n} |" for s, n in counts.items() if n]
    section = None
    for entry in entries:
        if entry.section != section:
            section = entry.section
            lines += ["", f"## {section}", "", "| Key | Status | Shown by |", "|---|---|---|"]
        lines.append(f"| `{entry.key}` | {entry.status.value} | {_shown_by(entry)} |")
    return "\n".join(lines) + "\n"
