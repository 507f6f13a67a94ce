"""The check that a flow's stored state belongs to mm2.properties (replikafka.mirror_state), on state
written with the independent Java MM2 encoder (tests/harness/java_mm2_state.py)."""

from __future__ import annotations

import pytest

from connectors.mirror.maker_config import Flow, MirrorMakerConfig
from pyconnect.config.properties import parse_properties
from pyconnect.storage.log import MemoryLog, MemoryTopic
from pyconnect.storage.offset_store import OffsetStore
from replikafka.mirror_state import FlowState, UnknownStateError, check_states
from tests.harness import java_mm2_state as java

CONFIG = MirrorMakerConfig(parse_properties(
    "clusters = A, B\nA.bootstrap.servers = a:9092\nB.bootstrap.servers = b:9092\nA->B.enabled = true\n",
    "mm2.properties"))


def flow_state(offsets: list[tuple[bytes, bytes]], connectors: dict[str, dict[str, str]] | None = None,
               topics: set[str] | None = None) -> FlowState:
    store = OffsetStore(MemoryLog(MemoryTopic()))
    store.start()
    for key, value in offsets:
        store._log.send(key, value)
    state = FlowState(Flow("A", "B"), "mm2-offsets.A.internal", "mm2-configs.A.internal", "A.checkpoints.internal",
                      store, connectors or {}, {}, topics or set())
    return state


def java_offsets(cluster: str = "A") -> list[tuple[bytes, bytes]]:
    """What a Java MM2 flow A->B leaves in mm2-offsets.A.internal: all three connectors' offsets."""
    return [(java.offset_key(java.SOURCE_CONNECTOR, java.source_partition(cluster, "orders", 0)),
             java.offset_value(41)),
            (java.offset_key(java.CHECKPOINT_CONNECTOR, java.checkpoint_partition("g", "A.orders", 0)),
             java.offset_value(0)),
            (java.offset_key(java.HEARTBEAT_CONNECTOR, java.heartbeat_partition("A", "B")), java.offset_value(0))]


def mm2_configs(source: str = "A") -> dict[str, dict[str, str]]:
    return {name: {"name": name, "connector.class": java.CONNECTOR_CLASS[name], "source.cluster.alias": source,
                   "target.cluster.alias": "B"} for name in java.CONNECTOR_NAMES}


def test_java_state_is_accepted() -> None:
    """A legitimate Java state: the three connectors' offsets and configs, under the file's aliases."""
    assert check_states(CONFIG, [flow_state(java_offsets(), mm2_configs(), {"mm2-offsets.A.internal"})]) == []


def test_offsets_of_an_unknown_cluster() -> None:
    with pytest.raises(UnknownStateError, match=r"MirrorSourceConnector offsets for cluster\(s\) \['east'\].*"
                                                r"clusters = A, B"):
        check_states(CONFIG, [flow_state(java_offsets("east"))])


def test_connectors_unknown_to_mm2_and_configs_for_unknown_clusters() -> None:
    configs = {**mm2_configs("east"), "jdbc": {"connector.class": "JdbcSinkConnector"}}
    with pytest.raises(UnknownStateError) as err:
        check_states(CONFIG, [flow_state([], configs)])
    text = str(err.value)
    assert "connector(s) ['jdbc'] that are not MirrorMaker 2's" in text
    assert "MirrorSourceConnector was configured with source.cluster.alias='east'" in text


def test_leftovers_are_warnings() -> None:
    """Offsets of a deleted connector (Connect keeps them) and another deployment's state topics warn."""
    leftover = (java.offset_key("old-sink", {"file": "x"}), java.offset_value(3))
    warnings = check_states(CONFIG, [flow_state(java_offsets() + [leftover], mm2_configs(),
                                                {"mm2-offsets.C.internal", "mm2-status.C.internal"})])
    assert len(warnings) == 2
    assert "offsets of connector 'old-sink'" in warnings[1] and "source alias 'C'" in warnings[0]
