"""What the cluster's leader does on each turn of its worker's loop (Connect's DistributedHerder, leader side):
an owner's extra duty (MirrorMaker's flow herder), the fencing rounds of exactly-once source connectors,
publishing a new assignment when the connectors, tasks or live workers changed, and automatic restarts.

Invariants:
- Only the worker that is leader right now runs these (the caller asks `is_leader()` every turn); every duty
  is idempotent, so a leader elected mid-way simply does them again.
- A new assignment is published only when it differs from the current one or the leader epoch changed:
  units moving off a live worker are revoked first and placed once it confirms (cluster/handover.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from pyconnect.runtime.auto_restart import AutoRestarter
from pyconnect.runtime.cluster.handover import HandOver
from pyconnect.runtime.cluster.membership import Membership
from pyconnect.runtime.source.fencing import fence_pending
from pyconnect.storage.config_store import ConfigStore

log = logging.getLogger(__name__)


class ExactlyOnceFencing:
    """The exactly-once fencing round, when the worker runs exactly-once source support."""

    def __init__(self, group_id: str, producer_conf: Mapping[str, str], timeout: float) -> None:
        self.group_id, self.producer_conf, self.timeout = group_id, producer_conf, timeout

    def __call__(self, configs: ConfigStore) -> None:
        fence_pending(configs, self.group_id, self.producer_conf, self.timeout)


class LeaderDuties:
    """The leader's side of one worker: holds the hand-over bookkeeping across turns."""

    def __init__(self, membership: Membership, configs: ConfigStore, auto_restarter: AutoRestarter,
                 fencing: ExactlyOnceFencing | None, extra: Callable[[], None] | None = None) -> None:
        self._membership, self._configs, self._auto_restarter = membership, configs, auto_restarter
        self._fencing, self._extra = fencing, extra
        # An old owner that has not confirmed a revocation within a session timeout is treated as dead for
        # the unit (handover.py).
        self._handover = HandOver(membership.clock, membership.session_timeout)

    def run(self) -> None:
        """One turn of the leader's duties (the caller is the leader)."""
        if self._extra is not None:
            self._extra()
        if self._fencing is not None:
            self._fencing(self._configs)
        self._rebalance_if_needed()
        self._auto_restarter.tick(self._membership.leader_epoch)

    def _rebalance_if_needed(self) -> None:
        snapshot = self._configs.snapshot()
        membership = self._membership
        live = {w: m.applied for w, m in membership.live_members().items()}
        current = membership.assignment
        # Units moving off a live worker are revoked first and placed once it confirms (handover.py).
        plan = self._handover.plan(live, current, snapshot.connectors, snapshot.task_ids(),
                                   membership.next_generation())
        if current is None or current.leader_epoch != membership.leader_epoch or not plan.same_as(current):
            log.info("publishing assignment for %d worker(s): %s, revoked: %s", len(live),
                     {w: (len(a.connectors), len(a.tasks)) for w, a in plan.workers.items()},
                     {w: (len(r.connectors), len(r.tasks)) for w, r in plan.revoked.items()})
            membership.publish(plan.workers, plan.revoked)
