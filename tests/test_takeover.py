"""Take-over from a Java MirrorMaker 2 in place, and back.

The state a Java MM2 leaves is built with tests/harness/java_mm2_state.py, an encoder written from
Kafka's source (OffsetStorageWriter/KafkaOffsetBackingStore for source offsets, KafkaConfigBackingStore,
KafkaStatusBackingStore, OffsetSync + OffsetSyncWriter for merged offset syncs, Checkpoint), never from
this project's own decoders; the state this project leaves is read back with the same module.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from tests.harness import java_mm2_state as java
from tests.harness.brokers import Broker, free_port
from tests.harness.checkpoints import commit
from tests.harness.java_mm2_kafka import (
    JavaFlow,
    read_checkpoints,
    read_configs,
    read_offset_syncs,
    read_offsets,
    translate_downstream,
)
from tests.harness.kafka_io import create_topic, produce_many, read_partitions, read_to_end, topic_names
from tests.harness.mirror import mm2_settings
from tests.harness.workers import REPO, wait_for

PARTITIONS = 3
PER_PARTITION = 300  # produced before the take-over; 100 more per partition follow it
JAVA_COPIED = {0: 200, 1: 100, 2: 300}  # records per partition "Java" copied and committed
GROUP_BEFORE = {0: 150, 1: 80, 2: 300}  # the existing consumer group's commits on the source
GROUP_AFTER = {0: 350, 1: 399, 2: 400}
LINE = re.compile(r"^  (\S+)-(\d+) -> (\S+)-(\d+)  committed (\S+)  resume (.+?)  end (\d+)  lag (\d+)")


def mm2_file(path: Path, src: str, tgt: str, a: Broker, b: Broker, topic: str, port: int) -> Path:
    path.write_text(f"""clusters = {src}, {tgt}
{src}.bootstrap.servers = {a.bootstrap}
{tgt}.bootstrap.servers = {b.bootstrap}
{src}->{tgt}.enabled = true
{src}->{tgt}.topics = {topic}
{tgt}->{src}.enabled = false
{tgt}->{src}.emit.heartbeats.enabled = false
listeners=http://127.0.0.1:{port}
""" + mm2_settings({src: a, tgt: b}))
    return path


def java_configs(flow: JavaFlow, topic: str, group: str) -> tuple[dict[str, dict[str, str]],
                                                                  dict[str, list[dict[str, str]]]]:
    """What MirrorMakerConfig.connectorBaseConfig and the connectors' taskConfigs put in mm2-configs."""
    base = {"source.cluster.alias": flow.source, "target.cluster.alias": flow.target,
            "source.cluster.bootstrap.servers": flow.source_bootstrap,
            "target.cluster.bootstrap.servers": flow.target_bootstrap, "topics": topic, "enabled": "true",
            "replication.factor": "1"}
    configs = {name: {"name": name, "connector.class": java.CONNECTOR_CLASS[name], **base}
               for name in java.CONNECTOR_NAMES}
    tasks = {java.SOURCE_CONNECTOR: [{**configs[java.SOURCE_CONNECTOR], "task.index": "0", "task.assigned.partitions":
                                      ",".join(f"{topic}-{p}" for p in range(PARTITIONS))}],
             java.CHECKPOINT_CONNECTOR: [{**configs[java.CHECKPOINT_CONNECTOR], "task.index": "0",
                                          "task.assigned.groups": group}],
             java.HEARTBEAT_CONNECTOR: [{**configs[java.HEARTBEAT_CONNECTOR], "task.index": "0"}]}
    return configs, tasks


def leave_java_state(flow: JavaFlow, topic: str, remote: str, group: str) -> list[java.Checkpoint]:
    """Everything a Java MM2 that copied JAVA_COPIED and was then stopped leaves behind; its checkpoints."""
    flow.create_topics()
    create_topic(flow.target_bootstrap, remote, PARTITIONS)
    writer = java.JavaOffsetSyncWriter()  # offset.lag.max = 100, as MM2's default
    for p in range(PARTITIONS):
        for n, (up, down) in enumerate(flow.copy(topic, remote, p, JAVA_COPIED[p])):
            writer.record(topic, p, up, down)
            writer.acknowledge()
            if n % 50 == 49:  # an offset commit every 50 records
                writer.commit()
    writer.commit()  # the commit on a graceful stop
    flow.write_offset_syncs(writer.sent)
    flow.write_source_offsets({(topic, p): n - 1 for p, n in JAVA_COPIED.items()})
    checkpoints = []
    for p, committed in GROUP_BEFORE.items():
        for upstream in (committed // 2, committed):  # an older checkpoint, then the newest
            down = translate_downstream(writer.sent, topic, p, upstream)
            assert down is not None
            checkpoints.append(java.Checkpoint(group, remote, p, upstream, down, ""))
    flow.write_checkpoints(checkpoints)
    flow.write_checkpoint_offsets(checkpoints)
    configs, tasks = java_configs(flow, topic, group)
    flow.write_configs(configs, tasks, dict.fromkeys(configs, "STARTED"))
    flow.write_statuses("10.0.0.7:8083", 4, {name: 1 for name in configs})
    return checkpoints


def run_check(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "replikafka", "mirror-maker", str(path), "--check"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def check_lines(out: str, topic: str) -> dict[int, tuple[str, str, int, int]]:
    """partition -> (committed, resume, end, lag) of `topic` from --check's output (the flow also
    replicates the heartbeats topics other tests leave on the shared brokers)."""
    return {int(m[2]): (m[5], m[6], int(m[7]), int(m[8])) for m in map(LINE.match, out.splitlines())
            if m and m[1] == topic}


def rest_offsets(base: str, topic: str) -> dict[int, int]:
    body: dict[str, Any] = httpx.get(f"{base}/connectors/MirrorSourceConnector/offsets", timeout=10).json()
    return {o["partition"]["partition"]: o["offset"]["offset"] for o in body.get("offsets", [])
            if o["partition"].get("topic") == topic and "backfill" not in o["partition"]}


def monotonic(checkpoints: list[java.Checkpoint]) -> int:
    """Checkpoints per (group, topic, partition) in log order; fails on any that goes backwards. The count."""
    last: dict[tuple[str, str, int], java.Checkpoint] = {}
    for cp in checkpoints:
        key = (cp.group, cp.topic, cp.partition)
        before = last.get(key)
        assert before is None or (cp.upstream_offset >= before.upstream_offset
                                  and cp.downstream_offset >= before.downstream_offset), (before, cp)
        last[key] = cp
    return len(checkpoints)


def newest_checkpoints(bootstrap: str, topic: str, group: str) -> list[java.Checkpoint]:
    """The group's newest checkpoint of each partition."""
    return list({c.partition: c for c in read_checkpoints(bootstrap, topic) if c.group == group}.values())


def user_topics(bootstrap: str) -> set[str]:
    """The cluster's topics but the broker's own: Apache Kafka creates __consumer_offsets for the first group
    lookup, which reading offsets as a group does."""
    return {t for t in topic_names(bootstrap) if not t.startswith("__")}


def check_java_state(path: Path, flow: JavaFlow, group: str, flow_topic: str, cps: list[java.Checkpoint]) -> None:
    """--check on Java's state: resume at committed + 1 with the lag to the end, the group's newest
    checkpoints; and nothing written."""
    before = user_topics(flow.target_bootstrap), len(read_to_end(flow.target_bootstrap, flow.configs_topic))
    check = run_check(path)
    assert check.returncode == 0, check.stderr[-2000:]
    print(f"\n--check on Java's state:\n{check.stdout}")
    assert check_lines(check.stdout, flow_topic) == {
        0: ("199", "200", 300, 100), 1: ("99", "100", 300, 200), 2: ("299", "300", 300, 0)}, check.stdout
    for cp in cps[1::2]:
        assert (f"group {group} {cp.topic}-{cp.partition}  upstream {cp.upstream_offset}  "
                f"downstream {cp.downstream_offset}") in check.stdout
    assert (user_topics(flow.target_bootstrap), len(read_to_end(flow.target_bootstrap, flow.configs_topic))) \
        == before, "--check wrote nothing"


def target_contents(bootstrap: str, topic: str, remote: str, total: int
                    ) -> tuple[dict[int, list[Any]], int, int]:
    """The remote topic per partition, checked to be every source record once and in order; with the
    counts of records copied twice and of records missing."""
    target = read_partitions(bootstrap, remote, total + 1, timeout=20)
    recopied = skipped = 0
    for p in range(PARTITIONS):
        values = [value for _o, _k, value, _h, _ts in target[p]]
        expected = [f"{topic}:{3 * k + p}".encode() for k in range(PER_PARTITION + 100)]
        recopied += len(values) - len(set(values))
        skipped += len(set(expected) - set(values))
        assert values == expected, f"partition {p}: {len(values)} records, first difference at " \
            f"{next((i for i, (x, y) in enumerate(zip(values, expected, strict=False)) if x != y), len(values))}"
    return target, recopied, skipped


def java_reads_our_state(flow: JavaFlow, topic: str, reported: dict[int, int], held: dict[int, int]
                         ) -> list[java.OffsetSync]:
    """Java's resume positions in our offsets equal the REST offsets + 1 and the records the target holds;
    our offset syncs decode and translate each partition's end exactly; our configs are MM2's three."""
    offsets = read_offsets(flow.target_bootstrap, flow.offsets_topic)
    for p in range(PARTITIONS):
        assert offsets.resume_position(flow.source, topic, p) == reported[p] + 1 == held[p]
    syncs = read_offset_syncs(flow.source_bootstrap, flow.syncs_topic)
    for p in range(PARTITIONS):
        assert translate_downstream(syncs, topic, p, PER_PARTITION + 99) == PER_PARTITION + 99
    configs = read_configs(flow.target_bootstrap, flow.configs_topic)
    assert set(configs.connectors) == set(java.CONNECTOR_NAMES)
    assert configs.connectors[java.SOURCE_CONNECTOR]["source.cluster.alias"] == flow.source
    return syncs


def test_take_over_from_java_and_back(tmp_path: Path, broker: Broker, broker_b: Broker) -> None:
    """Item 1: on Java's state (merged syncs, checkpoints of an existing group, records Java copied),
    dedicated mode resumes each partition at Java's committed offset + 1: the target holds every source
    record exactly once, in order; the group's checkpoints continue and never go backwards. Item 2: the
    state this project leaves decodes with the independent reader, whose resume positions equal the
    offsets the REST API reports and what the target holds. --check reports both states."""
    uid = uuid.uuid4().hex[:6]
    src, tgt, topic, group = f"east{uid}", f"west{uid}", f"orders{uid}", f"app{uid}"
    remote = f"{src}.{topic}"
    create_topic(broker.bootstrap, topic, PARTITIONS)
    exact = {"linger.ms": "0", "batch.num.messages": "1"}  # one record per batch: exact end offsets on Tansu
    produce_many(broker.bootstrap, topic, PER_PARTITION * PARTITIONS, PARTITIONS, overrides=exact)
    for p, offset in GROUP_BEFORE.items():
        commit(broker.bootstrap, group, topic, offset, p)
    flow = JavaFlow(src, tgt, broker.bootstrap, broker_b.bootstrap)
    java_checkpoints = leave_java_state(flow, topic, remote, group)
    port = free_port()
    path = mm2_file(tmp_path / "mm2.properties", src, tgt, broker, broker_b, topic, port)

    check_java_state(path, flow, group, topic, java_checkpoints)

    produce_many(broker.bootstrap, topic, 100 * PARTITIONS, PARTITIONS, overrides=exact,
                 start=PER_PARTITION * PARTITIONS)
    total = (PER_PARTITION + 100) * PARTITIONS
    log = open(tmp_path / "mm.log", "wb")  # noqa: SIM115 - owned by the child
    proc = subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO, stdout=log,
                            stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: len(read_to_end(broker_b.bootstrap, remote)) >= total, 180, "the rest copied")
        midway = read_checkpoints(broker_b.bootstrap, flow.checkpoints_topic)
        for p, offset in GROUP_AFTER.items():
            commit(broker.bootstrap, group, topic, offset, p)
        # Exact once the tail's held-back offset syncs went out (a partition quiet for 1 s, within its budget):
        # a checkpoint written before that translates through the previous sync, conservatively.
        wait_for(lambda: {(c.partition, c.upstream_offset, c.downstream_offset) for c in newest_checkpoints(
            broker_b.bootstrap, flow.checkpoints_topic, group)} >= {(p, o, o) for p, o in GROUP_AFTER.items()},
            120, "exact checkpoints of the group")
        reported = wait_for(lambda: (lambda o: o if o == {p: PER_PARTITION + 99 for p in range(PARTITIONS)} else None)(
            rest_offsets(base, topic)), 60, "every copied record committed (REST)")
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0, (tmp_path / "mm.log").read_text()[-3000:]

    # Item 1: the target holds each source record once, in source order (Java's copies, then ours).
    target, recopied, skipped = target_contents(broker_b.bootstrap, topic, remote, total)
    checkpoints = read_checkpoints(broker_b.bootstrap, flow.checkpoints_topic)
    assert checkpoints[:len(midway)] == midway and checkpoints[:len(java_checkpoints)] == java_checkpoints
    count = monotonic(checkpoints)
    newest = {c.partition: c for c in checkpoints if c.group == group}
    for p, offset in GROUP_AFTER.items():
        assert newest[p].upstream_offset == offset and newest[p].downstream_offset == offset, newest[p]

    # Item 2: our state, read as Java reads it.
    syncs = java_reads_our_state(flow, topic, reported, {p: len(records) for p, records in target.items()})
    again = run_check(path)
    print(f"--check on our state:\n{again.stdout}")
    after = check_lines(again.stdout, topic)
    assert after == {p: (str(PER_PARTITION + 99), str(PER_PARTITION + 100), PER_PARTITION + 100, 0)
                     for p in range(PARTITIONS)}, after
    print(f"\nTAKE-OVER: re-copied {recopied}, skipped {skipped} of {total}; {count} checkpoints "
          f"({len(java_checkpoints)} Java's), none backwards; {len(syncs)} offset syncs decode")


def test_state_unknown_to_the_file_is_refused(tmp_path: Path, broker: Broker, broker_b: Broker) -> None:
    """Item 5a: state naming a connector that is not MM2's, or offsets of a cluster alias the file does
    not define (e.g. an alias renamed since Java wrote them), stops both --check and a normal start with
    exit 2 and an error naming it, before anything starts (the flow's status topic is never created)."""
    for case in ("connector", "cluster"):
        uid = uuid.uuid4().hex[:6]
        src, tgt, topic = f"east{uid}", f"west{uid}", f"t{uid}"
        flow = JavaFlow(src, tgt, broker.bootstrap, broker_b.bootstrap)
        for name in (flow.offsets_topic, flow.configs_topic):
            create_topic(broker_b.bootstrap, name, 1, {"cleanup.policy": "compact"})
        configs, tasks = java_configs(flow, topic, "g")
        if case == "connector":
            configs["jdbc-sink"] = {"name": "jdbc-sink", "connector.class": "io.confluent.JdbcSinkConnector"}
            unknown = "'jdbc-sink'"
        flow.write_configs(configs, tasks, {})
        if case == "cluster":
            flow.source = "old-east"  # offsets as Java wrote them under the cluster's former alias
            flow.write_source_offsets({(topic, 0): 41})
            unknown = "'old-east'"
        path = mm2_file(tmp_path / f"{case}.properties", src, tgt, broker, broker_b, topic, free_port())
        for args in (["--check"], []):
            started = time.monotonic()
            proc = subprocess.run([sys.executable, "-m", "replikafka", "mirror-maker", str(path), *args], cwd=REPO,
                                  capture_output=True, text=True, timeout=120)
            errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
            assert proc.returncode == 2 and errors, (case, args, proc.stderr[-2000:])
            assert unknown in proc.stderr and "does not match mm2.properties" in proc.stderr, proc.stderr[-2000:]
            assert not proc.stdout.strip(), "nothing reported before the error"
            assert time.monotonic() - started < 60
        assert flow.status_topic not in topic_names(broker_b.bootstrap), "nothing started"
