"""Source-side error handling: a transform failing on some records of a source connector. With
`errors.tolerance=all` those records are skipped (logged with errors.log.enable), the rest are written in order,
and the source offsets commit past the skipped ones; without, the task fails with the transform's error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.harness.connectors import all_running, status
from tests.harness.kafka_io import create_topic, read_messages
from tests.harness.workers import wait_for

LINES = [str(i) if i % 10 != 3 else f"not-a-number-{i}" for i in range(200)]


def _file_source(name: str, path: Path, topic: str, **extra: str) -> dict[str, Any]:
    return {"name": name, "config": {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "file": str(path),
        "topic": topic, "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false", "transforms": "toInt",
        "transforms.toInt.type": "org.apache.kafka.connect.transforms.Cast$Value", "transforms.toInt.spec": "int32",
        **extra}}


def test_tolerated_transform_failures_skip_records_and_commit_past_them(cluster_factory: Any, broker: Any,
                                                                         unique: str, tmp_path: Path) -> None:
    topic, source = f"ints-{unique}", tmp_path / "numbers.txt"
    create_topic(broker.bootstrap, topic, 1)
    source.write_text("".join(f"{line}\n" for line in LINES))
    (w,) = cluster_factory().start(1)
    body = _file_source("ints", source, topic, **{"errors.tolerance": "all", "errors.log.enable": "true",
                                                  "errors.log.include.messages": "true"})
    assert w.request("POST", "/connectors", body).status_code == 201
    good = [line for line in LINES if line.isdigit()]
    records = read_messages(broker.bootstrap, topic, expect=len(good), timeout=60)
    assert [m.value() for m in records] == [line.encode() for line in good], "in order, the bad ones skipped"
    size = source.stat().st_size
    wait_for(lambda: any(o["offset"] == {"position": size}
                         for o in w.request("GET", "/connectors/ints/offsets").json()["offsets"]), 30,
             "the committed position at the end of the file, past the skipped lines")
    assert all_running(w, "ints", 1), status(w, "ints")
    log = w.log_path.read_text()
    assert "Error encountered in task ints-0. Executing stage 'TRANSFORMATION' with class " \
           "'org.apache.kafka.connect.transforms.Cast$Value'" in log, log[-3000:]


def test_without_tolerance_a_failing_transform_fails_the_task(cluster_factory: Any, broker: Any, unique: str,
                                                               tmp_path: Path) -> None:
    topic, source = f"ints-{unique}", tmp_path / "numbers.txt"
    create_topic(broker.bootstrap, topic, 1)
    source.write_text("1\n2\nthree\n4\n")
    (w,) = cluster_factory().start(1)
    assert w.request("POST", "/connectors", _file_source("strict", source, topic)).status_code == 201
    failed = wait_for(lambda: (lambda s: s if s.get("tasks") and s["tasks"][0]["state"] == "FAILED" else None)(
        status(w, "strict")), 60, "the task FAILED")
    assert "three" in failed["tasks"][0]["trace"] and "DataException" in failed["tasks"][0]["trace"]
