"""The process's malloc arena limit (pyconnect/kafka/native_memory.py): the operator's MALLOC_ARENA_MAX wins.

glibc reads MALLOC_ARENA_MAX itself at start (glibc manual, "Memory Allocation Tunables"); the product sets
its own limit only where the environment does not.
"""

from __future__ import annotations

import pytest

from pyconnect.kafka.native_memory import ARENA_MAX, glibc, limit_arenas, release


def test_the_environment_limit_wins() -> None:
    assert limit_arenas({"MALLOC_ARENA_MAX": "8"}) is None


@pytest.mark.skipif(glibc() is None, reason="the limit is glibc's (mallopt M_ARENA_MAX)")
def test_limited_without_the_environment() -> None:
    assert limit_arenas({}) == ARENA_MAX == 2
    release()  # a collection and a trim: nothing to assert but that it runs on this C library
