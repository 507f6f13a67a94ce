"""What earlier runs of a flow left in Kafka, by this project or by Java MirrorMaker 2, read without
writing or starting anything; and the check that this state belongs to the mm2.properties at hand.

A flow S->T keeps its state on T in the herder's topics (`mm2-offsets.S.internal`, `mm2-configs.S.internal`
by default, as MirrorMakerConfig.workerConfig names them) and in `S.checkpoints.internal`. Java MM2 writes
there only its three connectors, under their simple class names (MirrorHerder), with source partitions
naming the source alias (`cluster`, MirrorUtils.wrapPartition) and heartbeat partitions naming both
aliases. State that names a cluster the file does not define, or a live connector that is not MM2's, was
written for another file (an alias renamed, a topic shared by mistake): starting on it would silently
replicate from `auto.offset.reset` again, so it is an error before anything starts.
"""

from __future__ import annotations

import logging
import struct
from dataclasses import dataclass, field
from typing import Any

from connectors.mirror.config import CHECKPOINT, MirrorConfig
from connectors.mirror.formats import Checkpoint
from connectors.mirror.maker_config import CONNECTORS, Flow, MirrorMakerConfig
from pyconnect.api.config import ConfigException
from pyconnect.config.providers import resolve_config
from pyconnect.config.worker import WorkerConfig
from pyconnect.kafka.admin import Admin
from pyconnect.kafka.topic_log import KafkaLog
from pyconnect.storage.config_store import ConfigStore
from pyconnect.storage.offset_store import OffsetStore
from replikafka.mirror_maker import worker_source

log = logging.getLogger(__name__)
CheckpointKey = tuple[str, str, int]  # group, remote topic, partition
_CLUSTER_KEYS = {"MirrorSourceConnector": ("cluster",),
                 "MirrorHeartbeatConnector": ("sourceClusterAlias", "targetClusterAlias")}


class UnknownStateError(ValueError):
    """The existing state names clusters or connectors the file does not know."""


@dataclass
class FlowState:
    """A flow's stored state: source offsets, live connector configs, newest checkpoint per group partition."""

    flow: Flow
    offsets_topic: str
    configs_topic: str
    checkpoints_topic: str | None  # None: not known, the checkpoint connector's config does not parse
    offsets: OffsetStore | None = None  # None: the topic does not exist
    connectors: dict[str, dict[str, str]] = field(default_factory=dict)
    checkpoints: dict[CheckpointKey, Checkpoint] = field(default_factory=dict)
    mm2_topics: set[str] = field(default_factory=set)  # the target's topics named like MM2's internal ones

    def committed(self, connector: str, partition: dict[str, Any]) -> dict[str, Any] | None:
        return None if self.offsets is None else self.offsets.get(connector, partition)


def flow_worker_config(config: MirrorMakerConfig, flow: Flow) -> WorkerConfig:
    """The herder's worker config for `flow`, as dedicated mode builds it (nothing is started)."""
    values = {**config.worker_config(flow), "listeners": "http://:0"}
    return WorkerConfig(values, worker_source(config, flow, values))


def checkpoints_topic(config: MirrorMakerConfig, flow: Flow) -> str | None:
    """The flow's checkpoints topic, named by its replication policy; None when the checkpoint
    connector's config does not parse (the connector reports that itself when it starts)."""
    try:
        cfg = MirrorConfig(CHECKPOINT, resolve_config(config.connector_config(flow, "MirrorCheckpointConnector")))
        return cfg.policy().checkpoints_topic(flow.source)
    except (ConfigException, ValueError) as exc:
        log.warning("%s: checkpoints not read: MirrorCheckpointConnector's config: %s", flow, exc)
        return None


def read_flow_state(config: MirrorMakerConfig, flow: Flow, timeout: float = 60.0) -> FlowState:
    """Read the flow's offsets, configs and checkpoints topics on the target, if they exist."""
    worker = flow_worker_config(config, flow)
    settings = worker.settings
    state = FlowState(flow, settings.offset_storage_topic, settings.config_storage_topic,
                      checkpoints_topic(config, flow))
    consumer = worker.client_config("consumer")
    admin = Admin(worker.client_config("admin", "admin."), flow.target)
    admin.cluster_id(timeout=20)  # KafkaClientError naming the cluster alias when unreachable
    existing = admin.topic_partitions()
    state.mm2_topics = {t for t in existing if t.startswith(("mm2-offsets.", "mm2-configs.", "mm2-status."))}

    def log_of(topic: str) -> KafkaLog:
        # A reader only: the log's producer is never used. Offsets written in transactions count once
        # committed, as the worker reads them (internal_topics.kafka_log_factory).
        committed = settings.exactly_once and topic == state.offsets_topic
        return KafkaLog(topic, existing[topic], worker.client_config("producer"),
                        {**consumer, **({"isolation.level": "read_committed"} if committed else {})})

    if state.offsets_topic in existing:
        state.offsets = OffsetStore(log_of(state.offsets_topic))
        state.offsets.start(timeout)
        state.offsets.stop()
    if state.configs_topic in existing:
        store = ConfigStore(log_of(state.configs_topic))
        store.start(timeout)
        store.stop()
        state.connectors = {k: dict(v) for k, v in store.snapshot().connectors.items()}
    if state.checkpoints_topic is not None and state.checkpoints_topic in existing:
        reader = log_of(state.checkpoints_topic)

        def on_record(key: bytes | None, value: bytes | None, _p: int, _o: int) -> None:
            try:
                cp = Checkpoint.decode(key or b"", value or b"")
            except (struct.error, UnicodeDecodeError) as exc:  # Java's reader skips what it cannot read too
                log.warning("%s: unreadable checkpoint record skipped: %s", flow, exc)
                return
            state.checkpoints[(cp.group, cp.topic, cp.partition)] = cp
        reader.start(on_record, timeout)
        reader.stop()
    return state


def state_problems(config: MirrorMakerConfig, state: FlowState) -> tuple[list[str], list[str]]:
    """(errors, warnings) about state that the file does not account for."""
    errors = _config_problems(config, state)
    offset_errors, warnings = _offset_problems(config, state)
    return errors + offset_errors, warnings + _foreign_topics(config, state)


def _unknown(config: MirrorMakerConfig, alias: Any) -> bool:
    return not isinstance(alias, str) or alias not in config.clusters


def _clusters(config: MirrorMakerConfig) -> str:
    return f"(clusters = {', '.join(config.clusters)})"


def _config_problems(config: MirrorMakerConfig, state: FlowState) -> list[str]:
    """Live connectors that are not MM2's; MM2 connectors configured for clusters the file lacks."""
    where = f"{state.configs_topic} on {state.flow.target}"
    errors = []
    foreign = sorted(set(state.connectors) - set(CONNECTORS))
    if foreign:
        errors.append(f"{where} holds connector(s) {foreign} that are not MirrorMaker 2's "
                      f"({', '.join(CONNECTORS)}): this topic is not (only) this flow's config topic")
    for name in sorted(set(state.connectors) & set(CONNECTORS)):
        props = state.connectors[name]
        for key in ("source.cluster.alias", "target.cluster.alias"):
            if key in props and _unknown(config, props[key]):
                errors.append(f"{where}: {name} was configured with {key}={props[key]!r}, a cluster "
                              f"mm2.properties does not define {_clusters(config)}")
    return errors


def _offset_problems(config: MirrorMakerConfig, state: FlowState) -> tuple[list[str], list[str]]:
    """Source and heartbeat offsets naming unknown clusters (errors); other connectors' offsets (warnings:
    Connect keeps the offsets of a deleted connector)."""
    where = f"{state.offsets_topic} on {state.flow.target}"
    errors: list[str] = []
    warnings: list[str] = []
    offsets = state.offsets
    if offsets is None:
        return errors, warnings
    for connector in offsets.connectors():
        if connector not in CONNECTORS:
            warnings.append(f"{where} holds offsets of connector {connector!r}, which is not MirrorMaker 2's "
                            f"(left by a deleted connector?); they are not used")
            continue
        names = sorted({str(p.get(k)) for p, _o in offsets.connector_offsets(connector)
                        for k in _CLUSTER_KEYS.get(connector, ()) if _unknown(config, p.get(k))})
        if names:
            errors.append(f"{where} holds {connector} offsets for cluster(s) {names}, which mm2.properties does "
                          f"not define {_clusters(config)}: was an alias renamed?")
    return errors, warnings


def _foreign_topics(config: MirrorMakerConfig, state: FlowState) -> list[str]:
    """MM2 state topics on the target for aliases the file lacks: another deployment's, or this one's
    under a former alias (a warning: they may well be another deployment's)."""
    aliases = {t.split(".", 1)[1][:-len(".internal")] for t in state.mm2_topics if t.endswith(".internal")}
    return [f"{state.flow.target} holds mm2-offsets/configs/status topics of source alias {alias!r}, which "
            f"mm2.properties does not define: if they are this deployment's under a former alias, restore that "
            f"alias, or replication starts again from auto.offset.reset" for alias in sorted(aliases)
            if _unknown(config, alias)]


def check_states(config: MirrorMakerConfig, states: list[FlowState]) -> list[str]:
    """Raise UnknownStateError naming every problem; return the warnings."""
    errors: list[str] = []
    warnings: set[str] = set()
    for state in states:
        e, w = state_problems(config, state)
        errors += [f"{state.flow}: {text}" for text in e]
        warnings |= set(w)  # the target's topics are the same for every flow into it
    if errors:
        raise UnknownStateError("existing MirrorMaker state does not match mm2.properties:\n  " + "\n  ".join(errors))
    return sorted(warnings)
