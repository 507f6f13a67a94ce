"""One identity per worker: two live sessions never act as one worker id (membership.py's invariant).

Time is a FakeClock (see test_membership.py). Sessions beat every 50 ms of fake time and time out after
400 ms. A process is started on its own thread, since a second process of an id waits on the clock.
"""

from __future__ import annotations

import subprocess
import threading
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyconnect.runtime.cluster.membership import Membership, WorkerIdInUse
from pyconnect.runtime.cluster.membership_records import Heartbeat, Leave
from pyconnect.runtime.cluster.worker_identity import MemberTable, this_process
from pyconnect.storage.log import MemoryLog, MemoryTopic
from tests.harness.clock import FakeClock
from tests.hypothesis_profiles import examples
from tests.unit.test_membership import crash, member

SESSION_MS = 400


@dataclass
class Process:
    """A Membership started on a thread: `outcome` holds None once it owns its id, or the refusal."""

    membership: Membership
    thread: threading.Thread
    outcome: list[Exception | None] = field(default_factory=list)
    crashed: bool = False  # its beats stopped, its reads go on (a frozen process that will thaw)
    stopped: bool = False  # it left gracefully

    def settle(self, clock: FakeClock) -> None:
        """Wait until the start thread sleeps on the clock or has ended (and then its heartbeat thread)."""
        clock.await_settled(self.thread)
        if not self.thread.is_alive():
            for thread in self.membership._threads:  # the heartbeat and reader threads
                clock.await_settled(thread)

    @property
    def started(self) -> bool:
        return self.outcome == [None]

    @property
    def refusal(self) -> Exception | None:
        return self.outcome[0] if self.outcome else None

    def owns(self) -> bool:
        """This process would act as its worker id, by the test Worker.my_assignment makes: it started, did not
        leave, and is not fenced."""
        return self.started and not self.stopped and self.membership.fenced is None


def launch(topic: MemoryTopic, clock: FakeClock, wid: str = "w", name: str = "p") -> Process:
    m = Membership(MemoryLog(topic), wid, f"http://{wid}", SESSION_MS, 50, clock=clock)
    outcome: list[Exception | None] = []

    def run() -> None:
        try:
            m.start(timeout=5.0)
            outcome.append(None)
        except WorkerIdInUse as exc:
            outcome.append(exc)

    process = Process(m, threading.Thread(target=run, name=f"start-{name}"), outcome)
    process.thread.start()
    process.settle(clock)
    return process


def beats(topic: MemoryTopic, session: str) -> int:
    return sum(1 for key, value, _p, _o in topic.records
               if key == b"worker-w" and value is not None and session.encode() in value)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def test_a_second_process_with_a_live_owners_id_refuses_within_a_heartbeat(clock: FakeClock) -> None:
    topic = MemoryTopic()
    owner, peer = member(topic, clock, "w"), member(topic, clock, "v")
    assert owner.maybe_claim() and owner.leader_epoch == 1
    second = launch(topic, clock)
    assert second.thread.is_alive(), "it waits: the owner's last beat could be a dead process's"
    clock.advance(0.05)  # the owner's next beat, after the second's join claim
    second.thread.join(5)
    refusal = second.refusal
    assert isinstance(refusal, WorkerIdInUse)
    assert "worker id w is in use" in str(refusal) and owner.session in str(refusal)
    assert "http://w" in str(refusal) and "pid" in str(refusal)
    clock.advance(SESSION_MS / 1000 * 2)  # the refused one never beats again; no claim storm either
    for reader in (owner, peer, launch(topic, clock, "x", "observer").membership):
        assert reader.live_members()["w"].session == owner.session
        assert reader.leader == ("w", owner.session) and reader.leader_epoch == 1
    assert owner.is_leader() and owner.fenced is None and not second.membership.is_leader()
    assert beats(topic, second.membership.session) == 1, "only its join claim"


def test_a_restart_after_a_leave_owns_the_id_at_once(clock: FakeClock) -> None:
    topic = MemoryTopic()
    old, peer = member(topic, clock, "w"), member(topic, clock, "v")
    old.stop()
    new = launch(topic, clock)
    assert new.started, "no wait after a graceful leave"
    assert peer.live_members()["w"].session == new.membership.session


def test_a_restart_long_after_a_crash_owns_the_id_at_once(clock: FakeClock) -> None:
    topic = MemoryTopic()
    old = member(topic, clock, "w")
    crash(old)
    clock.advance(1.0)
    new = launch(topic, clock)
    assert new.started and old.fenced is not None and "taken over" in old.fenced


def test_a_restart_just_after_a_crash_waits_out_the_rest_of_the_session(clock: FakeClock) -> None:
    topic = MemoryTopic()
    old, peer = member(topic, clock, "w"), member(topic, clock, "v")
    assert old.maybe_claim()
    crash(old)  # its log still reads, as a frozen process's would once it thaws
    clock.advance(0.1)
    new = launch(topic, clock)
    clock.advance(0.25)  # the old session has been silent 0.35 s of its 0.4 s
    assert new.thread.is_alive() and peer.live_members()["w"].session == old.session
    clock.advance(0.05)
    new.settle(clock)
    assert new.started and peer.live_members()["w"].session == new.membership.session
    assert old.fenced is not None and not old.is_leader(), "the deposed session never leads again"
    assert not peer.leader_alive(), "the old leader's session no longer counts as the id's"


def test_a_restart_after_a_crash_on_this_machine_owns_the_id_at_once(clock: FakeClock) -> None:
    """The old owner's process ran in this pid namespace and its pid is gone: no session to wait out."""
    topic = MemoryTopic()
    peer = member(topic, clock, "v")
    gone = subprocess.Popen(["true"])
    gone.wait()  # reaped: no process has its pid now
    here = this_process()
    MemoryLog(topic).send(b"worker-w", Heartbeat("w", "old", "http://w", 1, int(clock.time() * 1000), 0, here.host,
                                                 gone.pid, here.pid_ns).to_json())
    assert peer.live_members()["w"].session == "old"
    new = launch(topic, clock)
    assert new.started and peer.live_members()["w"].session == new.membership.session
    assert new.membership.fenced is None


def test_a_deposed_owner_stops_beating_and_reports_nothing(clock: FakeClock) -> None:
    topic = MemoryTopic()
    old = member(topic, clock, "w")
    crash(old)
    clock.advance(0.5)
    assert launch(topic, clock).started
    before = beats(topic, old.session)
    old.report_applied(7)  # a thawed worker's reconcile: no heartbeat goes out for the lost id
    assert beats(topic, old.session) == before and old.fenced is not None


def test_two_takeovers_of_one_dead_session_the_first_in_the_log_wins(clock: FakeClock) -> None:
    """Both read the dead owner before either wrote: the later `replaces` names a session no longer the owner."""
    topic = MemoryTopic()
    dead = member(topic, clock, "w")
    crash(dead)
    clock.advance(1.0)
    raw, ts = MemoryLog(topic), int(clock.time() * 1000)
    raw.send(b"worker-w", Heartbeat("w", "first", "http://w", 1, ts, replaces=dead.session).to_json())
    raw.send(b"worker-w", Heartbeat("w", "second", "http://w", 1, ts, replaces=dead.session).to_json())
    observer = member(topic, clock, "v")
    assert observer.live_members()["w"].session == "first" and dead.fenced is not None


@st.composite
def histories(draw: st.DrawFn) -> list[tuple[str, str, int, str]]:
    """Records of one worker id: (kind, session, ts ms, replaces) in log order, ts never going back."""
    sessions = ["s1", "s2", "s3"]
    out, ts = [], 0
    for _ in range(draw(st.integers(1, 25))):
        ts += draw(st.sampled_from([0, 50, 150, 399, 400, 900]))
        kind = draw(st.sampled_from(["beat", "beat", "beat", "leave"]))
        out.append((kind, draw(st.sampled_from(sessions)), ts, draw(st.sampled_from(["", *sessions]))))
    return out


@given(histories(), st.lists(st.floats(0, 5), min_size=25, max_size=25))
def test_replaying_the_topic_gives_the_owners_of_reading_it_live(history: list[tuple[str, str, int, str]],
                                                                   delays: list[float]) -> None:
    """Whatever the reader's clock says when it reads a record, the owner after each record is the same:
    a worker replaying the topic at start agrees with one that read every record as it came."""
    here = this_process()
    live, replay = MemberTable("me", "mine", 0.4, here), MemberTable("me", "mine", 0.4, here)

    def owner(table: MemberTable) -> str | None:
        m = table.members.get("w")
        return m.session if m and not m.left else None

    for offset, (kind, session, ts, replaced) in enumerate(history):
        for table, seen in ((live, ts / 1000 + delays[offset]), (replay, 100.0)):
            # live: seen at once or by a lagging reader; replayed: every record aged by one late clock
            if kind == "leave":
                table.leave(Leave("w", session, ts))
            else:
                table.heartbeat(Heartbeat("w", session, "", offset, ts, replaces=replaced), offset, seen)
        assert owner(live) == owner(replay), f"readers disagree after {history[:offset + 1]}"


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(["start", "start", "tick", "tick", "wait", "crash", "stop"]), min_size=1,
                max_size=12))
def test_at_most_one_process_acts_as_the_id_whatever_the_interleaving(steps: list[str]) -> None:
    """Processes of one worker id start, crash (beats stop, reads go on: a frozen process), stop and let
    time pass in any order: at every step at most one of them would act as the id, none waits longer
    than a session timeout plus a beat, and a refused one refused only while another process owned it."""
    clock, topic = FakeClock(), MemoryTopic()
    processes: list[Process] = []
    for i, step in enumerate(steps):
        running = [p for p in processes if p.started and not p.crashed and not p.stopped]
        if step == "start":
            processes.append(launch(topic, clock, name=str(i)))
        elif step in ("tick", "wait"):
            clock.advance(0.05 if step == "tick" else 0.45)
            for p in processes:
                p.settle(clock)
        elif running and step == "crash":
            crash(running[0].membership)
            running[0].crashed = True
        elif running and step == "stop":
            running[0].membership.stop()
            running[0].stopped = True
        owners = [p for p in processes if p.owns()]
        assert len(owners) <= 1, f"two processes act as one worker id after {steps[:i + 1]}"
        for p in processes:
            if isinstance(p.refusal, WorkerIdInUse):
                assert any(q.started for q in processes if q is not p), "refused with no other owner ever"
    clock.advance(0.45)  # a session timeout and a beat: every waiting process has decided
    for p in processes:
        p.settle(clock)
        assert p.outcome, "still waiting after a session timeout"
