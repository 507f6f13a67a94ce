"""`replikafka`, the one command users type, and the `pyconnect*` commands it replaces, kept as aliases.

Run as the installed console scripts (pyproject.toml's [project.scripts]), not as functions. Followed: Kafka's
bin/connect-distributed.sh, bin/connect-standalone.sh and bin/connect-mirror-maker.sh (the properties files are
positional arguments, MirrorMaker.java's `main` adds `--clusters`), whose shape the `pyconnect-*` aliases keep.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.harness.brokers import Broker, free_port
from tests.harness.kafka_io import create_topic, produce_many, read_to_end
from tests.harness.mirror import mm2_file
from tests.harness.workers import REPO, wait_for

BIN = Path(sys.executable).parent
SUBCOMMANDS = ("distributed", "standalone", "mirror-maker", "demo", "offsets", "backfill", "local-broker")
# Every way to start each mode: the new command, the old front command, the old Kafka-shaped script.
ALIASES = {
    "distributed": (["replikafka", "distributed"], ["pyconnect", "distributed"], ["pyconnect-distributed"]),
    "standalone": (["replikafka", "standalone"], ["pyconnect", "standalone"], ["pyconnect-standalone"]),
    "mirror-maker": (["replikafka", "mirror-maker"], ["pyconnect", "mirror-maker"], ["pyconnect-mirror-maker"]),
}


def run(argv: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """One installed console script, to its end; 80 columns so that help text wraps the same everywhere."""
    command = [str(BIN / argv[0]), *argv[1:]]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "80", **(env or {})})


def listed_commands(help_text: str) -> dict[str, str]:
    """The subcommands `--help` lists, with the help shown on each one's line."""
    return dict(re.findall(r"(?m)^ {4}([a-z-]+) {2,}(\S.*)$", help_text))


def test_help_lists_every_subcommand_with_one_line_each() -> None:
    proc = run(["replikafka", "--help"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: replikafka ")
    listed = listed_commands(proc.stdout)
    assert tuple(listed) == SUBCOMMANDS, proc.stdout
    lines = proc.stdout.splitlines()
    for name in SUBCOMMANDS:  # the line after a subcommand's is the next subcommand or the end of the list
        after = lines[lines.index(next(line for line in lines if line.startswith(f"    {name} "))) + 1]
        assert after == "" or after.startswith("    ") and after.split()[0] in SUBCOMMANDS, (name, after)
    assert "pyconnect is an alias of replikafka" in " ".join(proc.stdout.split())


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_each_subcommand_has_its_help(name: str) -> None:
    proc = run(["replikafka", name, "--help"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: replikafka {name}"), proc.stdout
    old = run(["pyconnect", name, "--help"])
    assert old.returncode == 0, old.stderr
    assert old.stdout.startswith(f"usage: pyconnect {name}"), old.stdout


def test_the_old_command_lists_the_same_subcommands() -> None:
    new, old = run(["replikafka", "--help"]), run(["pyconnect", "--help"])
    assert old.returncode == new.returncode == 0
    assert listed_commands(old.stdout) == listed_commands(new.stdout)


@pytest.mark.parametrize("mode", ALIASES)
def test_aliases_exit_alike_on_bad_input(tmp_path: Path, mode: str) -> None:
    """A malformed file: the same one `error:` line and exit 2 from every name; no argument: argparse's exit 2."""
    bad = tmp_path / "bad.properties"
    bad.write_text("justaword\n")
    results = {" ".join(argv): run([*argv, str(bad)]) for argv in ALIASES[mode]}
    assert {p.returncode for p in results.values()} == {2}, {k: p.stderr for k, p in results.items()}
    assert {p.stderr for p in results.values()} == {f"error: {bad}:1: justaword: malformed line: expected "
                                                    "'key=value'\n"}
    for argv in ALIASES[mode]:
        missing = run(argv)
        assert missing.returncode == 2 and "the following arguments are required" in missing.stderr, argv


def test_old_mirror_maker_script_replicates_and_reads_the_old_variable(tmp_path: Path, broker: Broker,
                                                                       broker_b: Broker) -> None:
    """`pyconnect-mirror-maker mm2.properties` still replicates, and `PYCONNECT_LOG_FORMAT=json` (the variable's
    older name) still makes its log JSON."""
    prefix = f"alias{uuid.uuid4().hex[:6]}"
    create_topic(broker.bootstrap, f"{prefix}1", 1)
    produce_many(broker.bootstrap, f"{prefix}1", 50, 1)
    path = mm2_file(tmp_path / "mm2.properties", broker, broker_b, free_port(), prefix)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_LOG_FORMAT")}
    log = open(tmp_path / "mm.log", "wb")  # noqa: SIM115 - owned by the child
    proc = subprocess.Popen([str(BIN / "pyconnect-mirror-maker"), str(path)], cwd=REPO, stdout=log,
                            stderr=subprocess.STDOUT, env={**env, "PYCONNECT_LOG_FORMAT": "json"})
    try:
        wait_for(lambda: len(read_to_end(broker_b.bootstrap, f"A.{prefix}1")) == 50, 90, f"A.{prefix}1 on B")
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    lines = [line for line in (tmp_path / "mm.log").read_text().splitlines() if line.strip()]
    assert lines and all(isinstance(json.loads(line), dict) for line in lines), lines[:3]
