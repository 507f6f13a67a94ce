"""Standalone mode on a real broker: `python -m replikafka standalone worker.properties connector.properties`,
its offsets file across kill -9 and graceful restarts, and the inputs it refuses."""

from __future__ import annotations

import collections
from pathlib import Path

from tests.harness.brokers import Broker, free_port
from tests.harness.connectors import all_running, committed, status
from tests.harness.kafka_io import read_all, read_to_end
from tests.harness.standalone import StandaloneProcess, run_standalone, standalone_properties
from tests.harness.workers import wait_for, write_properties

RATE = 300.0  # records per second per task
FLUSH_INTERVAL = 1.0  # offset.flush.interval.ms of standalone_properties, in seconds


def sequence_file(name: str, topic: str, tasks: int, count: int) -> dict[str, str]:
    """A connector properties file for the SequenceSourceConnector."""
    return {"name": name, "connector.class": "SequenceSourceConnector", "topic": topic, "tasks.max": str(tasks),
            "count": str(count), "rate": str(RATE)}


def sequences(records: list[tuple[int, int, bytes | None, bytes | None]]) -> dict[int, collections.Counter[int]]:
    """task -> Counter of the sequence numbers it wrote."""
    out: dict[int, collections.Counter[int]] = collections.defaultdict(collections.Counter)
    for *_, value in records:
        task, seq = (value or b"").decode().split(":")
        out[int(task)][int(seq)] += 1
    return out


def assert_complete(per_task: dict[int, collections.Counter[int]], tasks: int, count: int) -> None:
    for task in range(tasks):
        missing = [n for n in range(count) if per_task[task][n] == 0]
        assert not missing, f"task {task}: {len(missing)} sequence numbers missing, e.g. {missing[:5]}"


def complete(broker: Broker, topic: str, tasks: int, count: int) -> bool:
    return len({r[3] for r in read_to_end(broker.bootstrap, topic)}) >= tasks * count


def start(tmp_path: Path, broker: Broker, offsets: Path, connectors: dict[str, dict[str, str]],
          port: int | None = None) -> StandaloneProcess:
    worker = StandaloneProcess(tmp_path, standalone_properties(broker, offsets, port), connectors).start()
    worker.wait_ready()
    return worker


def test_runs_a_source_connector_with_rest_status(broker: Broker, tmp_path: Path, unique: str) -> None:
    """A standalone worker runs the connectors of its files; REST reports them and acts on them."""
    topic = f"alone-{unique}"
    worker = start(tmp_path, broker, tmp_path / "offsets.dat", {"seq": sequence_file("seq", topic, 2, 100)})
    try:
        st = wait_for(lambda: all_running(worker, "seq", 2), 60, "connector and 2 tasks RUNNING")
        assert {t["worker_id"] for t in st["tasks"]} == {worker.worker_id}
        assert worker.request("GET", "/connectors").json() == ["seq"]
        wait_for(lambda: complete(broker, topic, 2, 100), 60, "both sequences written")
        wait_for(lambda: committed(worker, "seq") == 200, 30, "offsets of both sequences committed")
        assert worker.request("PUT", "/connectors/seq/pause").status_code == 202
        wait_for(lambda: status(worker, "seq").get("connector", {}).get("state") == "PAUSED", 30, "PAUSED")
        # A config PUT acts on the in-memory config: more records for the same tasks.
        changed = {**sequence_file("seq", topic, 2, 150)}
        assert worker.request("PUT", "/connectors/seq/config", changed).status_code == 200
        assert worker.request("PUT", "/connectors/seq/resume").status_code == 202
        wait_for(lambda: complete(broker, topic, 2, 150), 60, "the longer sequences written")
        assert_complete(sequences(read_all(broker.bootstrap, topic)), 2, 150)
        # A second process on the same offsets file is refused: the file is locked while in use. (On its own REST
        # port: with the same port it stops earlier, at the bind, as test_rest_bind shows.)
        other = write_properties(tmp_path / "second.properties",
                                 {**worker.props, "listeners": f"http://127.0.0.1:{free_port()}"})
        second = run_standalone([str(other)])
        assert second.returncode == 2, second.stderr
        assert f"{other}:2: offset.storage.file.filename: {tmp_path / 'offsets.dat'} is in use by " \
               "another process" in second.stderr
    finally:
        assert worker.terminate() == 0, worker.log_tail()
    assert (tmp_path / "offsets.dat").read_bytes().startswith(b"pyconnect-file-log 1\n")


def test_kill_9_resumes_from_the_offsets_file(broker: Broker, tmp_path: Path, unique: str) -> None:
    """After kill -9 a restart with the same offsets file resumes from the committed offsets: no gap, and the
    duplicates of each task are one run of what was sent after its last offset flush."""
    topic, count, tasks = f"alone-kill-{unique}", 3000, 2
    offsets, connectors = tmp_path / "offsets.dat", {"seq": sequence_file("seq", topic, tasks, count)}
    worker = start(tmp_path, broker, offsets, connectors)
    wait_for(lambda: committed(worker, "seq") >= 600, 60, "part of the sequences committed")
    worker.kill()
    before = sequences(read_all(broker.bootstrap, topic))
    assert sum(len(c) for c in before.values()) < tasks * count, "kill the worker mid-sequence"

    again = start(tmp_path, broker, offsets, connectors)
    try:
        wait_for(lambda: complete(broker, topic, tasks, count), 120, "both sequences written")
    finally:
        assert again.terminate() == 0, again.log_tail()
    per_task = sequences(read_all(broker.bootstrap, topic))
    assert_complete(per_task, tasks, count)
    for task, seen in per_task.items():
        dups = sorted(n for n, c in seen.items() if c > 1)
        assert all(seen[n] == 2 for n in dups), f"task {task}: a record written three times"
        if dups:
            assert dups == list(range(dups[0], dups[-1] + 1)), f"task {task}: duplicates are not one run"
            # What a task sends within one flush interval (plus the commit's own latency).
            assert len(dups) <= RATE * (FLUSH_INTERVAL + 0.5), f"task {task}: {len(dups)} duplicates"


def test_graceful_stop_then_restart_has_no_duplicates(broker: Broker, tmp_path: Path, unique: str) -> None:
    """SIGTERM flushes the tasks' last offsets to the file: a restart resumes exactly."""
    topic, count, tasks = f"alone-term-{unique}", 2000, 2
    offsets, connectors = tmp_path / "offsets.dat", {"seq": sequence_file("seq", topic, tasks, count)}
    worker = start(tmp_path, broker, offsets, connectors)
    wait_for(lambda: committed(worker, "seq") >= 400, 60, "part of the sequences committed")
    assert worker.terminate() == 0, worker.log_tail()
    assert 0 < len(read_all(broker.bootstrap, topic)) < tasks * count, "stop the worker mid-sequence"

    again = start(tmp_path, broker, offsets, connectors)
    try:
        wait_for(lambda: complete(broker, topic, tasks, count), 120, "both sequences written")
        wait_for(lambda: committed(again, "seq") == tasks * count, 30, "every offset committed")
    finally:
        assert again.terminate() == 0, again.log_tail()
    per_task = sequences(read_all(broker.bootstrap, topic))
    assert_complete(per_task, tasks, count)
    dups = {task: sorted(n for n, c in seen.items() if c > 1) for task, seen in per_task.items()}
    assert all(not d for d in dups.values()), f"duplicates after a graceful restart: {dups}"


def test_missing_offsets_file_setting_exits_2(broker: Broker, tmp_path: Path) -> None:
    props = standalone_properties(broker, tmp_path / "unused")
    del props["offset.storage.file.filename"]
    worker_file = write_properties(tmp_path / "worker.properties", props)
    result = run_standalone([str(worker_file), str(write_properties(tmp_path / "c.properties",
                                                                    sequence_file("c", "t", 1, 1)))])
    assert result.returncode == 2, result.stderr
    assert f"{worker_file}: offset.storage.file.filename: Missing required configuration " \
           f"\"offset.storage.file.filename\" which has no default value." in result.stderr


def test_unknown_connector_class_exits_2_with_connects_message(broker: Broker, tmp_path: Path) -> None:
    worker_file = write_properties(tmp_path / "worker.properties",
                                   standalone_properties(broker, tmp_path / "offsets.dat"))
    connector_file = write_properties(tmp_path / "bad.properties",
                                      {"name": "bad", "connector.class": "com.example.NoSuchConnector"})
    result = run_standalone([str(worker_file), str(connector_file)])
    assert result.returncode == 2, result.stderr
    assert f"error: {connector_file}: Failed to find any class that implements Connector and which name matches " \
           "com.example.NoSuchConnector" in result.stderr


def test_connector_file_without_name_exits_2(broker: Broker, tmp_path: Path) -> None:
    """ConnectStandalone.parseConnectorConfigurationFile: a file must name its connector."""
    worker_file = write_properties(tmp_path / "worker.properties",
                                   standalone_properties(broker, tmp_path / "offsets.dat"))
    connector_file = write_properties(tmp_path / "anon.properties", {"connector.class": "SequenceSourceConnector"})
    result = run_standalone([str(worker_file), str(connector_file)])
    assert result.returncode == 2, result.stderr
    assert f"Connector configuration at '{connector_file}' is missing the mandatory 'name' configuration" \
        in result.stderr


def test_two_files_naming_one_connector_exit_2(broker: Broker, tmp_path: Path) -> None:
    """ConnectStandalone creates each file's connector without replacing one: a second `name` is a conflict."""
    worker_file = write_properties(tmp_path / "worker.properties",
                                   standalone_properties(broker, tmp_path / "offsets.dat"))
    first = write_properties(tmp_path / "a.properties", sequence_file("same", "t", 1, 1))
    second = tmp_path / "b.json"
    second.write_text('{"name": "same", "config": {"connector.class": "SequenceSourceConnector", "topic": "t"}}')
    result = run_standalone([str(worker_file), str(first), str(second)])
    assert result.returncode == 2, result.stderr
    assert f"error: {second}: Connector same already exists" in result.stderr


def test_invalid_connector_config_exits_2_with_the_validation_message(broker: Broker, tmp_path: Path) -> None:
    """The file's connector is validated as POST /connectors validates it."""
    worker_file = write_properties(tmp_path / "worker.properties",
                                   standalone_properties(broker, tmp_path / "offsets.dat"))
    connector_file = write_properties(tmp_path / "notopic.properties",
                                      {"name": "c", "connector.class": "SequenceSourceConnector", "tasks.max": "0"})
    result = run_standalone([str(worker_file), str(connector_file)])
    assert result.returncode == 2, result.stderr
    assert f"error: {connector_file}: Connector configuration is invalid and contains the following 2 error(s):\n" \
        in result.stderr
    assert '\nMissing required configuration "topic" which has no default value.\n' in result.stderr
    assert "\nInvalid value 0 for configuration tasks.max: Value must be at least 1\n" in result.stderr
