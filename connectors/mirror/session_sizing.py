"""How many fetch sessions a MirrorSource task opens (`fetch.sessions`): the rule alone, without the consumers.

The config module validates `fetch.sessions` with it and the source task sizes its FetchPool with it
(fetch_pool.py); kept apart so that validating a config does not import the consumer pool.

Invariants:
- the number of sessions is `fetch.sessions` if it is a number, never more than the task's partitions
  (a fixed count never reads ahead), and at least one;
- `fetch.sessions=auto` (the default) sizes them from the measured round trip to the source cluster
  (pyconnect/kafka/round_trip.py), `auto_sessions`: ONE session below LAN_RTT (10 ms) or when the link could
  not be measured, so a LAN copy reads exactly as a single consumer does (several sessions cost a LAN copy
  speed); above it, one session per SESSION_RTT (12.5 ms) of round trip, at least 2, at most MAX_SESSIONS
  (16), whatever the task's partitions: one session moves one fetch answer per round trip, so the bytes a
  task moves per second stay about the same as the round trip grows.
"""

from __future__ import annotations

import math

AUTO = "auto"  # fetch.sessions' default: sized from the measured round trip (auto_sessions)
LAN_RTT = 0.010  # seconds: below it a source is on the task's LAN and one session reads it at full speed
SESSION_RTT = 0.0125  # seconds of round trip one more session is opened for
MAX_SESSIONS = 16


def parse_sessions(value: object) -> int | None:
    """`fetch.sessions` as a count, or None for "auto" (sized from the round trip)."""
    if value is None or str(value).strip().lower() == AUTO:
        return None
    return int(str(value).strip())


def validate_sessions(_name: str, value: object) -> str | None:
    """The config validator: "auto" or a whole number of at least 1."""
    try:
        count = parse_sessions(value)
    except ValueError:
        return f'Value must be "auto" or a whole number of at least 1, not "{value}"'
    return None if count is None or count >= 1 else "Value must be \"auto\" or at least 1"


def auto_sessions(rtt: float | None, partitions: int) -> int:
    """Sessions for a task of `partitions` partitions whose source answers in `rtt` seconds (None: unknown)."""
    if rtt is None or rtt < LAN_RTT or partitions < 1:
        return 1
    return min(max(2, math.ceil(rtt / SESSION_RTT - 1e-9)), MAX_SESSIONS)


def session_count(configured: int | None, partitions: int, rtt: float | None = None) -> int:
    """How many consumers read `partitions` partitions (at least one): `configured` if set (at most one
    per partition), else sized from the round trip `rtt` (auto_sessions: more than the partitions means
    read-ahead, several sessions on one partition)."""
    if configured is None:
        return auto_sessions(rtt, partitions)
    return max(1, min(configured, partitions))
