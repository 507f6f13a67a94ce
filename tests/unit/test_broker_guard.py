"""The fast run's broker guard: under REPLIKAFKA_TEST_NO_BROKERS every harness broker start fails.

Project tooling, not Kafka behaviour. This module names the broker starters, so tests/markers.py marks it
`broker` (rule 2) and it runs in the full run only; it starts no broker (each start is refused first).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest

from pyconnect.testing.brokers import NO_BROKERS_ENV, start_broker, start_tansu
from tests.harness.txn_brokers import start_txn_broker
from tests.harness.workers import REPO


@pytest.mark.parametrize("start", [lambda: start_broker("fast", 0), lambda: start_tansu("fast"),
                                   lambda: start_txn_broker("fast", 0)])
def test_a_broker_start_fails_in_the_broker_free_run(monkeypatch: pytest.MonkeyPatch,
                                                     start: Callable[[], object]) -> None:
    monkeypatch.setenv(NO_BROKERS_ENV, "1")
    with pytest.raises(RuntimeError, match="must be marked `broker`"):
        start()




def test_a_command_the_test_runs_inherits_the_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(NO_BROKERS_ENV, "1")
    out = subprocess.run([sys.executable, "-m", "replikafka", "local-broker", "--port", "0"], cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1, (out.returncode, out.stderr)
    assert "this run starts no brokers" in out.stderr and "Traceback" not in out.stderr, out.stderr
