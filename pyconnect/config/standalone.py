"""A standalone worker's configuration (Connect's StandaloneConfig).

StandaloneConfig is WorkerConfig's base definition plus `offset.storage.file.filename`: it does not
define the keys of a distributed worker (group.id, the three storage topics, their partitions and
replication factors, the group protocol's timeouts, exactly.once.source.support). Such a key in a
standalone worker file is unknown there, so it is reported with a warning naming file and line and
has no effect. The runtime still reads a few of them (membership timeouts, internal store names); a
standalone worker sets them itself, and its stores are in memory or in the offsets file.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from pyconnect.api.config import ConfigDef, ConfigKey, ConfigType, Importance, non_empty_string
from pyconnect.config.properties import Properties
from pyconnect.config.worker import KNOWN_PREFIXES, WORKER_CONFIG, WorkerConfig

log = logging.getLogger(__name__)

OFFSET_STORAGE_FILE_FILENAME = "offset.storage.file.filename"

#: Keys only DistributedConfig defines (plus this runtime's membership topic, a distributed notion).
DISTRIBUTED_ONLY = frozenset({
    "group.id", "config.storage.topic", "offset.storage.topic", "status.storage.topic",
    "config.storage.replication.factor", "offset.storage.replication.factor", "status.storage.replication.factor",
    "config.storage.partitions", "offset.storage.partitions", "status.storage.partitions",
    "membership.storage.topic", "session.timeout.ms", "heartbeat.interval.ms", "rebalance.timeout.ms",
    "worker.sync.timeout.ms", "worker.unsync.backoff.ms", "scheduled.rebalance.max.delay.ms",
    "connect.protocol", "exactly.once.source.support",
})
# Prefixes of the internal topics' settings and of inter-worker traffic: distributed only, too.
_DISTRIBUTED_PREFIXES = ("config.storage.", "offset.storage.", "status.storage.", "inter.worker.", "worker.")

STANDALONE_CONFIG = ConfigDef([k for name, k in WORKER_CONFIG.keys.items() if name not in DISTRIBUTED_ONLY]).define(
    ConfigKey(OFFSET_STORAGE_FILE_FILENAME, ConfigType.STRING, importance=Importance.HIGH,
              documentation="File to store offset data in", validator=non_empty_string))

#: The internal stores' names in a standalone worker (they name in-memory logs and the offsets file's
#: store; no topic of these names is created).
STANDALONE_GROUP = "connect-standalone"
#: The membership session of the worker's one-member cluster (see StandaloneConfig._settings_values).
STANDALONE_SESSION_TIMEOUT_MS = 60000


class StandaloneConfig(WorkerConfig):
    """A standalone worker's settings: validated against STANDALONE_CONFIG."""

    definition: ClassVar[ConfigDef] = STANDALONE_CONFIG
    known_prefixes: ClassVar[tuple[str, ...]] = tuple(p for p in KNOWN_PREFIXES if p not in _DISTRIBUTED_PREFIXES)
    # Connect's StandaloneConfig keeps the default (false): every source offset goes to the file.
    connector_offsets_topics_permitted: ClassVar[bool] = False

    @property
    def offsets_file(self) -> str:
        """`offset.storage.file.filename`: where source offsets persist."""
        return str(self.values[OFFSET_STORAGE_FILE_FILENAME])

    def _warn_unknown(self, keys: Iterable[str]) -> None:
        keys = list(keys)
        for key in keys:
            if key in DISTRIBUTED_ONLY:
                log.warning("%s%r is a distributed worker setting; a standalone worker ignores it",
                            self.where(key), key)
        super()._warn_unknown(k for k in keys if k not in DISTRIBUTED_ONLY)

    def _settings_values(self, values: Mapping[str, Any]) -> Mapping[str, Any]:
        # The distributed keys the runtime reads, at their defaults; the stores get standalone names.
        filled = {name: WORKER_CONFIG.keys[name].default for name in DISTRIBUTED_ONLY}
        filled.update({
            "group.id": STANDALONE_GROUP,
            "config.storage.topic": f"{STANDALONE_GROUP}-configs",
            "offset.storage.topic": f"{STANDALONE_GROUP}-offsets",
            "status.storage.topic": f"{STANDALONE_GROUP}-status",
            "membership.storage.topic": f"{STANDALONE_GROUP}-membership",
            "offset.storage.partitions": 1, "status.storage.partitions": 1,
            # No other worker can take over: a worker loop stalled for a distributed session timeout would
            # only stop and restart every task (self-fencing); a minute of tolerance keeps them running.
            "session.timeout.ms": STANDALONE_SESSION_TIMEOUT_MS,
        })
        return {**values, **filled}


def load_standalone_config(props: Properties) -> StandaloneConfig:
    """A standalone worker file's config; ConfigFileError (file, line, key) if it is not valid."""
    return StandaloneConfig(props.values(), props)
