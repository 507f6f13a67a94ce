"""The fast test loop: which tests `scripts/test.sh --fast` runs, and the Hypothesis profiles.

Project tooling, not Kafka behaviour: nothing in Apache Kafka or Strimzi defines it.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests import hypothesis_profiles
from tests.harness.workers import REPO

# Collects the whole suite once, as `scripts/test.sh` does, and prints each test's file and markers.
COLLECT = """
import sys, pytest
class Show:
    def pytest_collection_finish(self, session):
        for item in session.items:
            print("MARKS", item.nodeid.split("::")[0], ",".join(sorted(m.name for m in item.iter_markers())))
sys.exit(pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "-m", "", "tests"], plugins=[Show()]))
"""


@pytest.fixture(scope="module")
def marks() -> list[tuple[str, set[str]]]:
    """(file, markers) of every collected test, slow ones included."""
    out = subprocess.run([sys.executable, "-c", COLLECT], cwd=REPO, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    rows = [line.split(" ")[1:] for line in out.stdout.splitlines() if line.startswith("MARKS ")]
    return [(row[0], set(row[1].split(",")) if len(row) > 1 and row[1] else set()) for row in rows]


def test_the_broker_free_set_holds_no_test_that_starts_or_names_a_broker(marks: list[tuple[str, set[str]]]) -> None:
    fast = [path for path, names in marks if not names & {"broker", "slow"}]
    files = set(fast)
    # Through a fixture (rule 1), a starter the module imports (rule 2), an external cluster's variable
    # (rule 2), a command that starts brokers (rule 3).
    for needs_broker in ("tests/test_rest_api.py", "tests/conformance/test_connectors_resource.py",
                         "tests/test_tls_real.py", "tests/test_mirror_maker.py", "tests/test_broker_cli.py",
                         "tests/test_demo.py", "tests/test_exactly_once.py"):
        assert needs_broker not in files, needs_broker
    # A module's own class named like a starter (a fake Cluster) does not count.
    assert "tests/unit/test_auto_restart.py" in files and "tests/unit/test_handover.py" in files
    assert "tests/unit/test_fast_loop.py" in files and "tests/unit/test_broker_guard.py" not in files
    assert "tests/test_cli_version.py" in files and "tests/test_helm_chart.py" in files
    assert len(fast) > 1000, len(fast)


def test_rate_and_timing_tests_are_serial_and_the_rest_is_not(marks: list[tuple[str, set[str]]]) -> None:
    serial = {path for path, names in marks if "serial" in names}
    assert {"tests/test_rest_load.py", "tests/test_offset_sync_cost.py", "tests/test_wan.py",
            "tests/test_worker_cluster.py", "tests/test_bad_input.py", "tests/test_shutdown.py"} <= serial
    assert "tests/test_rest_api.py" not in serial


def test_ci_selects_the_full_profile_and_a_developer_the_small_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    monkeypatch.setenv("CI", "true")
    assert hypothesis_profiles.active_profile() == "ci"
    monkeypatch.delenv("CI")
    assert hypothesis_profiles.active_profile() == "dev"
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "dev")
    assert hypothesis_profiles.active_profile() == "dev"
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "full")
    with pytest.raises(ValueError, match="HYPOTHESIS_PROFILE='full' is not one of ci, dev"):
        hypothesis_profiles.active_profile()


def test_the_ci_profile_keeps_each_propertys_own_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hypothesis_profiles, "PROFILE", "ci")
    assert hypothesis_profiles.examples(10_000) == 10_000
    monkeypatch.setattr(hypothesis_profiles, "PROFILE", "dev")
    assert hypothesis_profiles.examples(10_000) == hypothesis_profiles.DEV_EXAMPLES
    assert hypothesis_profiles.examples(20) == 20
