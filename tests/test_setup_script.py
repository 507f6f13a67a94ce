"""`scripts/setup.sh`'s modes: each command installs what it needs.

`setup.sh demo` (what scripts/demo.sh and scripts/local-broker.sh run) installs the `demo` extra and runs no
apt-get; `setup.sh test` (the default, what scripts/test.sh and CI run) installs the Debian packages and the
test extras; each mode has its own stamp per pyproject.toml, so the test command after the demo installs the
rest and the demo command after the test installs nothing.

The default version runs the script as it is, with stand-ins for the installers it calls (python, dpkg,
apt-get), which record their arguments: what is checked is which installs the script asks for. The slow version
does it for real on a fresh clone: the demo replicating within 60 s, then the test command installing the rest.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.harness.workers import REPO

# Records every call; `python -m venv DIR` makes DIR/bin/python a copy of this stand-in.
FAKE_PYTHON = """#!/usr/bin/env bash
echo "python $*" >> "$CALLS"
if [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; fi
"""
FAKE_TOOLS = {
    "dpkg": '#!/usr/bin/env bash\necho "dpkg $*" >> "$CALLS"\nexit 1\n',  # every package is missing
    "apt-get": '#!/usr/bin/env bash\necho "apt-get $*" >> "$CALLS"\n',
    "id": '#!/usr/bin/env bash\necho 0\n',  # root, so that the script may call apt-get
}


class Checkout:
    """scripts/setup.sh and pyproject.toml in a folder of their own, run with the stand-ins on PATH."""

    def __init__(self, root: Path) -> None:
        self.dir = root / "checkout"
        (self.dir / "scripts").mkdir(parents=True)
        shutil.copy(REPO / "scripts" / "setup.sh", self.dir / "scripts" / "setup.sh")
        shutil.copy(REPO / "pyproject.toml", self.dir / "pyproject.toml")
        tools = root / "bin"
        tools.mkdir()
        for name, text in {"python-fake": FAKE_PYTHON, **FAKE_TOOLS}.items():
            (tools / name).write_text(text)
            (tools / name).chmod(0o755)
        self.calls = root / "calls.log"
        self.env = {**os.environ, "PATH": f"{tools}:{os.environ['PATH']}", "PYTHON": str(tools / "python-fake"),
                    "CALLS": str(self.calls)}

    def setup(self, *mode: str) -> tuple[int, list[str], str]:
        """Runs setup.sh; returns its exit code, the installer calls it made and its stderr."""
        self.calls.write_text("")
        proc = subprocess.run(["bash", "scripts/setup.sh", *mode], cwd=self.dir, env=self.env, capture_output=True,
                              text=True, timeout=60)
        return proc.returncode, self.calls.read_text().splitlines(), proc.stderr

    def stamps(self) -> set[str]:
        return {p.name for p in (self.dir / ".venv").glob(".installed-*")}


def _installs(calls: list[str]) -> list[str]:
    return [c for c in calls if " pip install -e " in c]


def test_demo_mode_installs_the_demo_extra_only_and_test_mode_the_rest(tmp_path: Path) -> None:
    repo = Checkout(tmp_path)
    code, calls, err = repo.setup("demo")
    assert code == 0, err
    assert _installs(calls) == ["python -m pip install -e .[demo]"], calls
    assert not [c for c in calls if c.startswith(("apt-get", "dpkg"))], "the demo needs no Debian package"
    assert [s.split("-")[1] for s in repo.stamps()] == ["demo"]

    code, calls, err = repo.setup("demo")
    assert (code, calls) == (0, []), "installed once per pyproject.toml"

    code, calls, err = repo.setup("test")
    assert code == 0, err
    apt = [c for c in calls if c.startswith("apt-get install")]
    assert len(apt) == 1 and all(p in apt[0].split() for p in ("stunnel4", "chromium", "chromium-driver",
                                                                 "prometheus")), calls
    assert _installs(calls) == ["python -m pip install -e .[test]"], calls
    assert {s.split("-")[1] for s in repo.stamps()} == {"demo", "test"}

    code, calls, err = repo.setup("demo")
    assert code == 0 and _installs(calls) == [], "the test extras include the demo's"
    code, calls, err = repo.setup()
    assert code == 0 and _installs(calls) == [], "no mode is the test mode"


def test_a_changed_pyproject_installs_again_and_drops_the_old_stamps(tmp_path: Path) -> None:
    repo = Checkout(tmp_path)
    assert repo.setup("test")[0] == 0
    with (repo.dir / "pyproject.toml").open("a") as f:
        f.write("\n# changed\n")
    code, calls, err = repo.setup("demo")
    assert code == 0 and _installs(calls) == ["python -m pip install -e .[demo]"], (calls, err)
    assert [s.split("-")[1] for s in repo.stamps()] == ["demo"], repo.stamps()


def test_an_unknown_mode_is_a_usage_error(tmp_path: Path) -> None:
    code, calls, err = Checkout(tmp_path).setup("tests")
    assert code == 2 and "usage: bash scripts/setup.sh [demo|test]" in err and calls == [], err


@pytest.mark.slow
def test_fresh_clone_demo_replicates_within_60_s_then_the_test_command_installs_the_rest(tmp_path: Path) -> None:
    """Must-show 7: on a fresh clone, `bash scripts/demo.sh` installs and replicates within 60 s (pip's cache
    warm), with no test extras installed; then `setup.sh test` adds them."""
    clone = tmp_path / "fresh"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    started = time.monotonic()
    proc = subprocess.Popen(["bash", "scripts/demo.sh", "--duration", "15"], cwd=clone, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    first_replicated = None
    for line in proc.stdout:
        if first_replicated is None and re.match(r"^A -> B +orders +[\d,]+ +[1-9]", line):
            first_replicated = time.monotonic() - started
    assert proc.wait(120) == 0
    print(f"fresh clone: first replicated record after {first_replicated} s")
    assert first_replicated is not None and first_replicated < 60, first_replicated
    venv_python = str(clone / ".venv" / "bin" / "python")
    for module in ("pytest", "pyspark"):
        found = subprocess.run([venv_python, "-c", f"import {module}"], capture_output=True)
        assert found.returncode != 0, f"the demo installed {module}"
    assert subprocess.run(["bash", "scripts/setup.sh", "test"], cwd=clone, timeout=900).returncode == 0
    assert subprocess.run([venv_python, "-c", "import pytest, pyspark"]).returncode == 0
