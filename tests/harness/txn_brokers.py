"""Tansu behind the read_committed proxy (tests/harness/txn_proxy.py), for exactly-once tests."""

from __future__ import annotations

import subprocess
import tempfile

from pyconnect.environment import env_value
from pyconnect.testing.brokers import TANSU_CLIENT_OVERRIDES, Broker, _wait_port, free_port, start_broker, tansu_binary
from tests.harness.txn_proxy import TxnProxy


def start_txn_broker(name: str, index: int) -> tuple[Broker, TxnProxy | None]:
    """A Tansu broker whose clients all go through a TxnProxy; with real Kafka or external clusters
    (whose read_committed is right) simply the broker `start_broker` gives for `index`."""
    if env_value("TEST_BOOTSTRAP") or env_value("TEST_BROKER") == "kafka":
        return start_broker(name, index), None
    port, proxy_port = free_port(), free_port()
    log = tempfile.NamedTemporaryFile(prefix=f"tansu-{name}-", suffix=".log", delete=False)  # noqa: SIM115
    proc = subprocess.Popen([tansu_binary(), "broker", "--listener-url", f"tcp://127.0.0.1:{port}",
                             "--advertised-listener-url", f"tcp://127.0.0.1:{proxy_port}", "--cluster-id", name,
                             "--silent"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_port(port)
    except TimeoutError:
        proc.kill()
        raise
    proxy = TxnProxy(proxy_port, port)
    return Broker(f"127.0.0.1:{proxy_port}", "tansu", process=proc, log_path=log.name,
                  quirks=dict(TANSU_CLIENT_OVERRIDES)), proxy
