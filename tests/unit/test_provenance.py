"""Provenance headers (connectors/mirror/provenance.py): the codec, the skip decision, loop freedom in
simulated topologies, and exact offset translation over skipped ranges."""

from __future__ import annotations

import string
from collections import Counter
from typing import Any

import confluent_kafka as ck
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from connectors.mirror.formats import OffsetSync
from connectors.mirror.offset_sync_store import OffsetSyncStore
from connectors.mirror.offset_sync_writer import OffsetSyncWriter
from connectors.mirror.provenance import HEADER, MAX_HOPS, Provenance, ProvenanceFilter, applies
from tests.hypothesis_profiles import examples

ID_CHARS = string.ascii_letters + string.digits + "_-"
ids = st.text(ID_CHARS, min_size=1, max_size=64)


@st.composite
def provenances(draw: Any) -> Provenance:
    clusters = draw(st.lists(ids, min_size=2, max_size=MAX_HOPS + 1, unique=True))
    return Provenance(clusters[0], tuple(clusters[1:]))


def spec_valid(value: bytes) -> bool:
    """The format as documented, checked without the codec's regex (an independent reading)."""
    try:
        text = value.decode("ascii")
    except UnicodeDecodeError:
        return False
    fields = text.split(";")
    if len(fields) != 3 or fields[0] != "1":
        return False
    clusters = [fields[1], *fields[2].split(",")]
    if not 2 <= len(clusters) <= MAX_HOPS + 1 or len(set(clusters)) != len(clusters):
        return False
    return all(1 <= len(c) <= 64 and all(ch in ID_CHARS for ch in c) for c in clusters)


@given(provenances())
def test_round_trip(p: Provenance) -> None:
    encoded = p.encode()
    assert spec_valid(encoded)
    assert Provenance.decode(encoded) == p


# Near-valid inputs: pieces of the grammar glued together, plus hostile bytes.
pieces = st.sampled_from([b"1", b"2", b"01", b"1 ", b";", b",", b"A", b"B", b"C", b"\n", b"\xff", b"-", b"_",
                          b"a" * 64, b"a" * 65, b"", b"1;", b"v1", b"\x00", b"\xc3\xa9", b" "])
near = st.lists(pieces, max_size=12).map(b"".join)


@settings(max_examples=examples(3000), suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(near, st.binary(max_size=80)))
def test_every_malformed_value_is_rejected(value: bytes) -> None:
    decoded = Provenance.decode(value)
    assert (decoded is not None) == spec_valid(value)
    if decoded is not None:
        assert decoded.encode() == value  # one spelling per provenance: nothing lenient


@pytest.mark.parametrize("value", [
    b"2;A;B", b"0;A;B", b"01;A;B", b"1.0;A;B", b"v1;A;B",  # versions
    b"1;A", b"1;A;B;C", b"1;A;B;", b";1;A;B", b"1", b"",  # field counts
    b"1;;B", b"1;A;", b"1;A;B,", b"1;A;,B", b"1;A;B,,C", b"1;A B;C", b"1;A;B\n", b"1;A;B ", b" 1;A;B",
    b"1;A.x;B", b"1;A;B:9092", b"1;" + b"a" * 65 + b";B", b"1;\xc3\xa9;B", b"1;A;\x00",  # id syntax
    b"1;A;A", b"1;A;B,A", b"1;A;B,C,B",  # a cluster twice
    b"1;O;" + b",".join(b"c%d" % i for i in range(MAX_HOPS + 1)),  # too many hops
])
def test_malformed_examples(value: bytes) -> None:
    assert Provenance.decode(value) is None
    assert Provenance.decode(value.decode("latin-1")) is None  # a str is never provenance either


def test_not_bytes() -> None:
    assert Provenance.decode(None) is None
    assert Provenance.decode("1;A;B") is None
    assert Provenance.decode(b"1;A;" + b",".join(b"c%d" % i for i in range(MAX_HOPS))) is not None


def test_constructor_refuses_what_decode_refuses() -> None:
    for origin, path in [("A", ()), ("A", ("A",)), ("", ("B",)), ("A", ("B.c",)),
                         ("O", tuple(f"c{i}" for i in range(MAX_HOPS + 1)))]:
        with pytest.raises(ValueError):
            Provenance(origin, path)
    with pytest.raises(ValueError, match="cannot be named"):
        ProvenanceFilter("my cluster", "B")
    with pytest.raises(ValueError, match="same cluster"):
        ProvenanceFilter("A", "A")


def test_applies() -> None:
    assert applies(None, "orders", "orders") and not applies(None, "orders", "A.orders")
    assert applies(True, "orders", "A.orders") and not applies(False, "orders", "orders")


def prov(value: bytes) -> tuple[str, bytes]:
    return (HEADER, value)


@pytest.mark.parametrize(("headers", "expected"), [
    (None, [prov(b"1;A;B")]),
    ([("k", b"v")], [("k", b"v"), prov(b"1;A;B")]),
    ([prov(b"1;C;A")], [prov(b"1;C;A,B")]),  # ours, extended and replaced
    ([("k", b"v"), prov(b"1;C;A"), ("z", None)], [("k", b"v"), ("z", None), prov(b"1;C;A,B")]),
    ([prov(b"1;B;A")], None),  # originated at the target
    ([prov(b"1;C;B,A")], None),  # passed through the target
    ([prov(b"garbage")], [prov(b"garbage"), prov(b"1;A;B")]),  # data: kept, ours added
    ([prov(b"2;B;A")], [prov(b"2;B;A"), prov(b"1;A;B")]),  # another version: data
    ([prov(b"1;B;A ")], [prov(b"1;B;A "), prov(b"1;A;B")]),  # names the target, malformed: data
    ([prov(b"1;B;C")], [prov(b"1;B;C"), prov(b"1;A;B")]),  # valid but not written to A (P2): data
    ([prov(b"1;B;A"), prov(b"junk")], [prov(b"1;B;A"), prov(b"junk"), prov(b"1;A;B")]),  # the last one counts
    ([prov(b"junk"), prov(b"1;B;A")], None),
    ([prov(None)], [prov(None), prov(b"1;A;B")]),
])
def test_headers_out(headers: list[tuple[str, Any]] | None, expected: list[tuple[str, Any]] | None) -> None:
    assert ProvenanceFilter("A", "B").headers_out(headers) == expected


def test_max_hops() -> None:
    mesh = ProvenanceFilter("A", "B", max_hops=1)
    assert mesh.headers_out([prov(b"1;C;A")]) is None  # a copy: a full mesh copies only local records
    assert mesh.headers_out(None) == [prov(b"1;A;B")]
    full = ProvenanceFilter("c31", "Z")
    path = b",".join(b"c%d" % i for i in range(MAX_HOPS))
    assert full.headers_out([prov(b"1;O;" + path)]) is None  # the path cannot grow: never copied further


header_values = st.one_of(st.none(), st.binary(max_size=12), provenances().map(Provenance.encode),
                          st.sampled_from([b"1;B;A", b"1;C;A", b"1;B;C,A", b"1;C;B,A", b"1;C;D,A", b"1;A;C"]))
header_lists = st.one_of(st.none(), st.lists(st.tuples(st.sampled_from([HEADER, "k", "x"]), header_values),
                                              max_size=5))


@settings(max_examples=examples(2000))
@given(header_lists)
def test_decision_properties(headers: list[tuple[str, Any]] | None) -> None:
    """P1-P4 on any header list: a record is skipped only on valid provenance of A naming B; a copy keeps
    every other header in order and ends with exactly one valid header of ours whose path ends at B."""
    f = ProvenanceFilter("A", "B")
    out = f.headers_out(headers)
    ours = [i for i, (k, _) in enumerate(headers or []) if k == HEADER]
    last = Provenance.decode(headers[ours[-1]][1]) if headers and ours else None
    trusted = last if last is not None and last.holder == "A" else None
    if out is None:
        assert trusted is not None and trusted.visited("B")
        return
    assert out[-1][0] == HEADER
    stamped = Provenance.decode(out[-1][1])
    assert stamped is not None and stamped.holder == "B"
    if trusted is None:
        assert out[:-1] == list(headers or []) and stamped == Provenance("A", ("B",))
    else:
        assert headers is not None
        assert out[:-1] == headers[:ours[-1]] + headers[ours[-1] + 1:]
        assert stamped == trusted.extended("B")


def propagate(flows: list[tuple[str, str]], origin: str, max_hops: int = MAX_HOPS) -> Counter[str]:
    """Copies of one record produced on `origin` that every cluster ends up with, flows applied until
    nothing moves (a loop would never end: the step bound catches it)."""
    filters = {(s, t): ProvenanceFilter(s, t, max_hops) for s, t in flows}
    copies: Counter[str] = Counter({origin: 1})
    pending: list[tuple[str, list[tuple[str, Any]] | None]] = [(origin, None)]
    steps = 0
    while pending:
        cluster, headers = pending.pop()
        for (s, t), f in filters.items():
            if s == cluster:
                out = f.headers_out(headers)
                if out is not None:
                    copies[t] += 1
                    pending.append((t, out))
                    steps += 1
                    assert steps < 10_000, "a loop"
    return copies


def test_topologies() -> None:
    """Rings, active/active pairs, chains: every cluster holds the record once; a full mesh of 3 needs
    max_hops=1 for that (otherwise C->B->A and C->A both deliver), and never loops either way."""
    pair = [("A", "B"), ("B", "A")]
    ring = [("A", "B"), ("B", "C"), ("C", "D"), ("D", "A")]
    both_rings = ring + [(t, s) for s, t in ring]
    mesh = [(s, t) for s in "ABC" for t in "ABC" if s != t]
    for flows in (pair, ring):
        for origin in {c for flow in flows for c in flow}:
            assert set(propagate(flows, origin).values()) == {1}
    assert propagate(mesh, "A", max_hops=1) == Counter({"A": 1, "B": 1, "C": 1})
    assert propagate(mesh, "A") == Counter({"A": 1, "B": 2, "C": 2})
    assert max(propagate(both_rings, "A").values()) <= 2


@settings(max_examples=examples(300))
@given(st.lists(st.tuples(st.sampled_from("ABCDE"), st.sampled_from("ABCDE")), max_size=14), st.sampled_from("ABCDE"))
def test_no_loop_in_any_topology(flows: list[tuple[str, str]], origin: str) -> None:
    propagate(sorted({(s, t) for s, t in flows if s != t}), origin)  # terminates


def messages(offsets: list[int], headers: dict[int, list[tuple[str, Any]]]) -> list[ck.Message]:
    return [ck.Message(topic="t", partition=0, offset=o, value=b"%d" % o, headers=headers.get(o)) for o in offsets]


@settings(max_examples=examples(500), suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.booleans(), min_size=1, max_size=60), st.integers(0, 5), st.integers(0, 3))
def test_skipped_ranges_translate_exactly(skips: list[bool], lag: int, polls: int) -> None:
    """P5: runs cut at skipped records, copied downstream, their syncs written and read back: every
    consumer position on the source translates to the downstream offset of the first copied record at
    or after it (0 skipped, 0 re-read), across skipped ranges and poll boundaries."""
    f = ProvenanceFilter("A", "B")
    copy_of_b = [prov(b"1;B;A")]
    all_messages = messages(list(range(len(skips))), {o: copy_of_b for o, s in enumerate(skips) if s})
    syncs: list[OffsetSync] = []
    writer = OffsetSyncWriter(syncs.append, lag)
    down, copied = 0, {}
    cut = max(1, len(all_messages) // (polls + 1))
    for start in range(0, len(all_messages), cut):  # several polls
        for piece in f.pieces(all_messages[start:start + cut]):
            assert [m.offset() for m in piece] == list(range(piece[0].offset(), piece[-1].offset() + 1))
            writer.record_run("t", 0, piece, down, down + len(piece) - 1)
            for m in piece:
                copied[m.offset()] = down
                down += 1
    writer.flush_pending()
    assert f.skipped == sum(skips)
    store = OffsetSyncStore()
    for sync in syncs:
        store.add(sync)
    store.start()
    for position in range(len(skips) + 1):
        following = [copied[o] for o in sorted(copied) if o >= position]
        expected = following[0] if following else down
        if not copied:
            expected = None  # no sync at all: nothing to translate with
        elif position < min(copied):
            expected = -1  # before the partition's first sync: too old, as Java says (and as for any gap there)
        assert store.translate("t", 0, position) == expected, (position, skips)


def test_config_keys() -> None:
    from connectors.mirror.config import SOURCE, MirrorConfig
    from pyconnect.api.config import ConfigException

    base = {"source.cluster.alias": "A", "target.cluster.alias": "B"}
    cfg = MirrorConfig(SOURCE, base)
    assert cfg["provenance.headers.enabled"] is None and cfg["provenance.max.hops"] == 32
    assert MirrorConfig(SOURCE, {**base, "provenance.headers.enabled": "false"})["provenance.headers.enabled"] is False
    for bad in ({"provenance.max.hops": "0"}, {"provenance.max.hops": "33"}, {"provenance.headers.enabled": "yes"}):
        with pytest.raises((ConfigException, ValueError)):
            MirrorConfig(SOURCE, {**base, **bad})


def test_decisions_cached_and_bounded() -> None:
    """Decisions are cached per header value; endless foreign values cannot grow the cache without bound."""
    f = ProvenanceFilter("A", "B")
    for i in range(10_000):
        assert f.headers_out([prov(b"junk%d" % i)]) == [prov(b"junk%d" % i), prov(b"1;A;B")]
    assert len(f._decisions) <= 4096
    assert f.headers_out([prov(b"1;B;A")]) is None and f.headers_out([prov(b"1;B;A")]) is None
    assert f.headers_out([prov(b"1;C;A")]) == f.headers_out([prov(b"1;C;A")]) == [prov(b"1;C;A,B")]
