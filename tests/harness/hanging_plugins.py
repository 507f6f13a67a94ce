"""Plugins that hang: a connector whose start never returns, and a task whose poll never returns.

For isolation tests (tests/test_isolation.py): a worker running them beside healthy connectors must not let them
delay its membership, its REST API or any other connector or task. Workers load them by their Python paths.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from pyconnect.api import SourceRecord, SourceTask
from tests.harness.failing_plugins import AlwaysFailingSourceConnector

HANGING_START = "tests.harness.hanging_plugins:HangingStartConnector"
HANGING_POLL = "tests.harness.hanging_plugins:HangingPollConnector"

_NEVER = threading.Event()  # never set: waiting on it blocks for good


class HangingPollTask(SourceTask):
    """Starts, then blocks forever in its first poll (and ignores stop, as a plugin stuck in a call would)."""

    def start(self, config: Mapping[str, str]) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        _NEVER.wait()
        return None

    def stop(self) -> None:
        pass


class HangingPollConnector(AlwaysFailingSourceConnector):
    """One task that hangs in poll; the connector itself runs."""

    def task_class(self) -> type[SourceTask]:
        return HangingPollTask


class HangingStartConnector(HangingPollConnector):
    """A connector whose start never returns."""

    def start(self, config: Any) -> None:
        _NEVER.wait()
