"""Opt-in propagation of source topic deletions to the target (`sync.topic.deletions.enabled`, off by
default; Java's MM2 never deletes a topic).

Invariants:

1. Only a topic this flow created is ever deleted. "Flow F created remote topic R" is an entry in F's
   ledger, the compacted topic `mm2-remote-topics.<source>.internal` on the target
   (connectors.mirror.remote_topics_ledger), with `created` true only when written after F's own
   CreateTopics succeeded; a remote topic F found existing gets `created` false (so that its source
   topic's deletion is noticed, and the refusal logged, after a restart too). The ledger is a topic
   because the fact must survive restarts and be read by whichever worker runs the connector next; on
   the target, beside the topics it describes; a topic of its own because Kafka refuses unknown topic
   configs (no marker on R itself) and Java reads MM2's own internal topics (no foreign records
   there). Topics created while the key was off are recorded as found, never as created.
2. Ledger order errs on keeping: the entry is written after R is created (a crash in between leaves R
   unrecorded: kept) and tombstoned before R is deleted (a crash in between leaves R unrecorded: kept).
3. Only a source topic that disappeared from the source cluster's topic list counts, and only while the
   topic filter still selects its name: a filter change never deletes anything.
4. Grace: the source topic must be absent at every refresh for `sync.topic.deletions.grace.period.seconds`,
   measured from the first refresh of this connector instance that saw it missing (a restart starts the
   clock again: later, never sooner), and is listed once more right before R is deleted. A source topic
   that comes back within the grace period keeps R. The refresh that first sees it missing also asks
   for the task reconfiguration, so the tasks (and their producers) have dropped R's partitions before
   R goes, unless the grace period is shorter than a reconfiguration.
5. R holds only this flow's copies, proven per partition from the flow's offset syncs written since R
   was created (`ranges_to_check`): the writer syncs the first record of a run, every upstream gap, every
   downstream discontinuity, and the last record once caught up, so the flow's copies are contiguous
   between syncs and every offset range not accounted for by them must hold no data record (transaction
   markers are allowed); where downstream offsets go back (R was deleted and re-created by someone),
   everything below the later copy must be empty. A record written by someone else exactly where the
   source had a gap of at least as many offsets (source transaction markers, compaction) is
   indistinguishable from that gap; without gaps in the source the proof is exact. Anything unproven,
   or a read that fails, keeps R.
6. Every deletion and every refusal is logged at WARNING and counted once per connector instance (the
   decision is not revisited until the source topic comes back); the refusal says why.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from connectors.mirror.config import MirrorConfig
from connectors.mirror.deletion_evidence import first_record, log_start, read_syncs, syncs_end
from connectors.mirror.metrics import TopicDeletionMetrics
from connectors.mirror.remote_topics_ledger import LedgerEntry, RemoteTopicsLedger
from connectors.mirror.topics import RemoteTopics, TopicSelector
from pyconnect.api.metrics import TaskMetrics
from pyconnect.kafka.admin import Admin
from pyconnect.kafka.clients import KafkaClientError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Range:
    """Offsets [start, end) of a remote partition (`end` None: to its end) that must hold no data
    record; `where` says what the range is, for the log."""

    start: int
    end: int | None
    where: str


def ranges_to_check(syncs: Sequence[tuple[int, int]], start: int) -> list[Range]:
    """The ranges of one remote partition that the flow's syncs (upstream, downstream; in the order
    written) do not account for, given the partition's log start offset `start` (invariant 5)."""
    if not syncs:
        return [Range(start, None, "but this flow never copied into this partition")]
    out = [Range(start, syncs[0][1], f"before this flow's first copy (offset {syncs[0][1]})")]
    for (u0, d0), (u1, d1) in pairwise(syncs):
        if d1 <= d0:  # downstream went back: the partition was re-created; nothing below d1 is proven
            out.append(Range(start, d1, f"before this flow's copy at offset {d1} (the topic was re-created)"))
            continue
        if u1 <= u0:  # upstream went back (source topic re-created, or a task re-copying after a crash):
            # the later sync starts a new run; only the earlier sync's copy itself is known before it.
            out.append(Range(d0 + 1, d1, f"between this flow's copies at offsets {d0} and {d1}"))
            continue
        # Copies were contiguous on both sides between the two syncs; a downstream jump larger than
        # the upstream one is someone else's records (or markers) just before the later sync.
        excess = (d1 - d0) - (u1 - u0)
        if excess > 0:
            out.append(Range(d1 - excess, d1, f"between this flow's copies at offsets {d0} and {d1}"))
    last = syncs[-1][1]
    out.append(Range(last + 1, None, f"after this flow's last copy (offset {last})"))
    clipped = [Range(max(r.start, start), r.end, r.where) for r in out]
    return [r for r in clipped if r.end is None or r.end > r.start]


class GraceClock:
    """When each missing source topic was first seen missing; which are due (invariant 4)."""

    def __init__(self, grace_seconds: float) -> None:
        self.grace = grace_seconds
        self._since: dict[str, float] = {}

    def update(self, missing: Iterable[str], now: float) -> tuple[set[str], set[str], set[str]]:
        """(topics missing for the whole grace period, topics that came back, topics newly missing)."""
        missing = set(missing)
        back = {t for t in self._since if t not in missing}
        new = missing - set(self._since)
        for t in back:
            del self._since[t]
        for t in new:
            self._since[t] = now
        return {t for t, since in self._since.items() if now - since >= self.grace}, back, new


class TopicDeletions:
    """The deletion side of one MirrorSource connector (`refresh` runs on its refresh thread)."""

    def __init__(self, cfg: MirrorConfig, selector: TopicSelector, source: Admin, target: Admin,
                 registry: TaskMetrics | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.cfg, self.selector, self.source, self.target, self.clock = cfg, selector, source, target, clock
        self.policy = cfg.policy()
        self.metrics = TopicDeletionMetrics(cfg.source, cfg.target, registry)
        self.ledger = RemoteTopicsLedger(target, cfg.remote_topics_topic(),
                                         int(cfg["offset-syncs.topic.replication.factor"]), cfg.source,
                                         cfg.client("target", "producer"), cfg.client("target", "consumer"))
        self.grace = GraceClock(float(cfg["sync.topic.deletions.grace.period.seconds"]))
        self._syncs_conf = cfg.client(cfg.offset_syncs_side(), "consumer")
        self._watched: set[str] = set()  # source topics replicated at some refresh of this instance
        self._decided: set[str] = set()  # source topics whose remote topic was deleted or kept

    def ensure_remote(self, remote: RemoteTopics, partitions: dict[str, int]) -> None:
        """`remote.ensure(partitions)`, recording in the ledger the topics it created and those the flow
        found existing (invariants 1, 2)."""
        mark = syncs_end(self._syncs_conf, self.cfg.offset_syncs_topic())
        known = self.ledger.entries()
        for source_topic, created in remote.ensure(partitions).items():
            name = remote.remote(source_topic)
            entry = known.get(name)
            if created or entry is None or entry.source_topic != source_topic:
                self.ledger.record(name, source_topic, created, mark)

    def refresh(self, listed: set[str], selected: set[str]) -> None:
        """One refresh: `listed` is every topic on the source cluster, `selected` those replicated."""
        self._watched |= selected
        owned = {e.source_topic for e in self.ledger.entries().values()
                 if self.selector.should_replicate(e.source_topic)}
        missing = {t for t in self._watched | owned if t not in listed and self.selector.should_replicate(t)}
        due, back, new = self.grace.update(missing, self.clock())
        for topic in sorted(new):
            log.info("source topic %s is gone from cluster %s: its remote topic %s goes in %ss unless it comes "
                     "back (if this flow created it and holds only its copies)", topic, self.cfg.source,
                     self.policy.format_remote_topic(self.cfg.source, topic), self.grace.grace)
        for topic in sorted(back):
            log.info("source topic %s exists again: its remote topic stays", topic)
        self._decided -= back
        due -= self._decided
        if not due:
            return
        still_missing = due - set(self.source.topic_partitions())  # listed again right before deleting
        for topic in sorted(still_missing):
            self._decided.add(topic)
            self._decide(topic)

    def _decide(self, topic: str) -> None:
        remote = self.policy.format_remote_topic(self.cfg.source, topic)
        entry = self.ledger.entries().get(remote)
        if remote not in self.target.topic_partitions():
            if entry is not None:
                self.ledger.forget(remote)
                log.info("remote topic %s of deleted source topic %s is already gone", remote, topic)
            return
        if entry is None or entry.source_topic != topic:
            self._keep(remote, topic, f"this flow did not create it (no entry in {self.ledger.topic})")
            return
        if not entry.created:
            self._keep(remote, topic, "this flow did not create it (it existed when the flow began replicating "
                       "into it)")
            return
        try:
            reason = self._foreign_records(entry)
        except Exception as exc:  # a read failed: nothing proven
            reason = f"its records could not be checked ({exc})"
        if reason is not None:
            self._keep(remote, topic, reason)
            return
        self.ledger.forget(remote)  # before the topic goes (invariant 2)
        try:
            self.target.delete_topic(remote)
        except KafkaClientError as exc:
            self._keep(remote, topic, f"the deletion failed ({exc}); it is no longer in {self.ledger.topic}")
            return
        self.metrics.deleted += 1
        log.warning("deleted remote topic %s: source topic %s has been gone from cluster %s for at least %ss, "
                    "and %s held only this flow's copies", remote, topic, self.cfg.source, self.grace.grace, remote)

    def _foreign_records(self, entry: LedgerEntry) -> str | None:
        """Why `entry.remote` may hold records this flow did not write, or None (invariant 5)."""
        partitions = self.target.topic_partitions().get(entry.remote, 0)
        syncs = read_syncs(self._syncs_conf, self.cfg.offset_syncs_topic(), entry.syncs_from, {entry.source_topic})
        conf = self.cfg.client("target", "consumer")
        for p in range(partitions):
            start = log_start(conf, entry.remote, p)
            for r in ranges_to_check(syncs.get((entry.source_topic, p), []), start):
                found = first_record(conf, entry.remote, p, r.start, r.end)
                if found is not None:
                    return (f"partition {p} holds a record at offset {found} {r.where}, written by a local "
                            "producer, another flow or a restarted task")
        return None

    def _keep(self, remote: str, topic: str, reason: str) -> None:
        self.metrics.refused += 1
        log.warning("keeping remote topic %s although source topic %s was deleted from cluster %s: %s", remote,
                    topic, self.cfg.source, reason)

    def stop(self) -> None:
        self.ledger.stop()
