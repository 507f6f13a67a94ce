"""The herder's narrow view of the worker it serves: the stores it reads and writes, the plugins and worker
config it validates against, leadership and health facts, and the one operation it asks of the worker
itself (restart a task it runs). `pyconnect.runtime.worker.Worker` satisfies it; nothing else of the
worker (its loop, runners, leader duties) is the herder's business.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Protocol

from pyconnect.api.task_id import TaskId
from pyconnect.config.worker import WorkerConfig
from pyconnect.plugins import PluginRegistry
from pyconnect.runtime.cluster.membership import Assignment
from pyconnect.runtime.cluster.worker_identity import Member
from pyconnect.runtime.logs.loggers import LogLevels
from pyconnect.runtime.logs.worker_scope import WorkerScope
from pyconnect.storage.config_store import ConfigStore
from pyconnect.storage.offset_store import OffsetStore
from pyconnect.storage.status_store import StatusStore


class MembershipView(Protocol):
    """What the herder asks of the worker's cluster membership: who leads, who owns a task, and health."""

    @property
    def session_timeout(self) -> float: ...

    @property
    def assignment(self) -> Assignment | None: ...

    @property
    def fenced(self) -> str | None: ...

    def is_leader(self) -> bool: ...

    def leader_url(self) -> str | None: ...

    def await_leader(self, timeout: float) -> bool: ...

    def in_sync(self) -> bool: ...

    def live_members(self) -> Mapping[str, Member]: ...


class WorkerView(Protocol):
    """What the herder needs of one worker."""

    @property
    def configs(self) -> ConfigStore: ...

    @property
    def statuses(self) -> StatusStore: ...

    @property
    def offsets(self) -> OffsetStore: ...

    @property
    def plugins(self) -> PluginRegistry: ...

    @property
    def config(self) -> WorkerConfig: ...

    @property
    def membership(self) -> MembershipView: ...

    @property
    def cluster_id(self) -> str: ...

    @property
    def log_levels(self) -> LogLevels: ...

    @property
    def started(self) -> threading.Event: ...

    @property
    def scope(self) -> WorkerScope: ...

    def loop_alive(self, within: float = 30.0) -> bool:
        """False if the worker's main loop has not come round for `within` seconds."""
        ...

    def restart_task(self, task_id: TaskId) -> bool:
        """Restart a task this worker runs; False if it does not run it."""
        ...
