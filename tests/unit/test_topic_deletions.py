"""The decision logic of topic deletion propagation (connectors.mirror.topic_deletions): which offset
ranges of a remote partition the flow's syncs leave unaccounted for, the grace clock, and the keys.

No Kafka test to port: Java's MM2 never deletes a topic. The property tests drive the project's real
OffsetSyncWriter over generated remote logs (the flow's copies with upstream gaps, other writers'
records, transaction markers, clean task restarts)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectors.mirror.config import SOURCE
from connectors.mirror.maker_config import Flow, MirrorMakerConfig
from connectors.mirror.offset_sync_writer import OffsetSyncWriter
from connectors.mirror.source_connector import MirrorSourceConnector
from connectors.mirror.topic_deletions import GraceClock, Range, ranges_to_check
from pyconnect.config.properties import parse_properties
from tests.hypothesis_profiles import examples

# ---------------------------------------------------------------------------------- ranges_to_check


def test_a_clean_copy_leaves_only_the_tail_to_check() -> None:
    # syncs at the first record, every 10 records (offset.lag.max) and the last one
    syncs = [(100, 0), (110, 10), (120, 20), (125, 25)]
    assert ranges_to_check(syncs, 0) == [Range(26, None, "after this flow's last copy (offset 25)")]


def test_no_syncs_means_the_whole_partition_must_be_empty() -> None:
    assert ranges_to_check([], 7) == [Range(7, None, "but this flow never copied into this partition")]


def test_records_before_the_first_copy_are_checked_unless_retention_removed_them() -> None:
    assert ranges_to_check([(0, 3)], 0)[0] == Range(0, 3, "before this flow's first copy (offset 3)")
    assert ranges_to_check([(0, 3)], 3) == [Range(4, None, "after this flow's last copy (offset 3)")]


def test_a_downstream_jump_larger_than_the_upstream_one_is_checked() -> None:
    # 5 copies at 0..4, two foreign records at 5..6, the next copy at 7 (upstream 105)
    ranges = ranges_to_check([(100, 0), (105, 7)], 0)
    assert ranges[0] == Range(5, 7, "between this flow's copies at offsets 0 and 7")


def test_an_upstream_gap_alone_is_no_evidence() -> None:
    # a source transaction marker at 105: upstream jumps by 6, downstream by 5
    assert ranges_to_check([(100, 0), (106, 5)], 0) == [Range(6, None, "after this flow's last copy (offset 5)")]


def test_a_topic_re_created_under_the_flow_is_checked_from_its_start() -> None:
    # copies up to downstream 50, then the topic was deleted and re-created and copies continue at 3
    ranges = ranges_to_check([(0, 0), (50, 50), (51, 3)], 0)
    assert Range(0, 3, "before this flow's copy at offset 3 (the topic was re-created)") in ranges


def test_a_source_topic_re_created_under_the_flow_starts_a_new_run() -> None:
    # the source topic was re-created (upstream back to 0) while the remote topic stayed: copies go on at 51
    assert ranges_to_check([(0, 0), (50, 50), (0, 51)], 0) == [
        Range(52, None, "after this flow's last copy (offset 51)")]
    # ... and a record someone wrote in between is found
    assert ranges_to_check([(0, 0), (50, 50), (0, 52)], 0)[0] == Range(
        51, 52, "between this flow's copies at offsets 50 and 52")


@dataclass
class _Msg:
    value: int

    def offset(self) -> int:
        return self.value


# One step of a remote partition's life: ("copy", upstream gap before it), ("foreign", 0), ("marker", 0),
# ("restart", 0): the task stops cleanly and a new writer continues, or ("recreate", 0): the source topic
# is deleted and re-created under the caught-up task (upstream offsets start again at 0).
_STEP = st.one_of(st.tuples(st.just("copy"), st.sampled_from([0, 0, 0, 1, 2, 5])),
                  st.tuples(st.sampled_from(["foreign", "marker", "restart", "recreate"]), st.just(0)))


def _simulate(steps: list[tuple[str, int]], max_lag: int, runs: bool) -> tuple[list[str], list[tuple[int, int]]]:
    """The remote log (kind of each offset) and the syncs the real writer emits, caught up at the end."""
    log: list[str] = []
    syncs: list[tuple[int, int]] = []
    writer = OffsetSyncWriter(lambda s: syncs.append((s.upstream_offset, s.downstream_offset)), max_lag)
    upstream = 1000
    pending: list[tuple[int, int]] = []  # a run of copies acknowledged together

    def ack() -> None:
        if not pending:
            return
        if runs:
            writer.record_run("t", 0, [_Msg(u) for u, _ in pending], pending[0][1], pending[-1][1])
        else:
            for u, d in pending:
                writer.record("t", 0, u, d)
        pending.clear()

    for kind, gap in steps:
        if kind == "copy":
            upstream += gap
            pending.append((upstream, len(log)))
            log.append("flow")
            upstream += 1
            continue
        ack()
        if kind == "restart":
            writer.flush_pending()
            writer = OffsetSyncWriter(lambda s: syncs.append((s.upstream_offset, s.downstream_offset)), max_lag)
        elif kind == "recreate":
            writer.flush_pending()
            upstream = 0
        else:
            log.append("foreign" if kind == "foreign" else "marker")
    ack()
    writer.flush_pending()
    return log, syncs


def _covered(log: list[str], ranges: list[Range]) -> list[str]:
    return [log[o] for r in ranges for o in range(r.start, len(log) if r.end is None else min(r.end, len(log)))]


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(_STEP, max_size=60), st.integers(0, 6), st.booleans())
def test_ranges_never_cover_the_flows_own_copies(steps: list[tuple[str, int]], max_lag: int, runs: bool) -> None:
    """No false refusal: whatever else the partition holds, every range checked is free of the flow's
    copies, so a partition holding only copies (and markers) is deleted."""
    log, syncs = _simulate(steps, max_lag, runs)
    assert "flow" not in _covered(log, ranges_to_check(syncs, 0))


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(_STEP, max_size=60), st.integers(0, 6), st.booleans())
def test_foreign_records_are_found_unless_they_sit_in_an_upstream_gap(steps: list[tuple[str, int]], max_lag: int,
                                                                      runs: bool) -> None:
    """A record of another writer is found when the next copy after it follows no upstream gap (or it
    precedes every copy, or no copy follows it); only a record at the same place as a source gap can hide."""
    log, syncs = _simulate(steps, max_lag, runs)
    covered = "foreign" in _covered(log, ranges_to_check(syncs, 0))
    seen_copy, visible = False, False
    for i, (kind, _gap) in enumerate(steps):
        if kind == "copy":
            seen_copy = True
        if kind != "foreign":
            continue
        following = [g for k, g in steps[i + 1:] if k == "copy"]
        if not seen_copy or not following or following[0] == 0:
            visible = True
    if visible:
        assert covered
    if "foreign" not in log:
        assert not covered


def test_a_foreign_record_in_a_source_gap_of_its_size_is_the_documented_blind_spot() -> None:
    log, syncs = _simulate([("copy", 0), ("copy", 0), ("foreign", 0), ("copy", 1)], 100, False)
    assert log == ["flow", "flow", "foreign", "flow"]
    assert "foreign" not in _covered(log, ranges_to_check(syncs, 0))


# ---------------------------------------------------------------------------------------- GraceClock


def test_grace_clock_waits_the_whole_period() -> None:
    clock = GraceClock(3.0)
    assert clock.update({"a"}, 10.0) == (set(), set(), {"a"})
    assert clock.update({"a"}, 12.9) == (set(), set(), set())
    assert clock.update({"a"}, 13.0) == ({"a"}, set(), set())


def test_grace_clock_restarts_when_the_topic_comes_back() -> None:
    clock = GraceClock(3.0)
    clock.update({"a"}, 0.0)
    assert clock.update(set(), 2.0) == (set(), {"a"}, set())
    assert clock.update({"a"}, 2.5) == (set(), set(), {"a"})
    assert clock.update({"a"}, 5.0) == (set(), set(), set())
    assert clock.update({"a"}, 5.5) == ({"a"}, set(), set())


@settings(max_examples=examples(300), deadline=None)
@given(st.floats(0, 30), st.lists(st.tuples(st.floats(0.01, 5), st.booleans()), max_size=40))
def test_due_only_after_being_missing_at_every_refresh_for_the_grace_period(
        grace: float, refreshes: list[tuple[float, bool]]) -> None:
    clock, now, missing_since = GraceClock(grace), 0.0, None
    for step, missing in refreshes:
        now += step
        due, _back, _new = clock.update({"t"} if missing else set(), now)
        missing_since = (missing_since if missing_since is not None else now) if missing else None
        assert ("t" in due) == (missing_since is not None and now - missing_since >= grace)


# ----------------------------------------------------------------------------------------- the keys


def _base(**extra: str) -> dict[str, str]:
    return {"connector.class": "MirrorSourceConnector", "source.cluster.alias": "A", "target.cluster.alias": "B",
            "source.cluster.bootstrap.servers": "a:9092", "target.cluster.bootstrap.servers": "b:9092", **extra}


def test_keys_are_defined_with_their_defaults() -> None:
    values = SOURCE.parse(_base())
    assert values["sync.topic.deletions.enabled"] is False
    assert values["sync.topic.deletions.grace.period.seconds"] == 300
    shown = MirrorSourceConnector().validate(_base())
    assert shown["sync.topic.deletions.enabled"].value in (False, "false")
    assert not shown["sync.topic.deletions.enabled"].errors


@pytest.mark.parametrize("key", ["emit.offset-syncs.enabled", "refresh.topics.enabled"])
def test_deletions_need_the_offset_syncs_and_the_topic_refresh(key: str) -> None:
    values = MirrorSourceConnector().validate(_base(**{"sync.topic.deletions.enabled": "true", key: "false"}))
    assert any(key in e for e in values["sync.topic.deletions.enabled"].errors)


def test_a_negative_grace_period_is_refused() -> None:
    values = MirrorSourceConnector().validate(_base(**{"sync.topic.deletions.grace.period.seconds": "-1"}))
    assert values["sync.topic.deletions.grace.period.seconds"].errors


def test_mm2_properties_pass_the_keys_per_flow_and_globally() -> None:
    cfg = MirrorMakerConfig(parse_properties(
        "clusters = A, B, C\nA.bootstrap.servers = a:9092\nB.bootstrap.servers = b:9092\n"
        "C.bootstrap.servers = c:9092\nA->B.enabled = true\nC->B.enabled = true\n"
        "sync.topic.deletions.grace.period.seconds = 60\nA->B.sync.topic.deletions.enabled = true\n",
        "mm2.properties"), None)
    a_b = cfg.connector_config(Flow("A", "B"), "MirrorSourceConnector")
    c_b = cfg.connector_config(Flow("C", "B"), "MirrorSourceConnector")
    assert a_b["sync.topic.deletions.enabled"] == "true" and a_b["sync.topic.deletions.grace.period.seconds"] == "60"
    assert "sync.topic.deletions.enabled" not in c_b and c_b["sync.topic.deletions.grace.period.seconds"] == "60"
