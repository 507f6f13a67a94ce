"""A cluster of a test's own (beside the session's `broker` and `broker_b`), of the kind the run selected.

A test that needs a third cluster, or clusters no other test writes to, starts it here: Apache Kafka when the
run selected it (`REPLIKAFKA_TEST_BROKER=kafka`, through start_broker), else Tansu. Under
`REPLIKAFKA_TEST_BOOTSTRAP` the named clusters are the session's, so a test's own cluster is a Tansu process,
as it always was. Tests that are ABOUT Tansu (or a proxy in front of it) call start_tansu directly.
"""

from __future__ import annotations

from pyconnect.environment import env_value
from pyconnect.testing.brokers import Broker, start_broker, start_tansu


def start_own_broker(name: str) -> Broker:
    """A fresh cluster named `name` (its cluster id on Tansu), stopped by the caller."""
    if env_value("TEST_BOOTSTRAP"):
        return start_tansu(name)
    return start_broker(name)
