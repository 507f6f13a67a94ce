"""Exactly-once in dedicated mode: `B.exactly.once.source.support = enabled` in the
mm2.properties of the seed's DR topology (A->B), the MirrorMaker process killed -9 at random moments
while records keep arriving, then a consumer group failing over with its translated offsets.
MirrorConnectorsIntegrationExactlyOnceTest.testReplication enables it the same way (per cluster)."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.harness.brokers import Broker, free_port
from tests.harness.checkpoints import commit, latest_checkpoints
from tests.harness.committed import read_committed
from tests.harness.kafka_io import create_topic, keep_producing, read_all
from tests.harness.mirror import mm2_settings
from tests.harness.workers import REPO, wait_for


def _start(path: Path, log: Path) -> subprocess.Popen[bytes]:
    out = open(log, "ab")  # noqa: SIM115 - owned by the child
    return subprocess.Popen([sys.executable, "-m", "replikafka", "mirror-maker", str(path)], cwd=REPO, stdout=out,
                            stderr=subprocess.STDOUT)


def test_dedicated_exactly_once_survives_kills_and_fails_over_exactly(tmp_path: Path, broker: Broker,
                                                                      txn_broker_b: Broker, unique: str) -> None:
    broker_b = txn_broker_b  # B holds transactions: behind the harness's read_committed proxy on Tansu
    topic, partitions, total = f"ledger{unique}", 2, 8000
    create_topic(broker.bootstrap, topic, partitions)
    path = tmp_path / "mm2.properties"
    path.write_text(f"""clusters = A, B
A.bootstrap.servers = {broker.bootstrap}
B.bootstrap.servers = {broker_b.bootstrap}
A->B.enabled = true
A->B.topics = {topic}
A->B.groups = .*-{unique}
refresh.groups.interval.seconds = 1
B->A.enabled = false
B.exactly.once.source.support = enabled
listeners = http://127.0.0.1:{free_port()}
""" + mm2_settings({"A": broker, "B": broker_b}))
    stop = threading.Event()
    producer = keep_producing(broker.bootstrap, topic, 0, total, partitions, stop)
    proc = _start(path, tmp_path / "mm.log")
    rng = random.Random(unique)
    try:
        for _ in range(3):
            wait_for(lambda: len(read_all(broker_b.bootstrap, f"A.{topic}", idle=0.3)) > 0, 90, "copies on B")
            time.sleep(rng.uniform(1.0, 4.0))  # a random moment: a test of timing, not a synchronisation
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            proc = _start(path, tmp_path / "mm.log")
        producer.join(120)
        source = read_all(broker.bootstrap, topic)
        assert len(source) == total
        copies = wait_for(lambda: (lambda r: r if len(r) >= total else None)(
            read_committed(broker_b.bootstrap, f"A.{topic}", idle=1.0)), 180, "every record committed on B")
        values = [r[3] for r in copies]
        per_partition = {p: [r[3] for r in sorted(copies, key=lambda r: r[1]) if r[0] == p] for p in range(partitions)}
        upstream = {p: [r[3] for r in sorted(source, key=lambda r: r[1]) if r[0] == p] for p in range(partitions)}
        print(f"\nDEDICATED EOS after 3 kill -9: {len(values) - len(set(values))} duplicates, "
              f"{len({r[3] for r in source} - set(values))} missing")
        assert per_partition == upstream, "each record once, in source order per partition"

        # Fail-over: a group that read up to `position` upstream reads the copy of that record next on B.
        where = {r[3]: r[1] for r in copies}
        positions = {p: 1000 + 37 * p for p in range(partitions)}
        for p, position in positions.items():
            commit(broker.bootstrap, f"g{p}-{unique}", topic, position, p)
        found = wait_for(lambda: (lambda cps: cps if all((f"g{p}-{unique}", f"A.{topic}", p) in cps
                                                         for p in positions) else None)(
            latest_checkpoints(broker_b.bootstrap)), 90, "checkpoints of both groups")
        for p, position in positions.items():
            next_upstream = next(r for r in sorted(source, key=lambda r: r[1]) if r[0] == p and r[1] >= position)
            cp = found[(f"g{p}-{unique}", f"A.{topic}", p)]
            assert cp.downstream_offset == where[next_upstream[3]], (p, position, cp)
        print(f"FAIL-OVER: groups at {positions} translate to exactly their next record's copy (0 skipped, 0 re-read)")
    finally:
        stop.set()
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
