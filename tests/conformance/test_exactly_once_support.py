"""Exactly-once source support (KIP-618): Kafka's unit cases, ported.

- UtilsTest.testMurmur2: the hash that places offset records where Java's producer puts them.
- DistributedHerderTest.testExactlyOnceSourceSupportValidation*, testConnectorTransactionBoundaryValidation*:
  the preflight errors on `exactly.once.support` and `transaction.boundary`.
- KafkaConfigBackingStoreTest (task count records) and DistributedHerderTest.testExternalZombieFencingRequest*:
  when fencing is pending, and which transactional ids a fencing round covers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
import pytest

from pyconnect.api import ConnectorTransactionBoundaries, ExactlyOnceSupport
from pyconnect.api.config import ConfigValue
from pyconnect.kafka.partitioner import java_partition, murmur2
from pyconnect.runtime.herder.exactly_once_validation import (
    NO_CONNECTOR_BOUNDARIES,
    NO_PREFLIGHT_API,
    UNSUPPORTED,
    WORKER_DISABLED,
    exactly_once_errors,
)
from pyconnect.runtime.source.fencing import ids_to_fence
from pyconnect.storage.config_store import ConfigStore
from pyconnect.storage.log import MemoryLog, MemoryTopic
from tests.harness.plugins import ValidateOnlyConnector


@pytest.mark.parametrize(("data", "expected"), [
    (b"21", -973932308), (b"foobar", -790332482), (b"a-little-bit-long-string", -985981536),
    (b"a-little-bit-longer-string", -1486304829),
    (b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971), (b"abc", 479470107)])
def test_murmur2(data: bytes, expected: int) -> None:
    """UtilsTest.testMurmur2."""
    assert murmur2(data) == expected
    assert 0 <= java_partition(data, 25) < 25


class _Connector(ValidateOnlyConnector):
    def __init__(self, support: Any = None, boundaries: Any = ConnectorTransactionBoundaries.UNSUPPORTED) -> None:
        self.support, self.boundaries = support, boundaries

    def exactly_once_support(self, config: Mapping[str, str]) -> ExactlyOnceSupport | None:
        if isinstance(self.support, Exception):
            raise self.support
        return self.support  # type: ignore[no-any-return]

    def can_define_transaction_boundaries(self, config: Mapping[str, str]) -> ConnectorTransactionBoundaries:
        if isinstance(self.boundaries, Exception):
            raise self.boundaries
        return self.boundaries  # type: ignore[no-any-return]


def _errors(connector: _Connector, key: str, value: str, worker_eos: bool = True) -> list[str]:
    values = {key: ConfigValue(key, value)}
    exactly_once_errors(connector, {key: value}, values, worker_eos)
    return values[key].errors


@pytest.mark.parametrize(("case", "support", "expected"), [
    ("testExactlyOnceSourceSupportValidation", ExactlyOnceSupport.SUPPORTED, []),
    ("testExactlyOnceSourceSupportValidationOnUnsupportedConnector", ExactlyOnceSupport.UNSUPPORTED, [UNSUPPORTED]),
    ("testExactlyOnceSourceSupportValidationOnUnknownConnector", None, [NO_PREFLIGHT_API]),
    ("testExactlyOnceSourceSupportValidationHandlesConnectorErrorsGracefully", ValueError("oops"),
     ["An unexpected error occurred during validation: oops"]),
])
def test_exactly_once_support_validation(case: str, support: Any, expected: list[str]) -> None:
    assert _errors(_Connector(support), "exactly.once.support", "required") == expected, case
    assert _errors(_Connector(support), "exactly.once.support", "requested") == [], "only `required` is checked"


def test_exactly_once_support_validation_when_exactly_once_not_enabled_on_worker() -> None:
    """testExactlyOnceSourceSupportValidationWhenExactlyOnceNotEnabledOnWorker."""
    assert _errors(_Connector(ExactlyOnceSupport.SUPPORTED), "exactly.once.support", "required", False) == [
        WORKER_DISABLED]


@pytest.mark.parametrize(("case", "boundaries", "expected"), [
    ("testConnectorTransactionBoundaryValidation", ConnectorTransactionBoundaries.SUPPORTED, []),
    ("testConnectorTransactionBoundaryValidationOnUnsupportedConnector", ConnectorTransactionBoundaries.UNSUPPORTED,
     [NO_CONNECTOR_BOUNDARIES]),
    ("testConnectorTransactionBoundaryValidationHandlesConnectorErrorsGracefully", ValueError(" "),
     ["An unexpected error occurred during validation; please see the worker logs for more details."]),
])
def test_connector_transaction_boundary_validation(case: str, boundaries: Any, expected: list[str]) -> None:
    assert _errors(_Connector(boundaries=boundaries), "transaction.boundary", "connector") == expected, case


def _store() -> tuple[ConfigStore, MemoryTopic]:
    topic = MemoryTopic()
    store = ConfigStore(MemoryLog(topic))
    store.start()
    return store, topic


def test_fencing_is_pending_from_a_task_commit_until_a_task_count_record() -> None:
    """KafkaConfigBackingStore: a commit sets pendingFencing, `tasks-fencing-<c>` clears it."""
    store, topic = _store()
    store.put_connector_config("c", {"connector.class": "X"})
    store.put_task_configs("c", [{"a": "1"}, {"a": "2"}])
    snap = store.snapshot()
    assert snap.pending_fencing == {"c"} and snap.task_generations == {"c": 1}
    assert ids_to_fence(snap, "g", "c") == [], "testExternalZombieFencingRequestForFreshConnector: no record yet"
    store.put_task_count_record("c", 2)
    assert topic.records[-1][:2] == (b"tasks-fencing-c", orjson.dumps({"task-count": 2}))
    snap = store.snapshot()
    assert snap.pending_fencing == set() and snap.task_count_records == {"c": 2}
    store.put_task_configs("c", [{"a": "3"}])
    snap = store.snapshot()
    assert snap.pending_fencing == {"c"} and snap.task_generations == {"c": 2}
    assert ids_to_fence(snap, "g", "c") == ["g-c-0", "g-c-1"], "testExternalZombieFencingRequestImmediateCompletion"


def test_one_task_to_one_task_needs_no_fencing() -> None:
    """testExternalZombieFencingRequestForSingleTaskConnector."""
    store, _ = _store()
    store.put_connector_config("c", {"connector.class": "X"})
    store.put_task_configs("c", [{"a": "1"}])
    store.put_task_count_record("c", 1)
    store.put_task_configs("c", [{"a": "2"}])
    assert ids_to_fence(store.snapshot(), "g", "c") == []


def test_source_connector_keys_of_exactly_once() -> None:
    """SourceConnectorConfig's keys: defaults and validators."""
    from pyconnect.runtime.connector_config import COMMON
    values = COMMON.validate_all({"name": "c", "connector.class": "X"})
    assert (values["exactly.once.support"].value, values["transaction.boundary"].value) == ("requested", "poll")
    bad = COMMON.validate_all({"exactly.once.support": "always", "transaction.boundary": "never",
                               "transaction.boundary.interval.ms": "-1", "offsets.storage.topic": "mine"})
    assert bad["exactly.once.support"].errors == ["Invalid value always for configuration exactly.once.support: "
                                                  "String must be one of (case insensitive): requested, required"]
    assert bad["transaction.boundary"].errors[0].endswith("String must be one of (case insensitive): poll, interval, "
                                                          "connector")
    assert bad["transaction.boundary.interval.ms"].errors[0].endswith("Value must be at least 0")
    assert bad["offsets.storage.topic"].errors == []
    assert COMMON.validate_all({"offsets.storage.topic": " "})["offsets.storage.topic"].errors[0].endswith(
        "String may not be empty")
