"""`replikafka mirror-maker mm2.properties --check`: where each enabled flow will resume, without starting it.

For every source partition the flow's MirrorSourceConnector would replicate now (its topic filter and
replication policy applied to the source's topics), the resume position is what MirrorSourceTask seeks
to: the committed source offset + 1, or, with none, the beginning or the end of the partition as the
source consumer's `auto.offset.reset` says (MM2's default: earliest). The lag is the partition's end
offset minus that position. Per consumer group, the newest checkpoint of each partition is listed.
Nothing is written: the state is read (replikafka.mirror_state) and the source asked for its offsets.
"""

from __future__ import annotations

from dataclasses import dataclass

from connectors.mirror.config import SOURCE, MirrorConfig
from connectors.mirror.maker_config import MirrorMakerConfig
from connectors.mirror.source_task import source_partition
from connectors.mirror.topics import TopicSelector
from pyconnect.config.providers import resolve_config
from pyconnect.kafka.admin import Admin
from pyconnect.kafka.clients import new_consumer, offset_bounds
from replikafka.mirror_state import FlowState, check_states, read_flow_state


@dataclass(frozen=True)
class Resume:
    """Where one source partition resumes."""

    topic: str
    partition: int
    remote: str
    committed: int | None  # the last upstream offset copied, as stored
    position: int  # the next upstream offset to copy
    how: str  # "committed", "beginning" or "end"
    end: int

    @property
    def lag(self) -> int:
        return max(self.end - self.position, 0)


def resume_positions(config: MirrorMakerConfig, state: FlowState) -> list[Resume] | None:
    """Every partition the flow replicates, with its resume position; None when replication is disabled."""
    cfg = MirrorConfig(SOURCE, resolve_config(config.connector_config(state.flow, "MirrorSourceConnector")))
    if not cfg["enabled"]:
        return None
    policy = cfg.policy()
    selector = TopicSelector(policy, cfg.topic_filter(), cfg.target, bool(cfg["heartbeats.replication.enabled"]))
    admin = Admin(cfg.client("source", "admin"))
    admin.cluster_id(timeout=20)  # KafkaClientError naming the bootstrap servers when unreachable
    topics = {t: n for t, n in admin.topic_partitions().items() if selector.should_replicate(t)}
    consumer_conf = cfg.client("source", "consumer")
    reset_to_end = consumer_conf.get("auto.offset.reset", "earliest") == "latest"
    consumer = new_consumer(consumer_conf)
    out = []
    try:
        for topic in sorted(topics):
            bounds = offset_bounds(consumer, topic, range(topics[topic]))
            for partition, (low, high) in sorted(bounds.items()):
                stored = state.committed("MirrorSourceConnector", source_partition(cfg.source, topic, partition))
                offset = stored.get("offset") if stored else None
                committed = int(offset) if isinstance(offset, int) and offset >= 0 else None
                if committed is not None:
                    position, how = committed + 1, "committed"
                else:
                    position, how = (high, "end") if reset_to_end else (low, "beginning")
                out.append(Resume(topic, partition, policy.format_remote_topic(cfg.source, topic), committed,
                                  position, how, high))
    finally:
        consumer.close()
    return out


def format_flow(config: MirrorMakerConfig, state: FlowState, resumes: list[Resume] | None) -> list[str]:
    flow = state.flow
    lines = [f"{flow}: offsets {state.offsets_topic} on {flow.target}"
             + ("" if state.offsets is not None else " (absent: nothing committed yet)")]
    if resumes is None:
        lines.append(f"  replication disabled ({flow}.enabled is not true): heartbeats only")
    else:
        total = sum(r.lag for r in resumes)
        lines.append(f"  {len(resumes)} partition(s), total lag {total}")
        for r in resumes:
            committed = "-" if r.committed is None else str(r.committed)
            where = str(r.position) if r.how == "committed" else f"{r.how} ({r.position})"
            note = "  [committed past the end: topic recreated or truncated?]" if r.position > r.end else ""
            lines.append(f"  {r.topic}-{r.partition} -> {r.remote}-{r.partition}  committed {committed}  "
                         f"resume {where}  end {r.end}  lag {r.lag}{note}")
    if state.checkpoints_topic is None:
        lines.append("  checkpoints not read: MirrorCheckpointConnector's config does not parse")
    else:
        lines.append(f"  checkpoints {state.checkpoints_topic} on {flow.target}: "
                     f"{len({k[0] for k in state.checkpoints})} group(s)")
    for (group, topic, partition), cp in sorted(state.checkpoints.items()):
        lines.append(f"  group {group} {topic}-{partition}  upstream {cp.upstream_offset}  "
                     f"downstream {cp.downstream_offset}")
    return lines


def check_report(config: MirrorMakerConfig) -> str:
    """The report for every flow of the file that replicates or emits heartbeats; raises
    UnknownStateError (before printing anything) when the state does not belong to the file."""
    states = [read_flow_state(config, flow) for flow in config.flows]
    warnings = check_states(config, states)
    lines = [f"warning: {w}" for w in warnings]
    for state in states:
        lines += format_flow(config, state, resume_positions(config, state))
    return "\n".join(lines)
