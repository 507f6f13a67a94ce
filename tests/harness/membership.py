"""The cluster's membership topic read directly (independent of the code under test)."""

from __future__ import annotations

import orjson

from tests.harness.kafka_io import read_to_end


def leader_of(broker_bootstrap: str, group: str) -> str:
    """Decode the membership topic directly: the first claim of the highest epoch wins."""
    recs = read_to_end(broker_bootstrap, f"connect-membership.{group}.internal")
    best_epoch, leader = 0, ""
    for _p, _o, key, value in sorted(recs, key=lambda r: r[1]):
        if key and key.startswith(b"claim-") and value:
            claim = orjson.loads(value)
            if claim["leader_epoch"] > best_epoch:
                best_epoch, leader = claim["leader_epoch"], claim["worker"]
    return leader
