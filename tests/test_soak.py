"""Soaks: MirrorSource on a three-worker cluster while records keep arriving and workers die.

- `test_soak_restarts_while_streaming` (slow): workers restarted in turn, alternately with SIGTERM and kill -9,
  for `REPLIKAFKA_SOAK_SECONDS` (default 300).
- `test_random_kills` (slow): 20 kill -9 of random workers in 10 minutes.
- `test_random_kills_short` (default suite): the same for 80 s, a kill due every 25 s; a kill waits for the
  previous one's recovery (the dead worker's session timeout, then the tasks' restart), so 2 or 3 fit.

What must hold is in tests/harness/soak.py: nothing lost, order kept per partition, duplicates within the
uncommitted windows of the kills, everything RUNNING at the end.
"""

from __future__ import annotations

from typing import Any

import pytest

from pyconnect.environment import env_value
from tests.harness.brokers import Broker
from tests.harness.soak import alternate, random_kills, run_soak

SOAK_SECONDS = float(env_value("SOAK_SECONDS", "300"))
SEED = int(env_value("SOAK_SEED", "1119"))


@pytest.mark.slow
@pytest.mark.timeout(int(SOAK_SECONDS) + 900)
def test_soak_restarts_while_streaming(cluster_factory: Any, broker: Broker, broker_b: Broker, unique: str) -> None:
    run_soak(cluster_factory, broker, broker_b, unique, SOAK_SECONDS, 40.0, alternate)


@pytest.mark.slow
@pytest.mark.timeout(600 + 900)
def test_random_kills(cluster_factory: Any, broker: Broker, broker_b: Broker, unique: str) -> None:
    print(f"seed {SEED}")
    # A kill due every 600/21 s: 20 fit before the end (at 30 s, 19 did: the 20th fell due at the end).
    run_soak(cluster_factory, broker, broker_b, unique, 600.0, 600.0 / 21, random_kills(SEED))


@pytest.mark.timeout(80 + 600)
def test_random_kills_short(cluster_factory: Any, broker: Broker, broker_b: Broker, unique: str) -> None:
    print(f"seed {SEED}")
    # ~400 rec/s (bursts of 40), so each kill's uncommitted window is counted quickly.
    run_soak(cluster_factory, broker, broker_b, unique, 80.0, 25.0, random_kills(SEED), burst=40)
