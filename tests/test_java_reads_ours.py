"""Java MirrorMaker 2's own code reads what replikafka's MirrorMaker 2 wrote, on two Apache Kafka 4.x nodes.

replikafka (dedicated mode, A->B, DefaultReplicationPolicy, offset.lag.max 100) copies a 3-partition topic
and checkpoints groups committed on A at offsets on and between its offset syncs, at the start and the end,
some on a subset of the partitions. Then:

1. Java's `RemoteClusterUtils.translateOffsets` (tests/java/TranslateOffsets.java, compiled against the
   Kafka jars) reads our checkpoints topic and gives every group exactly what `replikafka offsets
   translate` gives (per group and with --group-regex), which is the group's true position on B.
2. Java's MirrorCheckpointConnector (in a Java Connect worker, after our checkpoints topic is deleted so the
   two writers never share it) reads our offset syncs and checkpoints the same (group, partition, upstream
   offset) set. Its downstream offsets equal ours where a sync sits at the group's offset; between syncs
   Java translates one past the sync before, ours exactly (docs/internals/compatibility.md, "Deliberately
   different"): Java's is then below ours, never above, and ours is the true position. Java's offsets are
   exactly what Java's rule gives from our syncs as read off the syncs topic: it reads them as its own.
Test 2 replaces the checkpoints topic, so it comes after test 1 (pytest runs a file's tests in order).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from pyconnect.testing.kafka_jvm import KafkaBroker
from replikafka.cli import main
from tests.harness.brokers import free_port
from tests.harness.checkpoints import checkpoint_config
from tests.harness.java_mm2_state import Checkpoint, OffsetSync
from tests.harness.java_peers import start_java_connect
from tests.harness.javac import compile_java, run_java
from tests.harness.kafka_io import create_topic, produce_many, read_to_end, topic_names
from tests.harness.kafka_pair import kafka_pair
from tests.harness.mirror import cluster_lines, mm2_settings
from tests.harness.mm2_compat import (
    Commits,
    Key,
    Truth,
    commit_groups,
    latest_checkpoints,
    start_replikafka_mm2,
    stop_process,
    wait_copied,
)
from tests.harness.workers import REPO, wait_for

TOPIC, REMOTE, PARTITIONS, RECORDS = "orders", "A.orders", 3, 600  # 200 records per partition
CHECKPOINTS, SYNCS = "A.checkpoints.internal", "mm2-offset-syncs.B.internal"
# Committed offsets: the start, next to the syncs offset.lag.max forces (0, 101, ...), between them, the end.
OFFSETS = (0, 1, 37, 100, 101, 102, 150, 199, 200)
TIMEOUT = 150.0  # a JVM start, a first copy and a few checkpoint intervals on a loaded 2-core machine


def group_commits() -> Commits:
    commits = {f"jro-g{i}": {p: OFFSETS[(2 * i + 3 * p) % len(OFFSETS)] for p in range(PARTITIONS)} for i in range(6)}
    commits["jro-partial"] = {0: 120, 2: 200}  # a group that never read partition 1
    return commits


@dataclass
class OurRun:
    commits: Commits
    truth: Truth
    checkpoints: dict[Key, Checkpoint]  # ours, at the end of the run

    def expected(self) -> dict[Key, int]:
        """Every committed (group, remote topic, partition) and its true downstream position."""
        return {(g, REMOTE, p): self.truth.position(p, u) for g, offsets in self.commits.items()
                for p, u in offsets.items()}


@pytest.fixture(scope="module")
def clusters() -> Iterator[tuple[KafkaBroker, KafkaBroker]]:
    with kafka_pair("java-reads-ours", version="4") as pair:  # the Java peers are 4.x
        yield pair


def mm2_file(path: Path, a: KafkaBroker, b: KafkaBroker) -> Path:
    path.write_text(cluster_lines({"A": a, "B": b}) + mm2_settings({"A": a, "B": b}) + f"""
A->B.enabled = true
A->B.topics = {TOPIC}
A->B.groups = jro-.*
B->A.enabled = false
refresh.groups.interval.seconds = 1
listeners = http://127.0.0.1:{free_port()}
""")
    return path


@pytest.fixture(scope="module")
def ours(clusters: tuple[KafkaBroker, KafkaBroker], tmp_path_factory: pytest.TempPathFactory) -> OurRun:
    """replikafka copies and checkpoints until every group's checkpoint is its true position, then stops."""
    a, b = clusters
    directory = tmp_path_factory.mktemp("ours")
    create_topic(a.bootstrap, TOPIC, PARTITIONS)
    produce_many(a.bootstrap, TOPIC, RECORDS, PARTITIONS)
    commits = group_commits()
    commit_groups(a.bootstrap, TOPIC, commits)
    process = start_replikafka_mm2(mm2_file(directory / "mm2.properties", a, b), directory)
    try:
        copy = wait_copied(a.bootstrap, b.bootstrap, TOPIC, REMOTE, TIMEOUT)
        run = OurRun(commits, copy, {})

        def exact() -> dict[Key, Checkpoint]:
            found = latest_checkpoints(b.bootstrap, CHECKPOINTS)
            got = {key: found[key].downstream_offset for key in run.expected() if key in found}
            return found if got == run.expected() else {}
        run.checkpoints = wait_for(exact, TIMEOUT, "our checkpoints at every group's true position", interval=1.0)
    finally:
        stop_process(process)
    return run


def translate_command(bootstrap: str, *selector: str) -> list[str]:
    return ["offsets", "translate", "--target-bootstrap", bootstrap, "--source-alias", "A", *selector,
            "--format", "json"]


def cli_translate(bootstrap: str, *selector: str) -> object:
    """The command as a process (`python -m replikafka`): its JSON output."""
    done = subprocess.run([sys.executable, "-m", "replikafka", *translate_command(bootstrap, *selector)], cwd=REPO,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_java_translate_offsets_reads_our_checkpoints(clusters: tuple[KafkaBroker, KafkaBroker], ours: OurRun,
                                                     tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Follows MirrorConnectorsIntegrationBaseTest.testReplication's RemoteClusterUtils.translateOffsets calls.
    _a, b = clusters
    program = compile_java("TranslateOffsets", tmp_path / "classes")
    java: dict[str, dict[str, int]] = {group: {} for group in ours.commits}
    for line in run_java(program, b.bootstrap, "A", "30000", *ours.commits).splitlines():
        group, topic, partition, offset = line.split("\t")
        java[group][f"{topic}-{partition}"] = int(offset)
    per_group: dict[str, dict[str, int]] = {}
    for group in ours.commits:  # the command's entry point in this process: a process start per group is slow
        capsys.readouterr()
        assert main(translate_command(b.bootstrap, "--group", group)) == 0
        rows = json.loads(capsys.readouterr().out)
        per_group[group] = {f"{row['topic']}-{row['partition']}": row["offset"] for row in rows}
    print(f"Java translateOffsets: {json.dumps(java, sort_keys=True)}")
    assert per_group == java, f"replikafka offsets translate {per_group} != Java's {java}"
    assert cli_translate(b.bootstrap, "--group-regex", "jro-.*") == java
    expected = {g: {f"{t}-{p}": o for (g2, t, p), o in ours.expected().items() if g2 == g} for g in ours.commits}
    assert java == expected, "translations are not the groups' true positions on B"


def delete_topic(bootstrap: str, topic: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.delete_topics([topic])[topic].result(30)
    wait_for(lambda: topic not in topic_names(bootstrap), 60, f"{topic} deleted", interval=0.5)


def test_java_checkpoint_connector_on_our_offset_syncs(clusters: tuple[KafkaBroker, KafkaBroker], ours: OurRun,
                                                      tmp_path: Path) -> None:
    # Follows MirrorCheckpointTaskTest.testCheckpoint (translation of committed offsets through offset syncs),
    # end to end: our MirrorSource wrote the syncs, Java's MirrorCheckpointTask translates them.
    a, b = clusters
    delete_topic(b.bootstrap, CHECKPOINTS)  # ours are kept in `ours.checkpoints`; Java writes the topic anew
    worker = start_java_connect(b, tmp_path / "java-connect", "java-checkpoints")
    try:
        config = checkpoint_config(a, b, TOPIC, "jro-.*") | {
            "key.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
            "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter"}
        answer = worker.request("PUT", "/connectors/java-checkpoint/config", config)
        assert answer.status_code in (200, 201), answer.text
        began = time.monotonic()

        def covered() -> dict[Key, Checkpoint]:
            found = latest_checkpoints(b.bootstrap, CHECKPOINTS)
            return found if found.keys() >= ours.checkpoints.keys() else {}
        java = wait_for(covered, TIMEOUT, "Java's checkpoints for every group we checkpointed", interval=1.0)
        print(f"Java's checkpoints {time.monotonic() - began:.1f} s after the connector was created")
    finally:
        worker.stop()
    syncs = [OffsetSync.decode(k or b"", v or b"") for _p, _o, k, v in read_to_end(a.bootstrap, SYNCS)]
    compare_checkpoints(ours, java, [s for s in syncs if s.topic == TOPIC])


def java_rule(syncs: list[OffsetSync], partition: int, upstream: int) -> int:
    """Java's translation from every sync of the partition (compat-spec C.8): the newest sync at or below
    `upstream`, plus one unless it is exactly there."""
    below = [s for s in syncs if s.partition == partition and s.upstream_offset <= upstream]
    newest = max(below, key=lambda s: s.upstream_offset)
    return newest.downstream_offset + (newest.upstream_offset != upstream)


def compare_checkpoints(ours: OurRun, java: dict[Key, Checkpoint], syncs: list[OffsetSync]) -> None:
    print(f"our offset syncs: {sorted((s.partition, s.upstream_offset, s.downstream_offset) for s in syncs)}")
    expected = ours.expected()
    assert java.keys() == ours.checkpoints.keys() == expected.keys()
    equal = lower = 0
    for key, mine in sorted(ours.checkpoints.items()):
        theirs = java[key]
        assert (theirs.upstream_offset, theirs.metadata) == (mine.upstream_offset, mine.metadata), (key, theirs, mine)
        assert mine.downstream_offset == expected[key], (key, mine, expected[key])
        assert theirs.downstream_offset <= mine.downstream_offset, f"Java's {theirs} is past ours {mine}: a skip"
        assert theirs.downstream_offset == java_rule(syncs, key[2], mine.upstream_offset), (key, theirs)
        equal += theirs.downstream_offset == mine.downstream_offset
        lower += theirs.downstream_offset < mine.downstream_offset
        print(f"{key}: upstream {mine.upstream_offset} -> ours {mine.downstream_offset}, "
              f"Java {theirs.downstream_offset}")
    print(f"{equal} checkpoints equal, {lower} where Java re-reads more (between syncs)")
