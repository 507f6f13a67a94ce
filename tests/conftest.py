"""Shared fixtures: real brokers and worker clusters, cleaned up after each test.

Also the suite's markers (tests/markers.py): every test that starts a broker is marked `broker`, so
`scripts/test.sh --fast` can run the rest; rate- and timing-sensitive tests are marked `serial`; and the
Hypothesis profile (tests/hypothesis_profiles.py) is loaded here, before any property runs.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

import pytest

from tests import hypothesis_profiles, markers
from tests.harness import failure_logs
from tests.harness.brokers import Broker, start_broker
from tests.harness.txn_brokers import start_txn_broker
from tests.harness.workers import Cluster

hypothesis_profiles.load()


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: it must see the markers added here
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    markers.mark_items(items)


@pytest.fixture(scope="session")
def broker() -> Iterator[Broker]:
    b = start_broker("A", 0)
    yield b
    b.stop()


@pytest.fixture(scope="session")
def broker_b() -> Iterator[Broker]:
    b = start_broker("B", 1)
    yield b
    b.stop()


@pytest.fixture
def unique() -> str:
    return uuid.uuid4().hex[:8]


@pytest.fixture
def cluster_factory(broker: Broker, tmp_path: Path, unique: str) -> Iterator[Callable[..., Cluster]]:
    clusters: list[Cluster] = []

    def make(group: str | None = None, extra: dict[str, str] | None = None, on: Broker | None = None) -> Cluster:
        c = Cluster(on or broker, tmp_path, group or f"g-{unique}-{len(clusters)}", extra)
        clusters.append(c)
        return c

    yield make
    for c in clusters:
        c.close()


def _txn_broker(name: str, index: int) -> Iterator[Broker]:
    b, proxy = start_txn_broker(name, index)
    yield b
    b.stop()
    if proxy is not None:
        proxy.close()


@pytest.fixture(scope="session")
def txn_broker() -> Iterator[Broker]:
    """Cluster A for exactly-once tests: on Tansu, behind the read_committed proxy (harness/txn_proxy.py)."""
    yield from _txn_broker("TA", 0)


@pytest.fixture(scope="session")
def txn_broker_b() -> Iterator[Broker]:
    """Cluster B for exactly-once tests (see txn_broker)."""
    yield from _txn_broker("TB", 1)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                               ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed test's report carries what its processes logged (tests/harness/failure_logs.py)."""
    rep = yield
    tmp = getattr(item, "funcargs", {}).get("tmp_path")
    if rep.failed and call.when == "call" and isinstance(tmp, Path) and tmp.is_dir():
        text = failure_logs.report(tmp)
        if text:
            rep.sections.append(("logs of the test's processes", text))
    return rep
