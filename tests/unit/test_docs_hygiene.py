"""The README and the docs stand on their own: a short README with the two commands, and no text in docs/, the
README or the code that points at files outside the repository or at numbers of an issue tracker."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = re.compile(r"\.\./shared\b|/work/")
ISSUE = re.compile(r"\bissues? #?\d+", re.IGNORECASE)
#: Being rewritten elsewhere at the moment; strict: the test fails once the file is clean, so the mark goes.
PENDING: set[str] = set()  # files whose rewrite is pending (none)
TEXT = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]
CODE_DIRS = ("pyconnect", "connectors", "rest", "replikafka", "tests", "scripts", "helm", "docs")


def _relative(path: Path) -> str:
    """The path from the repository's root."""
    return path.relative_to(ROOT).as_posix()


def _offending_lines(path: Path) -> list[str]:
    """`file:line: text` of every line naming an outside file or an issue number."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [f"{_relative(path)}:{n}: {line.strip()}" for n, line in enumerate(lines, start=1)
            if OUTSIDE.search(line) or ISSUE.search(line)]


def _params(paths: list[Path]) -> list[object]:
    """One test case per file; the pending ones expected to fail, strictly."""
    return [pytest.param(p, id=_relative(p), marks=[pytest.mark.xfail(strict=True, reason="pending rewrite")]
                         if _relative(p) in PENDING else []) for p in paths]


@pytest.mark.parametrize("path", _params(TEXT))
def test_docs_name_no_outside_file_and_no_issue_number(path: Path) -> None:
    assert _offending_lines(path) == []


def test_code_comments_name_no_outside_file_and_no_issue_number() -> None:
    this = Path(__file__).resolve()
    files = [p for d in CODE_DIRS for p in (ROOT / d).rglob("*")
             if p.suffix in {".py", ".sh", ".md", ".yaml", ".tpl"} and p.resolve() != this
             and _relative(p) not in PENDING]
    assert len(files) > 100
    assert [line for p in files for line in _offending_lines(p)] == []


def test_the_patterns_catch_what_they_should() -> None:
    for bad in ("see ../shared/docs/test-brokers.md", "(issue 18)", "Issue 12 item 2:", "issue #7"):
        assert OUTSIDE.search(bad) or ISSUE.search(bad), bad
    assert not ISSUE.search("the issue is closed at 3 am")


def test_readme_is_short_and_names_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= 8 * 1024
    assert "    bash scripts/demo.sh\n" in readme
    assert "    bash scripts/test.sh\n" in readme
    assert "mkdocs serve" in readme
