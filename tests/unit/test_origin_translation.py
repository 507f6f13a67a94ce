"""Origin-aware checkpoints for active/active under IdentityReplicationPolicy, checked on
generated histories of a three-cluster mesh.

A, B and C each hold partition 0 of topic `t`; producers write on all three, and six flows copy each
cluster's own records to the other two (provenance with max hops 1), in batches, with other records landing
inside a batch, through the real OffsetSyncWriter. The A->B checkpoint's translator (own syncs plus the B->A,
C->A and C->B routes, origin_translation) must, for every position g on A, give a B offset before every record
the group has not read on A (O1). The same with only A->B's own syncs shows what the routes fix: it skips."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from connectors.mirror.formats import OffsetSync
from connectors.mirror.offset_sync_store import OffsetSyncStore
from connectors.mirror.offset_sync_writer import OffsetSyncWriter
from connectors.mirror.origin_translation import OriginAwareTranslator, OriginRoute
from tests.harness.messages import at
from tests.hypothesis_profiles import examples

CLUSTERS = "ABC"
Record = tuple[str, int]  # (origin cluster, sequence number at the origin)


@dataclass
class Mesh:
    logs: dict[str, list[Record]] = field(default_factory=lambda: {c: [] for c in CLUSTERS})
    cursors: dict[tuple[str, str], int] = field(default_factory=dict)  # flow -> next source offset to look at
    stores: dict[tuple[str, str], OffsetSyncStore] = field(default_factory=dict)
    writers: dict[tuple[str, str], OffsetSyncWriter] = field(default_factory=dict)
    produced: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CLUSTERS, 0))

    def __post_init__(self) -> None:
        for s in CLUSTERS:
            for t in CLUSTERS:
                if s != t:
                    store = self.stores[(s, t)] = OffsetSyncStore()
                    self.writers[(s, t)] = OffsetSyncWriter(store.add, 3)
                    self.cursors[(s, t)] = 0

    def produce(self, cluster: str, count: int) -> None:
        for _ in range(count):
            self.logs[cluster].append((cluster, self.produced[cluster]))
            self.produced[cluster] += 1

    def copy(self, s: str, t: str, rnd: random.Random, inside: float) -> None:
        """One batch of flow s->t: the next records of s's own (a skipped record ends a run, P5)."""
        log, at_ = self.logs[s], self.cursors[(s, t)]
        while at_ < len(log) and log[at_][0] != s:
            at_ += 1  # another origin's copy: skipped (max hops 1)
        run = []
        while at_ < len(log) and log[at_][0] == s and len(run) < rnd.randint(1, 8):
            run.append(at_)
            at_ += 1
        self.cursors[(s, t)] = at_
        if not run:
            return
        positions = []
        for up in run:
            if positions and rnd.random() < inside:
                self.produce(t, 1)  # a producer on t writes between the batch's records
            positions.append(len(self.logs[t]))
            self.logs[t].append(log[up])
        self.writers[(s, t)].record_run("t", 0, [at(u) for u in run], positions[0], positions[-1])
        if rnd.random() < 0.3:
            self.writers[(s, t)].flush_pending()


def _mesh(rnd: random.Random, steps: int, inside: float) -> Mesh:
    mesh = Mesh()
    flows = [(s, t) for s in CLUSTERS for t in CLUSTERS if s != t]
    for _ in range(steps):
        if rnd.random() < 0.4:
            mesh.produce(rnd.choice(CLUSTERS), rnd.randint(1, 5))
        else:
            mesh.copy(*rnd.choice(flows), rnd, inside)
    for writer in mesh.writers.values():
        writer.flush_pending()
    for store in mesh.stores.values():
        store.start()
    return mesh


def _translator(mesh: Mesh, routes: bool) -> OriginAwareTranslator:
    s = mesh.stores
    found = {"B": OriginRoute("B", s[("B", "A")], None), "C": OriginRoute("C", s[("C", "A")], s[("C", "B")])}
    return OriginAwareTranslator(s[("A", "B")], lambda: found if routes else {}, lambda topic: True)


def _skipped(mesh: Mesh, g: int, resume: int) -> list[Record]:
    """Records the group had not read on A (at or after g) that sit on B before `resume`."""
    on_b = {rec: pos for pos, rec in enumerate(mesh.logs["B"])}
    return [rec for rec in mesh.logs["A"][g:] if rec in on_b and on_b[rec] < resume]


SETTINGS = settings(max_examples=examples(3_000), deadline=None, suppress_health_check=list(HealthCheck))


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 120), inside=st.sampled_from([0.0, 0.2]))
def test_fail_over_from_a_to_b_skips_nothing_of_any_origin(seed: int, steps: int, inside: float) -> None:
    mesh = _mesh(random.Random(seed), steps, inside)
    translator = _translator(mesh, routes=True)
    for g in range(len(mesh.logs["A"]) + 1):
        resume = translator.translate("t", 0, g)
        if resume is None or resume < 0:
            continue
        assert not _skipped(mesh, g, resume), (g, resume, mesh.logs)


def test_own_syncs_alone_skip_other_origins() -> None:
    """The reason for the routes: with A->B's syncs only, some position skips B's and C's records."""
    rnd = random.Random(20261123)
    skips = 0
    for _ in range(50):
        mesh = _mesh(rnd, 120, 0.0)
        own = _translator(mesh, routes=False)
        for g in range(len(mesh.logs["A"]) + 1):
            resume = own.translate("t", 0, g)
            if resume is not None and resume >= 0:
                skips += len(_skipped(mesh, g, resume))
    assert skips > 0


def test_positions_before_every_sync() -> None:
    """O2: a position before every inbound sync is the origin's offset 0; when the onward syncs do not go back
    that far, the term is -1, and so is the checkpoint."""
    own, inbound, onward = OffsetSyncStore(), OffsetSyncStore(), OffsetSyncStore()
    for store in (own, inbound, onward):
        store.start()
    own.add(OffsetSync("t", 0, 0, 0))
    inbound.add(OffsetSync("t", 0, 50, 10))
    onward.add(OffsetSync("t", 0, 50, 70))
    translator = OriginAwareTranslator(own, lambda: {"B": OriginRoute("B", inbound, None)}, lambda topic: True)
    assert translator.translate("t", 0, 5) == 0  # B's records below A offset 10 are not described: from 0
    via_c = OriginAwareTranslator(own, lambda: {"C": OriginRoute("C", inbound, onward)}, lambda topic: True)
    assert via_c.translate("t", 0, 5) == -1  # C's offset 0 is older than every C->B sync
    # A's records after A offset 0 land after B offset 0; B's unread ones are from B offset 51 on.
    assert translator.translate("t", 0, 11) == 1
    assert OriginAwareTranslator(own, lambda: {}, lambda topic: False).translate("t", 0, 11) == own.translate(
        "t", 0, 11)
