"""Dedicated mode on real brokers: typo'd mm2.properties keys with `connector.config.unknown.keys` (warn or
refuse), and Java's dedicated-mode rule for a checkpoint connector the file turns off (KIP-1031's
`emit.offset-syncs.enabled = false`): the process runs the flow's other connectors."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from connectors.mirror.formats import Heartbeat
from tests.harness.brokers import Broker, free_port
from tests.harness.kafka_io import create_topic, produce_many, read_to_end, topic_names
from tests.harness.mirror import cluster_lines, mm2_settings
from tests.harness.workers import REPO, wait_for

CHECKPOINT, HEARTBEAT, SOURCE = "MirrorCheckpointConnector", "MirrorHeartbeatConnector", "MirrorSourceConnector"
REFUSED = "(refused: connector.config.unknown.keys = refuse)"


def mm2_text(a: Broker, b: Broker, src: str, dst: str, port: int, prefix: str) -> str:
    """One flow src->dst for the topics `prefix.*` (dst->src emits no heartbeats, so no second herder)."""
    return (cluster_lines({src: a, dst: b}) + f"{src}->{dst}.enabled = true\n{src}->{dst}.topics = {prefix}.*\n"
            f"{dst}->{src}.enabled = false\n{dst}->{src}.emit.heartbeats.enabled = false\n"
            f"emit.heartbeats.interval.seconds = 1\nlisteners = http://127.0.0.1:{port}\n"
            + mm2_settings({src: a, dst: b}))


def aliases() -> tuple[str, str]:
    uid = uuid.uuid4().hex[:6]
    return f"S{uid}", f"T{uid}"


def run(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "replikafka", "mirror-maker", *args, str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=90)


def test_refuse_stops_the_start_at_a_typo(tmp_path: Path, broker: Broker, broker_b: Broker) -> None:
    """A typo'd flow key and a typo'd top-level key each stop the process: exit 2, one line naming file, line,
    key and suggestion, no traceback, no herder (its config topic never appears)."""
    src, dst = aliases()
    text = mm2_text(broker, broker_b, src, dst, free_port(), "x") + "connector.config.unknown.keys = refuse\n"
    line = len(text.splitlines()) + 1
    for typo, key, suggestion in ((f"{src}->{dst}.topcis = x.*", f"{src}->{dst}.topcis", "topics"),
                                  ("sync.group.offset.enabled = true", "sync.group.offset.enabled",
                                   "sync.group.offsets.enabled")):
        path = tmp_path / "mm2.properties"
        path.write_text(text + typo + "\n")
        started = time.monotonic()
        proc = run(path)
        errors = [x for x in proc.stderr.splitlines() if x.startswith("error:")]
        assert proc.returncode == 2 and time.monotonic() - started < 30, (proc.returncode, proc.stderr[-2000:])
        assert errors == [f"error: {path}:{line}: {key}: unknown key; did you mean {suggestion}? {REFUSED}"], errors
        assert "Traceback" not in proc.stderr
    assert f"mm2-configs.{src}.internal" not in topic_names(broker_b.bootstrap), "no herder started"


def test_warn_names_line_and_suggestion_and_never_repeats_a_typo_as_a_key(tmp_path: Path, broker: Broker,
                                                                          broker_b: Broker) -> None:
    """Off (the default): `--check` reads the flow's state and exits 0; each typo is one warning with file,
    line and suggestion, and no advice names a typo as a key to set per cluster or per flow."""
    src, dst = aliases()
    text = mm2_text(broker, broker_b, src, dst, free_port(), "x")
    line = len(text.splitlines()) + 1
    path = tmp_path / "mm2.properties"
    path.write_text(text + f"{src}->{dst}.topcis = x.*\nsync.group.offset.enabled = true\n")
    proc = run(path, "--check")
    assert proc.returncode == 0, proc.stderr[-2000:]
    warnings = [x for x in proc.stderr.splitlines() if "unknown key" in x]
    assert len(warnings) == 2, proc.stderr[-3000:]
    assert f"{path}:{line}: {src}->{dst}.topcis: unknown key; did you mean topics?" in warnings[0] + warnings[1]
    assert f"{path}:{line + 1}: sync.group.offset.enabled: unknown key; did you mean sync.group.offsets.enabled? " \
           "(ignored)" in warnings[0] + warnings[1]
    for typo in ("topcis", "sync.group.offset.enabled"):
        assert f"<alias>.{typo}" not in proc.stderr and f">.{typo}" not in proc.stderr, proc.stderr[-3000:]


def _get(url: str) -> tuple[int, Any]:
    r = httpx.get(url, timeout=10)
    return r.status_code, r.json()


def _heartbeats(b: Broker, src: str) -> int:
    records = read_to_end(b.bootstrap, "heartbeats", 10)
    return sum(1 for _p, _o, k, v in records if Heartbeat.decode(k or b"", v or b"").source_cluster_alias == src)


def _start(path: Path, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO,
                                stdout=out, stderr=subprocess.STDOUT)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(60) == 0


def test_offset_syncs_off_runs_source_and_heartbeats_without_the_checkpoint_connector(
        tmp_path: Path, broker: Broker, broker_b: Broker) -> None:
    """Java's dedicated MirrorMaker with `emit.offset-syncs.enabled = false`: its herder refuses the
    checkpoint connector's config (MirrorCheckpointConfig.validate) and runs the others. Here too, and a
    checkpoint connector an earlier run stored is removed; one WARNING says why; /health names it and its
    status is 404, as for any connector that does not exist."""
    src, dst = aliases()
    prefix, port = f"t{uuid.uuid4().hex[:6]}", free_port()
    create_topic(broker.bootstrap, f"{prefix}1", 1)
    produce_many(broker.bootstrap, f"{prefix}1", 100, 1)
    text = mm2_text(broker, broker_b, src, dst, port, prefix)
    path = tmp_path / "mm2.properties"
    path.write_text(text)
    base = f"http://127.0.0.1:{port}"
    proc = _start(path, tmp_path / "first.log")
    try:  # an earlier run, with the checkpoint connector
        wait_for(lambda: len(_get(f"{base}/connectors")[1]) == 3, 90, "three connectors")
    finally:
        _stop(proc)
    # Without offset syncs, offset-syncs.* settings make MirrorSourceConnector's config invalid (as in Java).
    text = text.replace("offset-syncs.topic.replication.factor=1\n", "")
    path.write_text(text + "emit.offset-syncs.enabled = false\n")
    log = tmp_path / "second.log"
    proc = _start(path, log)
    try:
        wait_for(lambda: _get(f"{base}/connectors")[1] == [HEARTBEAT, SOURCE], 90, "checkpoint connector removed")
        produce_many(broker.bootstrap, f"{prefix}1", 100, 1, start=100)
        wait_for(lambda: len(read_to_end(broker_b.bootstrap, f"{src}.{prefix}1", 10)) == 200, 60, "source copies")
        beats = _heartbeats(broker_b, src)
        wait_for(lambda: _heartbeats(broker_b, src) > beats, 30, "heartbeats go on")
        assert _get(f"{base}/connectors/{CHECKPOINT}/status")[0] == 404
        for url in (f"{base}/health", f"{base}/{src}/{dst}/health"):
            code, body = _get(url)
            assert code == 200 and body["status"] == "healthy", (url, body)
            assert f"{CHECKPOINT} is not started: {CHECKPOINT} can't run with emit.offset-syncs.enabled set to " \
                   f"false ({path}:{len(text.splitlines()) + 1}: emit.offset-syncs.enabled)." in body["message"], body
    finally:
        _stop(proc)
    warnings = [x for x in log.read_text().splitlines() if "WARNING" in x and CHECKPOINT in x]
    assert len(warnings) == 1 and f"{CHECKPOINT} of {src}->{dst} is not started" in warnings[0], warnings
