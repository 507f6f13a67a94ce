"""Which Apache Kafka the test bed runs: the version lanes, the jar cache and the Java runtime.

Invariants:
- `scripts/kafka-versions` is the one place a version is pinned; scripts/fetch-kafka.sh fetches what it names
  into `<cache>/kafka-<version>/libs` and writes a `.fetched-*` stamp only once every jar is there, so a
  version counts as present exactly when a stamp exists (a half-fetched directory is never run).
- Nothing here calls Maven: a missing version is a one-sentence error naming the command that fetches it.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from pyconnect.environment import env_value

VERSIONS_FILE = Path(__file__).resolve().parents[2] / "scripts" / "kafka-versions"
DEFAULT_LANE = "4"


@dataclass(frozen=True)
class KafkaDistribution:
    """One fetched Apache Kafka version: its jars and how it is logged."""

    version: str
    libs: Path

    @property
    def major(self) -> int:
        return int(self.version.split(".", 1)[0])

    @property
    def classpath(self) -> str:
        return f"{self.libs}/*"  # the JVM expands the wildcard itself


def lanes() -> dict[str, str]:
    """`scripts/kafka-versions` as {lane: version}."""
    if not VERSIONS_FILE.is_file():
        raise RuntimeError(f"{VERSIONS_FILE} is missing: the Apache Kafka test bed runs from a source checkout")
    found: dict[str, str] = {}
    for line in VERSIONS_FILE.read_text(encoding="utf-8").splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) == 2:
            found[fields[0]] = fields[1]
    return found


def cache_dir() -> Path:
    return Path(env_value("KAFKA_CACHE") or Path.home() / ".cache" / "replikafka")


def distribution(wanted: str | None = None) -> KafkaDistribution:
    """The fetched Kafka for `wanted` (a lane or a version of scripts/kafka-versions), by default the one
    REPLIKAFKA_TEST_KAFKA_VERSION names, else the 4.x lane."""
    wanted = wanted or env_value("TEST_KAFKA_VERSION") or DEFAULT_LANE
    known = lanes()
    version = known.get(wanted) or (wanted if wanted in known.values() else None)
    if version is None:
        choices = ", ".join(f"{lane} ({v})" for lane, v in known.items())
        raise RuntimeError(f"Apache Kafka '{wanted}' is not in scripts/kafka-versions; choose one of: {choices}")
    home = cache_dir() / f"kafka-{version}"
    if not any(home.glob(".fetched-*")):
        raise RuntimeError(f"Apache Kafka {version} is not fetched into {home}: run `bash scripts/fetch-kafka.sh`")
    return KafkaDistribution(version, home / "libs")


def java_binary() -> str:
    """The `java` of JAVA_HOME, else the one on PATH (Kafka 4.x needs Java 17 or newer)."""
    home = os.environ.get("JAVA_HOME")
    candidate = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not candidate or not Path(candidate).is_file():
        raise RuntimeError("Apache Kafka needs Java 17 or newer, and no `java` was found (JAVA_HOME or PATH)")
    return candidate
