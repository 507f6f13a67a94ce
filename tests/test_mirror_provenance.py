"""Prefix-free active/active: IdentityReplicationPolicy with provenance headers, in dedicated
mode on real brokers. Rings and meshes keep each record once per cluster; foreign provenance headers are
data unless valid; offset translation over skipped ranges stays exact."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from connectors.mirror.provenance import HEADER, Provenance
from pyconnect.kafka.admin import Admin
from pyconnect.testing.brokers import Broker
from tests.harness.checkpoints import commit, latest_checkpoints
from tests.harness.kafka_io import create_topic, produce_many, read_messages, read_to_end
from tests.harness.mirror import mm2_settings, offset_syncs, sync_store
from tests.harness.request_counter import start_for_concurrent_writers
from tests.harness.workers import wait_for
from tests.test_mirror_topologies import MirrorMakerProcess

IDENTITY = "org.apache.kafka.connect.mirror.IdentityReplicationPolicy"


def cluster_id(b: Broker) -> str:
    return Admin({"bootstrap.servers": b.bootstrap}).cluster_id()


def mm2_file(path: Path, named: dict[str, Broker], flows: list[tuple[str, str]], topic: str, extra: str = "") -> Path:
    path.write_text(f"clusters = {', '.join(named)}\n"
                    + "".join(f"{a}.bootstrap.servers = {b.bootstrap}\n" for a, b in named.items())
                    + "".join(f"{s}->{t}.enabled = true\n" for s, t in flows)
                    + f"topics = {topic}\nreplication.policy.class = {IDENTITY}\nemit.heartbeats.enabled = false\n"
                    + extra + mm2_settings(named))
    return path


def producer_overrides(b: Broker) -> dict[str, str]:
    return {k: v for k, v in b.client_overrides.items() if not k.startswith("fetch.")}


def values(b: Broker, topic: str) -> Counter[bytes]:
    return Counter(r[3] or b"" for r in read_to_end(b.bootstrap, topic))


def produce_concurrently(jobs: list[tuple[Broker, str, int, int]]) -> None:
    """(broker, topic, first value, count) each on its own thread, in bursts of 100 over 2 partitions:
    producers on every cluster write while the mirror copies."""
    failures: list[BaseException] = []

    def run(b: Broker, topic: str, first: int, count: int) -> None:
        try:
            for start in range(first, first + count, 100):
                produce_many(b.bootstrap, topic, min(100, first + count - start), 2, start=start,
                             overrides=producer_overrides(b))
                time.sleep(0.05)  # pacing: the two sides' producers interleave, as live traffic does
        except BaseException as exc:
            failures.append(exc)
    threads = [threading.Thread(target=run, args=job) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not failures, failures


def each_once(named: dict[str, Broker], topic: str, expected: set[bytes], timeout: float) -> None:
    """Every cluster comes to hold every expected value; then exactly once, and nothing else."""
    for alias, b in named.items():
        try:
            wait_for(lambda b=b: set(values(b, topic)) >= expected, timeout, f"every record on {alias}", interval=1)
        except AssertionError as exc:  # say which records are missing: by origin, and the first few
            missing = sorted(expected - set(values(b, topic)))
            by_origin = Counter(origin(v) for v in missing)
            raise AssertionError(f"{exc}: {len(missing)} missing, by origin {dict(by_origin)}, "
                                 f"first {missing[:5]}") from None
    for alias, b in named.items():
        got = values(b, topic)
        assert set(got) == expected and max(got.values()) == 1, (alias, sum(got.values()), got.most_common(3))


def stays_stable(count: Callable[[], dict[str, int]], seconds: float) -> dict[str, int]:
    """The counts do not move for `seconds` (polled every ~3 s): nothing loops."""
    first = count()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(min(3.0, max(0.0, deadline - time.monotonic())))
        assert count() == first, f"counts moved: {first} -> {count()}"
    return first


def provenance_of(message: object) -> Provenance | None:
    found = [v for k, v in (message.headers() or []) if k == HEADER]  # type: ignore[attr-defined]
    return Provenance.decode(found[-1]) if found else None


def test_two_cluster_identity_ring(tmp_path: Path, own_abc: list[Broker]) -> None:
    """The measurement (1,700 records became 39,265 copies): now exactly 1,700 per cluster."""
    broker, broker_b, _ = own_abc
    t = f"orders{uuid.uuid4().hex[:6]}"
    named = {"A": broker, "B": broker_b}
    for b in named.values():
        create_topic(b.bootstrap, t, 2)
    mm = MirrorMakerProcess(mm2_file(tmp_path / "ring.properties", named, [("A", "B"), ("B", "A")], t),
                            tmp_path / "mm.log")
    try:
        produce_concurrently([(broker, t, 0, 1000), (broker_b, t, 1000, 700)])
        expected = {f"{t}:{i}".encode() for i in range(1700)}
        each_once(named, t, expected, 180)
        counts = stays_stable(lambda: {a: sum(values(b, t).values()) for a, b in named.items()}, 15)
        assert counts == {"A": 1700, "B": 1700}
        ids = {alias: cluster_id(b) for alias, b in named.items()}
        for here, there in (("A", "B"), ("B", "A")):
            for m in read_messages(named[here].bootstrap, t, idle=1.0):
                local = int(m.value().rsplit(b":", 1)[1]) < 1000 if here == "A" else \
                    int(m.value().rsplit(b":", 1)[1]) >= 1000
                assert provenance_of(m) == (None if local else Provenance(ids[there], (ids[here],))), m.value()
    finally:
        mm.stop()


Headers = list[tuple[str, bytes]]


def foreign_records(src: str, dst: str) -> list[tuple[bytes, Headers | None, Headers | None]]:
    """(value, headers, headers of the copy or None: skipped) as a foreign producer on `src` might write
    them, the mirror going to `dst`."""
    ours = (HEADER, f"1;{src};{dst}".encode())

    def data(headers: Headers | None) -> tuple[Headers | None, Headers]:
        return headers, [*(headers or []), ours]  # kept as they are, ours added
    return [
        (b"from-target", [("trace", b"y"), (HEADER, f"1;{dst};{src}".encode())], None),
        (b"plain", *data(None)),
        (b"other-header", *data([("trace", b"x")])),
        (b"wrong-version", *data([(HEADER, f"2;{dst};{src}".encode())])),
        (b"garbage", *data([(HEADER, b"\xff\x00garbage")])),
        (b"target-malformed", *data([(HEADER, f"1;{dst};{src} ".encode())])),
        (b"target-empty-field", *data([(HEADER, f"1;{dst};;{src}".encode())])),
        (b"target-bad-id", *data([(HEADER, f"1;{dst}!;{src}".encode())])),
        (b"target-not-written-here", *data([(HEADER, f"1;{dst};other".encode())])),
        (b"from-elsewhere", [("trace", b"z"), (HEADER, f"1;elsewhere;{src}".encode())],
         [("trace", b"z"), (HEADER, f"1;elsewhere;{src},{dst}".encode())]),  # ours, extended
        (b"through-target", [(HEADER, f"1;elsewhere;{dst},{src}".encode())], None),
    ]


def test_foreign_provenance_headers_are_data_unless_valid(tmp_path: Path, broker: Broker, broker_b: Broker) -> None:
    """Malformed provenance is copied (kept as data, ours added); a valid header naming
    the target is the feature: skipped. Offset translation over the skipped records stays exact."""
    t = f"foreign{uuid.uuid4().hex[:6]}"
    src, dst = cluster_id(broker), cluster_id(broker_b)
    cases = foreign_records(src, dst)
    create_topic(broker.bootstrap, t, 1)
    create_topic(broker_b.bootstrap, t, 1)
    producer = Producer({"bootstrap.servers": broker.bootstrap, **producer_overrides(broker)})
    for round_ in range(3):  # skipped records first, in the middle and last in the partition
        for value, headers, _ in cases:
            producer.produce(t, b"%s#%d" % (value, round_), headers=headers)
    assert producer.flush(30) == 0
    group, inside = f"g-{t}", len(cases) + len(cases) - 1  # at round 1's last record: a skipped range
    commit(broker.bootstrap, group, t, inside)
    named = {"A": broker, "B": broker_b}
    mm = MirrorMakerProcess(mm2_file(tmp_path / "ab.properties", named, [("A", "B")], t), tmp_path / "mm.log")
    try:
        copied = [(v, out) for v, _, out in cases if out is not None]
        got = wait_for(lambda: (lambda ms: ms if len(ms) >= 3 * len(copied) else None)(
            read_messages(broker_b.bootstrap, t, idle=1.0)), 120, "the copies on B", interval=1)
        assert [m.value() for m in got] == [b"%s#%d" % (v, r) for r in range(3) for v, _ in copied]
        for m, (_, headers) in zip(got, copied * 3, strict=True):
            assert m.headers() == headers, m.value()
        upstream = [o for o in range(3 * len(cases)) if cases[o % len(cases)][2] is not None]
        check_translation(broker, t, upstream, 3 * len(cases))
        # The checkpoint of a group inside the skipped range names the copy of the next copied record.
        exact = next(d for d, u in enumerate(upstream) if u >= inside)
        wait_for(lambda: (lambda cp: cp is not None and cp.downstream_offset == exact)(
            latest_checkpoints(broker_b.bootstrap).get((group, t, 0))), 60, "the group's exact checkpoint", interval=1)
    finally:
        mm.stop()


def check_translation(broker: Broker, topic: str, copied_upstream: list[int], end: int) -> None:
    """Every consumer position on the source translates to the downstream offset of the first copied
    record at or after it (the copies are at 0, 1, 2, ... on the target): 0 skipped, 0 re-read. The
    positions inside skipped ranges are exact too; one before the partition's first sync (its leading skipped
    record) is Java's -1, "too old"."""
    last = len(copied_upstream) - 1
    store = wait_for(lambda: (lambda s: s if s.translate(topic, 0, copied_upstream[-1]) == last else None)(
        sync_store(offset_syncs(broker.bootstrap), topic)), 60, "offset syncs", interval=1)
    for position in range(end + 1):
        following = [d for d, u in enumerate(copied_upstream) if u >= position]
        expected = following[0] if following else len(copied_upstream)
        assert store.translate(topic, 0, position) == (-1 if position < copied_upstream[0] else expected), position


def read_from(b: Broker, topic: str, offsets: dict[int, int]) -> list[bytes]:
    consumer = Consumer({"bootstrap.servers": b.bootstrap, "group.id": f"r-{uuid.uuid4().hex}",
                         "enable.auto.commit": False, "enable.partition.eof": True})
    consumer.assign([TopicPartition(topic, p, o) for p, o in offsets.items()])
    out, done = [], set()
    deadline = time.monotonic() + 60
    while len(done) < len(offsets) and time.monotonic() < deadline:
        for m in consumer.consume(500, 0.5):
            if m.error() is None:
                out.append(m.value())
            elif m.error().code() == -191:  # _PARTITION_EOF
                done.add(m.partition())
    consumer.close()
    return out


def committed_on(b: Broker, group: str, topic: str, partitions: int) -> dict[int, int] | None:
    consumer = Consumer({"bootstrap.servers": b.bootstrap, "group.id": group})
    got = consumer.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=10)
    consumer.close()
    offsets = {tp.partition: tp.offset for tp in got}
    return offsets if all(o >= 0 for o in offsets.values()) else None


def test_three_cluster_ring(tmp_path: Path, own_abc: list[Broker]) -> None:
    """A one-way ring A->B->C->A: records travel two hops (their path extended at each), stop before
    their origin, and every cluster holds each record once."""
    broker, broker_b, broker_c = own_abc
    t = f"ring{uuid.uuid4().hex[:6]}"
    named = {"A": broker, "B": broker_b, "C": broker_c}
    for b in named.values():
        create_topic(b.bootstrap, t, 2)
    flows = [("A", "B"), ("B", "C"), ("C", "A")]
    mm = MirrorMakerProcess(mm2_file(tmp_path / "ring3.properties", named, flows, t), tmp_path / "mm.log")
    try:
        produce_concurrently([(broker, t, 0, 200), (broker_b, t, 1000, 200), (broker_c, t, 2000, 200)])
        expected = {f"{t}:{i}".encode() for i in (*range(200), *range(1000, 1200), *range(2000, 2200))}
        each_once(named, t, expected, 180)
        stays_stable(lambda: {a: sum(values(b, t).values()) for a, b in named.items()}, 15)
        ids = {alias: cluster_id(b) for alias, b in named.items()}
        after = {"A": "BCA", "B": "CAB", "C": "ABC"}  # origin -> the clusters it reaches, in order
        for here, b in named.items():
            for m in read_messages(b.bootstrap, t, idle=1.0):
                home = origin(m.value())
                route = after[home][:after[home].index(here) + 1] if home != here else ""
                expected_p = Provenance(ids[home], tuple(ids[c] for c in route)) if route else None
                assert provenance_of(m) == expected_p, (here, m.value())
    finally:
        mm.stop()


def problems(log: Path, last: int = 6) -> list[str]:
    """The last WARNING/ERROR lines of a mirror's log, shortened: for a failure message."""
    lines = [ln for ln in log.read_text(errors="replace").splitlines() if " WARNING " in ln or " ERROR " in ln]
    return [ln[:300] for ln in lines[-last:]]


def origin(value: bytes) -> str:
    return "ABC"[int(value.rsplit(b":", 1)[1]) // 1000]


@pytest.fixture
def own_abc() -> Iterator[list[Broker]]:
    """A, B and C of the ring and mesh tests' own:
    - on the session's shared brokers the flows' config topics kept one test's connector configs for the next, and
      the mesh's herders started the ring's first (tasks of another topic, and a C->A task bound for a C that was
      gone);
    - partitions here have several writers at once (local producers and flows) while the flows tail them,
      and Tansu then lets a tailing consumer skip a record for good (docs/brokers.md): on Tansu, each broker
      is behind a proxy that serializes Produce (tests/harness/request_counter.py)."""
    started = [start_for_concurrent_writers(f"mesh{alias}", index) for index, alias in enumerate("ABC")]
    yield [s.broker for s in started]
    for s in started:
        s.stop()


def test_three_cluster_identity_mesh(tmp_path: Path, own_abc: list[Broker]) -> None:
    """A, B and C each replicate `t` to the other two under its own name, producers on all
    three. Every cluster ends with each record exactly once, the counts stay put for 30 s, and a group that
    consumed part of the topic on A fails over to B at the offsets the checkpoint connector committed there."""
    broker, broker_b, broker_c = own_abc
    t = f"mesh{uuid.uuid4().hex[:6]}"
    named = {"A": broker, "B": broker_b, "C": broker_c}
    group = f"app-{t}"
    # A full mesh copies only the records produced on each flow's source (one hop): C's records reach A
    # from C, not again through B.
    extra = (f"provenance.max.hops = 1\ngroups = {group}\nrefresh.groups.interval.seconds = 1\n"
             "offset-syncs.topic.location = target\n"  # every route's syncs within reach of A and B
             "sync.group.offsets.enabled = true\nsync.group.offsets.interval.seconds = 1\n")
    for b in named.values():
        create_topic(b.bootstrap, t, 2)
    flows = [(s, d) for s in named for d in named if s != d]
    mm = MirrorMakerProcess(mm2_file(tmp_path / "mesh.properties", named, flows, t, extra), tmp_path / "mm.log")
    try:
        # Two rounds: the second is produced while all six flows run, so each cluster's partitions interleave
        # records of the three origins (the first lands mostly before the flows have started).
        for first in (0, 300):
            produce_concurrently([(broker, t, first, 300), (broker_b, t, 1000 + first, 300),
                                  (broker_c, t, 2000 + first, 300)])
            expected = {f"{t}:{i}".encode() for base in (0, 1000, 2000) for i in range(base, base + first + 300)}
            try:
                each_once(named, t, expected, 240)
            except AssertionError as exc:  # the mirror's own account of what went wrong
                raise AssertionError(f"{exc}; the mirror's warnings: {problems(tmp_path / 'mm.log')}") from None
        counts = stays_stable(lambda: {a: sum(values(b, t).values()) for a, b in named.items()}, 30)
        assert counts == {"A": 1800, "B": 1800, "C": 1800}
        failover(broker, broker_b, t, group, expected)
    finally:
        mm.stop()


def failover(a: Broker, b: Broker, t: str, group: str, expected: set[bytes]) -> None:
    """A group reads half of each partition on A; the A->B checkpoint connector commits its translated
    offsets on B; the group resumes there and skips nothing, whatever the records' origin: the translation
    follows A's own records through the A->B syncs, B's back through the B->A syncs, and C's back through
    C->A and on through C->B (connectors/mirror/origin_translation.py; every flow's syncs on its target)."""
    on_a: dict[int, list[bytes]] = {0: [], 1: []}
    for p, _o, _k, v in sorted(read_to_end(a.bootstrap, t), key=lambda r: (r[0], r[1])):
        on_a[p].append(v or b"")
    positions = {p: len(vs) // 2 for p, vs in on_a.items()}  # the group read half of each partition on A
    seen = {v for p, vs in on_a.items() for v in vs[:positions[p]]}
    for p, position in positions.items():
        commit(a.bootstrap, group, t, position, partition=p)
    resume = wait_for(lambda: committed_on(b, group, t, 2), 90, "the group's offsets committed on B", interval=1)
    read = read_from(b, t, resume)
    skipped = expected - seen - set(read)
    by_origin = Counter(origin(v) for v in skipped)
    print(f"failover A->B at {positions} -> {resume}: {len(read)} read on B, "
          f"{len(seen & set(read))} read twice, skipped by origin {dict(by_origin)}")
    assert not skipped, by_origin
    assert len(seen & set(read)) < len(seen), "the translation re-reads less than everything"
