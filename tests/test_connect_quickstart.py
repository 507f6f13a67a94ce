"""Connect's quickstart with Java class names — file source -> topic -> file sink, with HoistField
+ InsertField (the Connect docs' transform example) and a RegexRouter on the way — by curl on a distributed
worker, and from properties files in standalone mode. The output file holds every input line, transformed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.harness.connectors import all_running
from tests.harness.kafka_io import read_messages
from tests.harness.quickstart import WORKER_CONVERTERS, curl, expected_line, sink_config, source_config
from tests.harness.sinks import lines, sink_worker_extra
from tests.harness.standalone import StandaloneProcess, standalone_properties
from tests.harness.workers import wait_for


def test_quickstart_file_source_to_file_sink_by_curl(cluster_factory: Any, broker: Any, unique: str,
                                                     tmp_path: Path) -> None:
    (w,) = cluster_factory(extra={**WORKER_CONVERTERS, **sink_worker_extra(broker)}).start(1)
    source, sink = tmp_path / "test.txt", tmp_path / "test.sink.txt"
    first = [f"foo {i}" for i in range(100)] + ["bar", "héllo wörld"]
    source.write_text("".join(f"{line}\n" for line in first), encoding="utf-8")
    topic = f"connect-{unique}"
    code, body = curl("POST", f"{w.url}/connectors",
                      {"name": "local-file-source", "config": source_config("local-file-source", source, topic)})
    assert code == 201, body
    code, body = curl("POST", f"{w.url}/connectors", {"name": "local-file-sink",
                                                       "config": sink_config("local-file-sink", sink,
                                                                             f"quickstart-{unique}")})
    assert code == 201, body
    wait_for(lambda: all_running(w, "local-file-source", 1) and all_running(w, "local-file-sink", 1), 60,
             "both connectors RUNNING")
    wait_for(lambda: len(lines(sink)) >= len(first), 90, "every line through the sink")
    # Unkeyed records spread over the auto-created topic's partitions (Tansu makes 4), so order is per
    # partition only: compare as multisets.
    assert sorted(lines(sink)) == sorted(expected_line(line) for line in first)
    # The records on the renamed topic are what Java's JsonConverter writes for the struct.
    records = read_messages(w.props["bootstrap.servers"], f"quickstart-{unique}", expect=len(first))
    record = next(r for r in records if b'"foo 0"' in r.value())
    assert record.value() == (b'{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"line"},'
                              b'{"type":"string","optional":true,"field":"data_source"}],"optional":false},'
                              b'"payload":{"line":"foo 0","data_source":"test-file-source"}}')
    with open(source, "a", encoding="utf-8") as out:
        out.write("appended\n")
    wait_for(lambda: len(lines(sink)) > len(first), 60, "an appended line follows")
    assert lines(sink)[-1] == expected_line("appended")
    code, plugins = curl("GET", f"{w.url}/connector-plugins")
    assert {"class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "type": "sink"}.items() <= \
        next(p for p in plugins if p["class"].endswith("FileStreamSinkConnector")).items()


def test_quickstart_in_standalone_mode(broker: Any, unique: str, tmp_path: Path) -> None:
    """The same pipeline as `connect-standalone worker.properties connect-file-source.properties
    connect-file-sink.properties`; a SIGTERM and restart resumes both connectors without a repeated line."""
    source, sink = tmp_path / "test.txt", tmp_path / "test.sink.txt"
    first = [f"line {i}" for i in range(50)]
    source.write_text("".join(f"{line}\n" for line in first), encoding="utf-8")
    props = standalone_properties(broker, tmp_path / "connect.offsets",
                                  extra={**WORKER_CONVERTERS, **sink_worker_extra(broker)})
    connectors = {"local-file-source": source_config("local-file-source", source, f"connect-{unique}"),
                  "local-file-sink": sink_config("local-file-sink", sink, f"quickstart-{unique}")}
    worker = StandaloneProcess(tmp_path, props, connectors).start().wait_ready()
    try:
        wait_for(lambda: all_running(worker, "local-file-source", 1) and all_running(worker, "local-file-sink", 1),
                 60, "both connectors RUNNING")
        wait_for(lambda: len(lines(sink)) >= len(first), 90, "every line through the sink")
        assert worker.terminate() == 0
        with open(source, "a", encoding="utf-8") as out:
            out.write("after restart\n")
        worker = StandaloneProcess(tmp_path, props, connectors).start().wait_ready()
        wait_for(lambda: len(lines(sink)) > len(first), 90, "the line appended while stopped")
    finally:
        worker.terminate()
    assert sorted(lines(sink)) == sorted(expected_line(line) for line in [*first, "after restart"])
