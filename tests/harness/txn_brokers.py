"""Tansu behind the read_committed proxy (tests/harness/txn_proxy.py), for exactly-once tests."""

from __future__ import annotations

from pyconnect.environment import env_value
from pyconnect.testing.brokers import Broker, free_port, start_broker, start_tansu
from tests.harness.txn_proxy import TxnProxy


def start_txn_broker(name: str, index: int) -> tuple[Broker, TxnProxy | None]:
    """A Tansu broker whose clients all go through a TxnProxy; with real Kafka or external clusters
    (whose read_committed is right) simply the broker `start_broker` gives for `index`."""
    if env_value("TEST_BOOTSTRAP") or env_value("TEST_BROKER") == "kafka":
        return start_broker(name, index), None
    port, proxy_port = free_port(), free_port()
    broker = start_tansu(name, port, advertised_port=proxy_port)
    return broker, TxnProxy(proxy_port, port)
