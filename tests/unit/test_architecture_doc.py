"""docs/architecture.md matches the code: every module or package path it names exists in the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
#: A path into the repository's code: a top-level package or folder, then folders and a file or a folder.
PATH = re.compile(r"\b(?:pyconnect|connectors|rest|replikafka|tests|docs|scripts|bench|helm)/[\w./-]*[\w/]")


def named_paths(text: str) -> set[str]:
    """The repository paths a text names (a trailing `/` marks a folder)."""
    return {m.group(0) for m in PATH.finditer(text)}


def test_the_page_names_the_code_it_describes() -> None:
    paths = named_paths(DOC.read_text(encoding="utf-8"))
    assert len(paths) > 40
    assert {"pyconnect/runtime/worker.py", "pyconnect/runtime/sink/runner.py", "replikafka/standalone.py",
            "pyconnect/runtime/errors/dlq_reporter.py", "pyconnect/transforms/"} <= paths


def test_every_module_it_names_is_named_by_its_full_path() -> None:
    """A module named by its file name alone (`herder_admin.py`) or half a path (`runtime/source/fencing.py`) could not
    be checked: every `.py` the page names starts at the repository's root."""
    text = DOC.read_text(encoding="utf-8")
    full = {m.end() for m in PATH.finditer(text)}
    partial = [m.group(0) for m in re.finditer(r"[\w./-]*\.py\b", text) if m.end() not in full]
    assert partial == []


def test_every_module_path_it_names_exists() -> None:
    missing = sorted(p for p in named_paths(DOC.read_text(encoding="utf-8")) if not (ROOT / p).exists())
    assert missing == []


def test_a_missing_path_is_caught() -> None:
    paths = named_paths("the herder (pyconnect/runtime/no_such_module.py) and rest/app.py")
    assert paths == {"pyconnect/runtime/no_such_module.py", "rest/app.py"}
    assert not (ROOT / "pyconnect/runtime/no_such_module.py").exists()


def test_it_says_which_modules_import_confluent_kafka() -> None:
    """The page names every module that imports confluent_kafka, and all of them are in pyconnect/kafka (the
    import-linter contract keeps it so; tests/unit/test_confluent_kafka_boundary.py checks the code alone)."""
    importers = {p.relative_to(ROOT).as_posix() for d in ("pyconnect", "connectors", "rest", "replikafka")
                 for p in (ROOT / d).rglob("*.py")
                 if re.search(r"^\s*(?:import|from) confluent_kafka\b", p.read_text(encoding="utf-8"), re.M)}
    section = DOC.read_text(encoding="utf-8").split("## Who imports confluent-kafka", 1)[1].split("\n## ", 1)[0]
    assert importers and importers <= named_paths(section)
    assert all(p.startswith("pyconnect/kafka/") for p in importers)
