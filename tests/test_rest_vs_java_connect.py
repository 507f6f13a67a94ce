"""The REST API diffed against a running Java Kafka Connect worker: one sequence of calls (tests/harness/
rest_sequence.py: plugins, validate, create, list and expand, status, config, tasks, topics, pause, resume,
restart with includeTasks/onlyFailed, stop, offsets GET/PATCH/DELETE, loggers, and the 404, 405, 409, 400
and malformed-JSON cases) against Java's ConnectDistributed and against `replikafka distributed`, one after
the other on one Apache Kafka 4.x node, compared by status and body shape field by field.

Every difference must be one of KNOWN_DIFFERENCES, each with the reason the docs give ("REST API differences
from Kafka Connect" in docs/internals/compatibility.md); a new difference, or a known one that went away,
fails the test with the whole diff table.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pyconnect.testing.kafka_jvm import KafkaBroker, start_kafka_jvm
from tests.harness.brokers import free_port
from tests.harness.java_peers import start_java_connect
from tests.harness.rest_diff import Answer, diff, shape_differences, shape_of, table
from tests.harness.rest_sequence import MAPS, run_sequence
from tests.harness.workers import WorkerProcess, worker_properties

BAD_JSON = "Connect answers 500 with Jackson's parser message; a body that is not JSON is the client's error: 400"
OFFSETS_CHECK = ("replikafka's MirrorHeartbeatConnector does not check altered offsets yet (Connect's checks the "
                 "partition keys and that the offset is 0; it then answers 500 with the connector's message)")
ORDER = ("Connect 4.x names the field `order_in_group`; Connect 3.x (and the compatibility spec) `order`: "
         "replikafka answers 3.x's name")
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {
    **{(label, path): ORDER for label, prefix in (
        ("GET /connector-plugins/MirrorHeartbeatConnector/config", "$[]"),
        ("validate: valid", "$.configs[].definition"), ("validate: tasks.max=x", "$.configs[].definition"))
       for path in (f"{prefix}.order", f"{prefix}.order_in_group")},
    ("validate: no connector.class", "status"):
        "Connect wraps its own BadRequestException in a 500 here (its message says so); replikafka answers 400",
    ("validate: malformed JSON", "status"): BAD_JSON,
    ("update config: malformed JSON", "status"): BAD_JSON,
    ("alter offsets: malformed JSON", "status"): BAD_JSON,
    ("create: malformed JSON", "status"): BAD_JSON,
    **{(label, path): OFFSETS_CHECK for label in (
        "alter offsets: offset not a number", "alter offsets: unknown partition keys")
       for path in ("status", "$.error_code")},
}


@pytest.fixture(scope="module")
def kafka() -> Iterator[KafkaBroker]:
    node = start_kafka_jvm("rest-diff", version="4")
    yield node
    node.stop()


def java_answers(kafka: KafkaBroker, directory: Path) -> list[Answer]:
    worker = start_java_connect(kafka, directory / "java", "java-connect")
    try:
        return run_sequence(worker.url, kafka.bootstrap)
    finally:
        worker.stop()


def our_answers(kafka: KafkaBroker, directory: Path) -> list[Answer]:
    directory.mkdir(exist_ok=True)
    worker = WorkerProcess(directory, worker_properties(kafka, "replikafka-connect", free_port()), "replikafka")
    worker.start().wait_ready(90)
    try:
        return run_sequence(worker.url, kafka.bootstrap)
    finally:
        worker.terminate()


def test_rest_answers_match_java_connect_by_status_and_shape(kafka: KafkaBroker, tmp_path: Path) -> None:
    """Java first, then ours (one Connect worker at a time beside the broker on 2 cores); the diff table is
    printed and written beside the logs."""
    java = java_answers(kafka, tmp_path)  # a fresh group per worker: their internal topics never mix
    ours = our_answers(kafka, tmp_path / "ours")
    differences = diff(java, ours, MAPS)
    rendered = table(differences, KNOWN_DIFFERENCES)
    (tmp_path / "rest-diff.md").write_text(f"Measured against Kafka Connect {kafka.version}\n\n{rendered}\n")
    print(f"\n{len(java)} calls, {len(differences)} differences (Connect {kafka.version}):\n{rendered}")
    print(f"seconds in all: Connect {sum(a.seconds for a in java):.1f}, replikafka {sum(a.seconds for a in ours):.1f};"
          " slowest calls (Connect / replikafka s):")
    for theirs, mine in sorted(zip(java, ours, strict=True), key=lambda p: -max(p[0].seconds, p[1].seconds))[:6]:
        print(f"  {theirs.label}: {theirs.seconds:.1f} / {mine.seconds:.1f}")
    found = {(d.label, d.path) for d in differences}
    assert found == set(KNOWN_DIFFERENCES), (
        f"unexplained: {sorted(found - set(KNOWN_DIFFERENCES))}; gone: {sorted(set(KNOWN_DIFFERENCES) - found)}"
        f"\n{rendered}")


def test_a_shape_difference_names_the_field_and_both_types() -> None:
    """The diff sees a missing key, an extra key and a changed type, and ignores values and list lengths."""
    java = shape_of({"name": "a", "tasks": [{"id": 0}, {"id": 1}], "order_in_group": 1, "trace": None})
    ours = shape_of({"name": "b", "tasks": [{"id": "0"}], "order": 1, "trace": None})
    found = {(d.path, d.java, d.ours) for d in shape_differences("x", java, ours)}
    assert found == {("$.order", "(absent)", "int"), ("$.order_in_group", "int", "(absent)"),
                     ("$.tasks[].id", "int", "str")}
