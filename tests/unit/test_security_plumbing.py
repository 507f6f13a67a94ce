"""Which security settings reach each client in dedicated mode (Tansu cannot authenticate, so
the plumbing is asserted here client by client)."""

from __future__ import annotations

from connectors.mirror.config import SOURCE, MirrorConfig
from connectors.mirror.maker_config import Flow, MirrorMakerConfig
from pyconnect.config.properties import parse_properties
from pyconnect.config.worker import WorkerConfig

FILE = """clusters = A, B
A.bootstrap.servers = a:9093
A.security.protocol = SASL_SSL
A.sasl.mechanism = SCRAM-SHA-512
A.sasl.jaas.config = org.apache.kafka.common.security.scram.ScramLoginModule required username="src" password="sp";
A.ssl.truststore.location = /certs/a-ca.pem
A.ssl.truststore.type = PEM
B.bootstrap.servers = b:9094
B.security.protocol = SASL_PLAINTEXT
B.sasl.mechanism = PLAIN
B.sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required username="dst" password="dp";
B.consumer.fetch.min.bytes = 1024
A->B.enabled = true
"""


def test_each_client_gets_its_clusters_security() -> None:
    cfg = MirrorMakerConfig(parse_properties(FILE, "mm2.properties"))
    flow = Flow("A", "B")
    worker = WorkerConfig(cfg.worker_config(flow))
    for role in ("producer", "consumer", "admin"):  # the herder's internal clients talk to B
        conf = worker.client_config(role)
        assert conf["bootstrap.servers"] == "b:9094" and conf["security.protocol"] == "SASL_PLAINTEXT"
        assert conf["sasl.mechanisms"] == "PLAIN" and conf["sasl.username"] == "dst" and conf["sasl.password"] == "dp"
    task_producer = worker.task_client_config("producer")  # replicated records go to B
    assert task_producer["sasl.username"] == "dst" and task_producer["bootstrap.servers"] == "b:9094"

    source = MirrorConfig(SOURCE, cfg.connector_config(flow, "MirrorSourceConnector"))
    consumer = source.client("source", "consumer")  # reads A
    assert consumer["bootstrap.servers"] == "a:9093" and consumer["security.protocol"] == "SASL_SSL"
    assert consumer["sasl.mechanisms"] == "SCRAM-SHA-512" and consumer["sasl.username"] == "src"
    assert consumer["ssl.ca.location"] == "/certs/a-ca.pem" and "ssl.truststore.type" not in consumer
    assert source.client("source", "admin")["sasl.password"] == "sp"
    target_admin = source.client("target", "admin")  # creates remote topics on B
    assert target_admin["sasl.username"] == "dst" and target_admin["bootstrap.servers"] == "b:9094"
    assert source.client("source", "producer")["sasl.username"] == "src", "offset syncs on A"
    assert "fetch.min.bytes" not in source.client("source", "consumer")
