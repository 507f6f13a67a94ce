"""`--version` on every command: the installed distribution's version from package metadata.

Followed: Kafka's scripts print AppInfoParser's version (`kafka-run-class.sh ... --version`); here every entry
point of pyproject.toml's [project.scripts] (`replikafka` and its `pyconnect*` aliases) and `python -m replikafka`
print `replikafka <version>` and exit 0, even where the command has required arguments.
"""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.harness.workers import REPO

BIN = Path(sys.executable).parent
COMMANDS = {
    "python -m replikafka": [sys.executable, "-m", "replikafka", "--version"],
    "replikafka": [str(BIN / "replikafka"), "--version"],
    "replikafka mirror-maker": [str(BIN / "replikafka"), "mirror-maker", "--version"],
    "replikafka offsets": [str(BIN / "replikafka"), "offsets", "--version"],
    "pyconnect": [str(BIN / "pyconnect"), "--version"],
    "pyconnect mirror-maker": [str(BIN / "pyconnect"), "mirror-maker", "--version"],
    "pyconnect-distributed": [str(BIN / "pyconnect-distributed"), "--version"],
    "pyconnect-standalone": [str(BIN / "pyconnect-standalone"), "--version"],
    "pyconnect-mirror-maker": [str(BIN / "pyconnect-mirror-maker"), "--version"],
}


@pytest.mark.parametrize("name", COMMANDS)
def test_version(name: str) -> None:
    proc = subprocess.run(COMMANDS[name], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"replikafka {version('replikafka')}", proc.stdout
