"""confluent_kafka is imported only in pyconnect/kafka: every other production module uses its wrappers.

Two checks: a scan of the source for the import statements themselves, and the import-linter contract in
pyproject.toml, run on a copy of the code with one wrong import added, which must break it.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("pyconnect", "connectors", "rest", "replikafka")
ALLOWED = ROOT / "pyconnect" / "kafka"


def _imports_confluent_kafka(source: str) -> bool:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "confluent_kafka" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == \
                "confluent_kafka":
            return True
    return False


def _importers(root: Path) -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in root.rglob("*.py")
                  if _imports_confluent_kafka(p.read_text(encoding="utf-8")))


def test_no_production_module_outside_pyconnect_kafka_imports_it() -> None:
    outside = [p for package in PACKAGES for p in _importers(ROOT / package)
               if not p.startswith("pyconnect/kafka/")]
    assert outside == []


def test_the_scan_sees_the_imports_that_are_there() -> None:
    """The wrappers themselves import it (else the scan above could pass by seeing nothing)."""
    assert {"pyconnect/kafka/clients.py", "pyconnect/kafka/consumer_control.py",
            "pyconnect/kafka/errors.py"} <= set(_importers(ALLOWED))
    assert _imports_confluent_kafka("from confluent_kafka import TopicPartition\n")
    assert not _imports_confluent_kafka("from pyconnect.kafka.clients import Consumer\n")


def test_the_import_contract_breaks_on_a_wrong_import(tmp_path: Path) -> None:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    runner = tmp_path / "pyconnect" / "runtime" / "sink" / "runner.py"
    runner.write_text(runner.read_text(encoding="utf-8") + "\nimport confluent_kafka  # wrong on purpose\n",
                      encoding="utf-8")
    # lint-imports analyses the packages found first on sys.path: the copy, from its own directory.
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "pyconnect.runtime.sink.runner -> confluent_kafka" in result.stdout
    assert re.search(r"Contracts: \d+ kept, 1 broken\.", result.stdout)  # only the confluent_kafka contract
    assert "confluent_kafka is imported only in pyconnect.kafka" in result.stdout.split("Broken contracts")[1]
