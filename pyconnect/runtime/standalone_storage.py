"""Where a standalone worker keeps its state (Connect's StandaloneHerder + FileOffsetBackingStore).

Source offsets go to the file `offset.storage.file.filename` (a FileLog), so a restarted worker
resumes its source tasks where they left off. Connector configs, task configs, statuses and the
membership of the worker's one-member cluster live in memory (compacted in-memory logs): as in
Connect's standalone herder, connectors come from the properties files (and REST) at every start.
"""

from __future__ import annotations

import os
from pathlib import Path

from pyconnect.config.properties import ConfigFileError
from pyconnect.config.standalone import OFFSET_STORAGE_FILE_FILENAME, StandaloneConfig
from pyconnect.runtime.internal_topics import LogFactory
from pyconnect.storage.compacted_memory_log import CompactedMemoryLog
from pyconnect.storage.file_log import FileLog
from pyconnect.storage.log import Log


def check_offsets_file(config: StandaloneConfig) -> Path:
    """The offsets file's path; ConfigFileError naming the key if its directory cannot hold it."""
    path = Path(config.offsets_file)
    directory = path.parent
    problem = None
    if not directory.is_dir():
        problem = f"the directory {directory} does not exist"
    elif path.is_dir():
        problem = f"{path} is a directory"
    elif path.exists() and not (path.is_file() and _readable_writable(path)):
        problem = f"{path} is not a readable and writable file"
    elif not path.exists() and not _readable_writable(directory):
        problem = f"no permission to create files in {directory}"
    if problem:
        raise _error(config, f"File to store offset data in: {problem}")
    return path


def _readable_writable(path: Path) -> bool:
    return os.access(path, os.R_OK | os.W_OK | (os.X_OK if path.is_dir() else 0))


def _error(config: StandaloneConfig, reason: str) -> ConfigFileError:
    if config.source is not None:
        return config.source.error(OFFSET_STORAGE_FILE_FILENAME, reason)
    return ConfigFileError("<config>", None, OFFSET_STORAGE_FILE_FILENAME, reason)


def standalone_log_factory(config: StandaloneConfig) -> LogFactory:
    """The Worker's log factory: a FileLog for the offsets store, compacted in-memory logs for the rest."""
    offsets_file = check_offsets_file(config)
    offsets_topic = config.settings.offset_storage_topic

    def factory(topic: str, default_partitions: int) -> Log:
        if topic == offsets_topic:
            return FileLog(offsets_file, default_partitions)
        return CompactedMemoryLog(default_partitions)
    return factory
