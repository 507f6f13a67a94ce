"""The test harness's brokers: see pyconnect.testing.brokers (shared with the demo and benchmarks)."""

from pyconnect.testing.brokers import (
    TANSU_CLIENT_OVERRIDES,
    Broker,
    free_port,
    start_broker,
    start_tansu,
)

__all__ = ["TANSU_CLIENT_OVERRIDES", "Broker", "free_port", "start_broker", "start_tansu"]
