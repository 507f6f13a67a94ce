"""Checkpoints for active/active clusters that share topic names: a group's position translated per origin.

Under IdentityReplicationPolicy a topic `t` on cluster A holds records of several origins: those produced on A
and the copies flows X->A brought from other clusters. The A->B flow copies only some of them (provenance
skips a record whose origin or path names B, or that has travelled `provenance.max.hops`); the others reach B
by their own routes, or are B's own. One offset sync store (the A->B flow's) describes only the records it
copied, so a checkpoint computed from it alone can pass records of other origins the group had not read.
Here the group's position g on A's partition is translated once per route and the checkpoint is the lowest:

- the flow's own syncs, forwards: where on B the records A->B copied from g on start (offset_sync_store D);
- for each origin X with a flow X->A: the X->A syncs backwards give r_X, an offset of X's partition such that
  every X record the group has not read on A is at or after r_X (offset_sync_store F); then forwards to B
  through the X->B syncs, or r_X itself when X is B (B holds its own records at their own offsets).

Invariants:
O1 (never skips) Every record on A at or after g is in one of the routes' sets: copied by A->B, or of an origin
   X with an X->A flow (it came to A by that flow). Each route's term is at or before every unread record of
   its set on B (D and F, composed: F's r_X is at or before the unread X records, D's forward translation of
   r_X at or before their copies). So the minimum passes none.
O2 (unknown stays unknown) A term of -1 (a position older than every sync of the flow that would translate it
   forwards) makes the checkpoint -1: it is not emitted, as MM2 emits none for such a position. Backwards,
   a position before every sync gives the origin's offset 0 (nothing is known to have been read), which the
   onward syncs translate exactly when they go back to the origin's first record. A route with no sync at all for the
   partition (None) contributes nothing: no record of that origin has reached A's partition, up to the
   moment between a route's first record landing and its first sync being read (the writer sends it at
   once; the checkpoint task tails the topic).
O3 (scope) Routes are direct flows. A record that reached A over two hops (a ring X->Y->A) belongs to the
   Y->A route, whose backward step gives Y's offsets; it is counted when Y->B exists or Y is B, else only
   through A->B's own syncs when A->B copies it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol


class Translates(Protocol):
    """What GroupCheckpoints needs: a consumer position upstream to an offset downstream (None: unknown,
    -1: too old to translate)."""

    def translate(self, topic: str, partition: int, upstream: int) -> int | None: ...


class Reverses(Protocol):
    def reverse(self, topic: str, partition: int, downstream: int) -> int | None: ...


@dataclass(frozen=True)
class OriginRoute:
    """Records of `origin` that flow `origin`->source brought: `inbound` holds that flow's syncs (read
    backwards); `onward` the syncs of flow `origin`->target (forwards), None when the origin is the target."""

    origin: str
    inbound: Reverses
    onward: Translates | None


class OriginAwareTranslator:
    """A `Translates` for the checkpoint task: origin-aware on topics whose remote keeps their name."""

    def __init__(self, own: Translates, routes: Callable[[], Mapping[str, OriginRoute]],
                 same_name: Callable[[str], bool]) -> None:
        self.own, self.routes, self.same_name = own, routes, same_name

    def translate(self, topic: str, partition: int, upstream: int) -> int | None:
        own = self.own.translate(topic, partition, upstream)
        if not self.same_name(topic):
            return own
        terms = [own] + [self._through(route, topic, partition, upstream) for route in self.routes().values()]
        known = [t for t in terms if t is not None]
        if not known:
            return None
        return -1 if min(known) < 0 else min(known)  # O2: one unknown term makes the whole unknown

    @staticmethod
    def _through(route: OriginRoute, topic: str, partition: int, position: int) -> int | None:
        at_origin = route.inbound.reverse(topic, partition, position)
        if at_origin is None or at_origin < 0 or route.onward is None:
            return at_origin
        return route.onward.translate(topic, partition, at_origin)
