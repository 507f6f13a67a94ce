"""The configuration audit (replikafka/reference/config_audit.toml): every key of every ConfigDef the reference
lists is honoured (the named tests exist), refused, pending or a known gap; and the refusals it names refuse.

The named tests' existence is read from the test files themselves (the function names in the named file), so a
renamed or deleted test fails here.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer

from connectors.mirror.config import JMX_REPORTER, SOURCE
from pyconnect.config.properties import ConfigFileError
from pyconnect.config.unimplemented import UNIMPLEMENTED
from pyconnect.config.worker import WorkerConfig
from pyconnect.kafka.config import to_librdkafka
from pyconnect.runtime.client_overrides import PREFIXES
from replikafka.reference import config_sections
from replikafka.reference.audit import GROUPS, Status, audit_entries, audit_page, load_audit, resolve

ROOT = Path(__file__).resolve().parents[2]
BASE = {"bootstrap.servers": "127.0.0.1:1", "group.id": "g", "config.storage.topic": "c",
        "offset.storage.topic": "o", "status.storage.topic": "s"}
# The keys accepted without a behaviour test or without effect, each with its reason in the audit. Adding a gap
# (or closing one) must change this list too: the audit cannot grow a gap unnoticed.
KNOWN_GAPS: set[str] = set()


@cache
def functions_of(path: str) -> frozenset[str]:
    """The names of the functions (module level or in classes) of a test file; empty if there is no such file."""
    file = ROOT / path
    if not file.is_file():
        return frozenset()
    tree = ast.parse(file.read_text(encoding="utf-8"))
    return frozenset(n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))


def test_every_configdef_key_has_an_audit_entry() -> None:
    entries = audit_entries()
    missing = [f"{e.section}: {e.key}" for e in entries if e.status is Status.MISSING]
    assert missing == [], f"keys with neither a behaviour test, a refusal, pending nor a gap in the audit: {missing}"
    assert len([e for e in entries if e.section != GROUPS]) == sum(len(s.keys) for s in config_sections())


def test_every_named_test_exists() -> None:
    absent = sorted({test for e in audit_entries() for test in e.tests
                     if test.split("::")[-1] not in functions_of(test.split("::")[0])})
    assert absent == [], f"the audit names tests that do not exist: {absent}"


def test_honoured_and_refused_keys_show_tests_and_gaps_give_reasons() -> None:
    for entry in audit_entries():
        if entry.status in (Status.HONOURED, Status.REFUSED):
            assert entry.tests, entry
            assert all(t.startswith("tests/") and t.count("::") == 1 for t in entry.tests), entry
        if entry.status in (Status.REFUSED, Status.PENDING, Status.GAP):
            assert entry.detail.strip(), entry
        if entry.status is Status.REFUSED:
            assert (ROOT / entry.detail).is_file(), entry


def test_every_client_override_prefix_is_a_group_of_the_audit() -> None:
    groups = load_audit()["groups"]
    assert [p for p in PREFIXES.values() if f"{p}*" not in groups] == []
    assert all(f"{role}.* (worker)" in groups for role in PREFIXES)


def test_the_gaps_are_the_known_ones() -> None:
    assert {e.key for e in audit_entries() if e.status is Status.GAP} == KNOWN_GAPS


def test_the_audit_names_no_key_the_code_lacks() -> None:
    """An entry that is not pending must be a key of its section in the code (a pending key may not exist yet)."""
    code = {s.title: {k.name for k in s.keys} for s in config_sections()}
    stale = [f"{section}: {key}" for section, keys in load_audit()["keys"].items() for key, raw in keys.items()
             if "pending" not in raw and key not in code.get(section, set())]
    assert stale == []


def test_every_unimplemented_worker_key_is_refused_naming_it() -> None:
    """Each key of pyconnect/config/unimplemented.py stops the worker config with an error naming the key when
    set to a value that would need the runtime; the audit calls each refused (or pending, being implemented)."""
    for key in UNIMPLEMENTED:
        with pytest.raises(ConfigFileError, match=f"{key}: 'needs-the-runtime': "):
            WorkerConfig({**BASE, key: "needs-the-runtime"})
        assert resolve("Worker (distributed)", key).status in (Status.REFUSED, Status.PENDING), key


def test_unimplemented_mirror_values_are_refused_naming_the_key() -> None:
    """use.incremental.alter.configs=never (MirrorSourceConfig's AlterConfigs-only mode), a connector-level
    producer.max.request.size, Java metrics reporters other than JmxReporter (MirrorConnectorConfig's
    metric.reporters) and metrics without the source tag (add.source.alias.to.metrics=false, removed in Kafka
    4.0) need what this runtime does not do: validation names the key and the way out."""
    def errors(**props: str) -> dict[str, list[str]]:
        values = SOURCE.validate_all({"source.cluster.alias": "A", **props})
        return {k: v.errors for k, v in values.items() if v.errors}
    never = errors(**{"use.incremental.alter.configs": "never"})["use.incremental.alter.configs"][0]
    assert "IncrementalAlterConfigs only" in never and "set requested" in never
    assert errors(**{"use.incremental.alter.configs": "required"}) == {}
    assert "one of" in errors(**{"use.incremental.alter.configs": "sometimes"})["use.incremental.alter.configs"][0]
    size = errors(**{"producer.max.request.size": "2000000"})["producer.max.request.size"][0]
    assert "producer.override.max.request.size" in size
    reporters = errors(**{"metric.reporters": f"{JMX_REPORTER},com.example.Reporter"})["metric.reporters"][0]
    assert "(com.example.Reporter) do not load here" in reporters and "metrics.prometheus.port" in reporters
    assert errors(**{"metric.reporters": JMX_REPORTER}) == errors() == {}
    alias = errors(**{"add.source.alias.to.metrics": "false"})["add.source.alias.to.metrics"][0]
    assert "always carry the source tag, as in Kafka 4.0" in alias
    assert errors(**{"add.source.alias.to.metrics": "true"}) == {}


def test_java_buffer_settings_reach_librdkafka() -> None:
    """ProducerConfig/ConsumerConfig's send.buffer.bytes, receive.buffer.bytes (-1: the OS default) and
    buffer.memory are librdkafka's socket buffers and queue size, not dropped; real clients accept them."""
    java = {"bootstrap.servers": "127.0.0.1:1", "send.buffer.bytes": "131072", "receive.buffer.bytes": "-1",
            "buffer.memory": "33554433"}
    producer = to_librdkafka(java, "producer")
    assert producer == {"bootstrap.servers": "127.0.0.1:1", "socket.send.buffer.bytes": "131072",
                        "socket.receive.buffer.bytes": "0", "queue.buffering.max.kbytes": "32769"}
    consumer = to_librdkafka({**java, "group.id": "g"}, "consumer")
    assert "queue.buffering.max.kbytes" not in consumer and consumer["socket.send.buffer.bytes"] == "131072"
    Producer(producer).flush(0)
    Consumer(consumer).close()
    with pytest.raises(ValueError, match="Invalid value lots for configuration buffer.memory"):
        to_librdkafka({"buffer.memory": "lots"}, "producer")


def test_the_audit_page_has_a_row_for_every_key() -> None:
    page = audit_page()
    for entry in audit_entries():
        assert f"| `{entry.key}` | {entry.status.value} |" in page, entry
    assert "| honoured |" in page and "## Client prefixes and mm2.properties scopes" in page
