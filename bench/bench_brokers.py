"""The benches' brokers: the test harness's `start_broker`, so `REPLIKAFKA_TEST_BROKER=kafka` (with
`REPLIKAFKA_TEST_KAFKA_VERSION=4|3.9`) runs a bench on Apache Kafka JVMs and the default on Tansu, and the label
every printed row names its broker by."""

from __future__ import annotations

from pyconnect.environment import env_value
from pyconnect.testing.brokers import Broker, free_port, start_broker
from tests.harness.wan_proxy import FarBroker, WanProxy, start_far_tansu


def start_pair(name: str) -> tuple[Broker, Broker]:
    """Clusters A and B of one round (two single-node clusters of the run's broker kind); A stopped if B fails."""
    a = start_broker(f"{name}A", 0)
    try:
        return a, start_broker(f"{name}B", 1)
    except BaseException:
        a.stop()
        raise


def broker_label(broker: Broker) -> str:
    """'Tansu', 'Apache Kafka 4.3.1' (a local JVM) or 'Apache Kafka' / 'external' (a container, a named cluster)."""
    if broker.kind == "tansu":
        return "Tansu"
    if broker.kind == "kafka":
        version = getattr(broker, "version", "")
        return f"Apache Kafka {version}".strip()
    return broker.kind


def start_far(name: str) -> FarBroker:
    """A broker of the run's kind reachable only through a WanProxy (delay 0 until set): Tansu advertises the
    proxy's port (tests/harness/wan_proxy.py); an Apache Kafka node is started with its PLAINTEXT listener
    advertised at the proxy's port, so every client connection after the bootstrap crosses the delay too."""
    if env_value("TEST_BROKER") != "kafka" or env_value("TEST_BOOTSTRAP"):
        return start_far_tansu(name, 0)
    from pyconnect.testing.kafka_jvm import start_kafka_jvm

    port = free_port()
    node = start_kafka_jvm(name, extra={"advertised.listeners": f"PLAINTEXT://127.0.0.1:{port}"})
    try:
        proxy = WanProxy(node.plaintext_port, 0, port)
    except BaseException:
        node.stop()
        raise
    node.bootstrap = f"127.0.0.1:{proxy.port}"
    return FarBroker(node, proxy)
