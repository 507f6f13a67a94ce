"""The cluster's membership topic read directly (independent of the code under test)."""

from __future__ import annotations

from typing import Any

import orjson

from tests.harness.kafka_io import read_to_end


def membership_records(broker_bootstrap: str, group: str) -> list[tuple[str, dict[str, Any]]]:
    """The membership topic's records in offset order, as (key, decoded value); tombstones left out."""
    recs = read_to_end(broker_bootstrap, f"connect-membership.{group}.internal")
    return [(key.decode(), orjson.loads(value)) for _p, _o, key, value in sorted(recs, key=lambda r: r[1])
            if key and value]


def leader_claim(broker_bootstrap: str, group: str) -> tuple[int, str]:
    """(epoch, worker id) of the winning leadership claim: the first claim of the highest epoch."""
    best_epoch, leader = 0, ""
    for key, claim in membership_records(broker_bootstrap, group):
        if key.startswith("claim-") and claim["leader_epoch"] > best_epoch:
            best_epoch, leader = claim["leader_epoch"], claim["worker"]
    return best_epoch, leader


def leader_of(broker_bootstrap: str, group: str) -> str:
    """Decode the membership topic directly: the first claim of the highest epoch wins."""
    return leader_claim(broker_bootstrap, group)[1]


def sessions(broker_bootstrap: str, group: str) -> set[str]:
    """Every worker session that ever wrote a heartbeat or a claim (a process that joined has one)."""
    return {value["session"] for key, value in membership_records(broker_bootstrap, group)
            if key.startswith(("worker-", "claim-")) and "session" in value}
