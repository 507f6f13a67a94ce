"""Shared fixtures: real brokers and worker clusters, cleaned up after each test."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.harness.brokers import Broker, start_broker
from tests.harness.workers import Cluster


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
