"""Worker keys that had no test of their behaviour when the configuration audit was built
(replikafka/reference/config_audit.toml names these tests), without a broker."""

from __future__ import annotations

import socket
import time

import pytest

from connectors.mirror.checkpoint import MirrorCheckpointTask
from connectors.sequence.connector import SequenceSourceTask
from pyconnect.config.worker import WorkerConfig
from pyconnect.converters import schema_serializer_for, side_settings
from rest.console_page import connectors_html
from tests.unit.test_file_stream_connectors import _Context, _Reader

BASE = {"bootstrap.servers": "127.0.0.1:1", "group.id": "g", "config.storage.topic": "c",
        "offset.storage.topic": "o", "status.storage.topic": "s"}
JSON = "org.apache.kafka.connect.json.JsonConverter"


def test_membership_storage_topic_names_the_membership_topic() -> None:
    assert WorkerConfig({**BASE, "membership.storage.topic": "members"}).membership_topic == "members"
    assert WorkerConfig(BASE).membership_topic == "connect-membership.g.internal"


def test_rest_advertised_keys_make_the_advertised_url() -> None:
    """Connect's RestServer.advertisedUrl (connect/runtime/.../rest/RestServer.java): the advertised host, port
    and listener replace the listener's."""
    listener = {**BASE, "listeners": "http://127.0.0.2:8083"}
    assert WorkerConfig(listener).advertised_url == "http://127.0.0.2:8083"
    assert WorkerConfig({**listener, "rest.advertised.host.name": "w1"}).advertised_url == "http://w1:8083"
    assert WorkerConfig({**listener, "rest.advertised.port": "9"}).advertised_url == "http://127.0.0.2:9"
    assert WorkerConfig({**listener, "rest.advertised.listener": "https"}).advertised_url == "https://127.0.0.2:8083"
    both = {**listener, "rest.advertised.host.name": "w1", "rest.advertised.port": "9"}
    assert WorkerConfig(both).worker_id == "w1:9"


@pytest.mark.parametrize("listener", ["http://:8083", "http://0.0.0.0:8083", "http://[::]:8083"])
def test_a_listener_on_every_interface_advertises_the_machines_address(listener: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Connect advertises Jetty's URI, whose host is InetAddress.getLocalHost()'s address, not 127.0.0.1 (which
    another worker would reach itself at). The resolver is replaced: this machine's name resolves to 127.0.0.1."""
    monkeypatch.setattr(socket, "gethostbyname", lambda name: "10.1.2.3" if name == socket.gethostname() else "")
    assert WorkerConfig({**BASE, "listeners": listener}).advertised_url == "http://10.1.2.3:8083"


def test_a_machine_name_that_does_not_resolve_advertises_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    def unresolved(_name: str) -> str:
        raise socket.gaierror("no such name")
    monkeypatch.setattr(socket, "gethostbyname", unresolved)
    assert WorkerConfig({**BASE, "listeners": "http://:8083"}).advertised_url == "http://127.0.0.1:8083"


@pytest.mark.parametrize(("enabled", "key", "value"), [
    ("true", b'{"schema":null,"payload":"k"}', b'{"schema":null,"payload":"v"}'), ("false", b'"k"', b'"v"')])
def test_worker_converter_schemas_enable_reaches_the_converters(enabled: str, key: bytes, value: bytes) -> None:
    """The worker's key.converter.schemas.enable and value.converter.schemas.enable configure its converters
    (built from the worker config's `<side>.converter.` keys as pyconnect/runtime/worker.py builds them)."""
    cfg = WorkerConfig({**BASE, "key.converter": JSON, "value.converter": JSON,
                        "key.converter.schemas.enable": enabled, "value.converter.schemas.enable": enabled})
    assert schema_serializer_for(cfg.settings.key_converter, side_settings(cfg.raw, "key"), True)("t", None, "k") == key
    assert schema_serializer_for(cfg.settings.value_converter, side_settings(cfg.raw, "value"), False)(
        "t", None, "v") == value


def test_console_read_only_shows_no_actions() -> None:
    """console.read.only=true: the console's connector table has no action buttons (pause, resume, restart...)."""
    status = [{"name": "c", "connector": {"state": "RUNNING", "worker_id": "w"}, "type": "source",
               "tasks": [{"id": 0, "state": "RUNNING", "worker_id": "w"}]}]
    for value, buttons in (("true", False), ("false", True)):
        read_only = WorkerConfig({**BASE, "console.read.only": value}).settings.console_read_only
        html = connectors_html(status, read_only)
        assert ('id="pause-c"' in html) is buttons and ("<th>Actions</th>" in html) is buttons


def test_sequence_source_batch_size_caps_each_poll() -> None:
    """SequenceSourceConnector's batch.size: a poll returns at most that many records, in sequence."""
    task = SequenceSourceTask()
    task.initialize(_Context(_Reader()))  # type: ignore[arg-type]
    task.start({"topic": "t", "rate": "0", "batch.size": "7"})
    first, second = task.poll(), task.poll()
    assert first is not None and second is not None
    assert [r.source_offset["seq"] for r in first + second] == list(range(14))
    assert len(first) == len(second) == 7
    task.stop()


@pytest.mark.parametrize("timeout_ms", [500, 1500])
def test_admin_timeout_bounds_the_checkpoint_tasks_first_read(timeout_ms: int) -> None:
    """MirrorConnectorConfig's admin.timeout.ms bounds a checkpoint task's start-up read of the offset syncs: with
    the cluster unreachable (a refused connection) the task fails after that long, naming the topic and time."""
    task = MirrorCheckpointTask()
    dead = {"source.cluster.bootstrap.servers": "127.0.0.1:1", "target.cluster.bootstrap.servers": "127.0.0.1:1"}
    started = time.monotonic()
    with pytest.raises(TimeoutError, match=f"mm2-offset-syncs.B.internal to its end within {timeout_ms / 1000}s"):
        task.start({"source.cluster.alias": "A", "target.cluster.alias": "B", "admin.timeout.ms": str(timeout_ms),
                    **dead})
    took = time.monotonic() - started
    task.syncs.stop(0.1)  # nothing was written: no flush to wait for
    assert timeout_ms / 1000 <= took < timeout_ms / 1000 + 5, took
