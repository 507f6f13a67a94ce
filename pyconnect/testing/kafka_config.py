"""The configuration files of a single-node Apache Kafka KRaft cluster for tests (broker and controller in one
JVM): server.properties, the logging config, and the JVM flags that keep it small on a 2-core machine.

Invariants:
- The controller and inter-broker traffic stay on PLAINTEXT listeners; SSL and SASL_SSL (SCRAM-SHA-512)
  listeners are for clients only, so a wrong client setting can never stop the node itself.
- Every internal topic has replication factor 1 (one node), and the group coordinator starts a group at once
  (`group.initial.rebalance.delay.ms=0`): a test waits for Kafka's work, not for its production defaults.
- No time-based retention: records with old timestamps stay (Tansu enforces none either, and the tests'
  data relies on it); size retention and compaction are Kafka's defaults.
- Every address is 127.0.0.1, listened on and advertised; the server certificate names 127.0.0.1 and localhost.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pyconnect.testing.kafka_dist import KafkaDistribution

# Small and quick to start: one JIT tier, a serial collector, a bounded heap (other tests share 2 cores).
JVM_FLAGS = ("-Xms128m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
             "-XX:+ExitOnOutOfMemoryError", "-Djava.awt.headless=true")
SCRAM_MECHANISM = "SCRAM-SHA-512"


@dataclass(frozen=True)
class Listeners:
    """The node's ports; `ssl` and `sasl_ssl` are None when the node serves PLAINTEXT clients only."""

    plaintext: int
    controller: int
    ssl: int | None = None
    sasl_ssl: int | None = None

    def client_listeners(self) -> dict[str, int]:
        named = {"PLAINTEXT": self.plaintext, "SSL": self.ssl, "SASL_SSL": self.sasl_ssl}
        return {name: port for name, port in named.items() if port is not None}


@dataclass(frozen=True)
class Keystore:
    path: Path
    password: str


def server_properties(listeners: Listeners, log_dir: Path, dist: KafkaDistribution,
                      keystore: Keystore | None, extra: Mapping[str, str] | None = None) -> str:
    """server.properties for node 1, its own controller quorum of one; `extra` properties (an authorizer, a
    broker default a test needs) come last, so they override what is above."""
    clients = listeners.client_listeners()
    if len(clients) > 1 and keystore is None:
        raise ValueError("SSL and SASL_SSL listeners need a keystore")
    advertised = ",".join(f"{name}://127.0.0.1:{port}" for name, port in clients.items())
    protocols = ",".join([*(f"{name}:{name}" for name in clients), "CONTROLLER:PLAINTEXT"])
    lines = [
        "process.roles=broker,controller", "node.id=1",
        f"controller.quorum.voters=1@127.0.0.1:{listeners.controller}",
        f"listeners={advertised},CONTROLLER://127.0.0.1:{listeners.controller}",
        f"advertised.listeners={advertised}", f"listener.security.protocol.map={protocols}",
        "controller.listener.names=CONTROLLER", "inter.broker.listener.name=PLAINTEXT", f"log.dirs={log_dir}",
        "offsets.topic.replication.factor=1", "offsets.topic.num.partitions=5",
        "transaction.state.log.replication.factor=1", "transaction.state.log.min.isr=1",
        "transaction.state.log.num.partitions=5", "group.initial.rebalance.delay.ms=0",
        "num.network.threads=2", "num.io.threads=2", "background.threads=2", "num.recovery.threads.per.data.dir=1",
        # The harness's test data carries fixed timestamps from 2023 (tests/harness/kafka_io.produce_many):
        # Kafka's 7-day time retention would delete it 30 s after the start. No time retention, then.
        "log.retention.ms=-1",
        # After a kill -9 the restarted node re-registers only once its old session expires (9 s by default).
        "broker.session.timeout.ms=3000", "broker.heartbeat.interval.ms=500",
    ]
    if dist.major >= 4:
        lines += ["share.coordinator.state.topic.replication.factor=1", "share.coordinator.state.topic.min.isr=1"]
    if keystore is not None:
        lines += [f"ssl.keystore.location={keystore.path}", "ssl.keystore.type=PKCS12",
                  f"ssl.keystore.password={keystore.password}", f"ssl.key.password={keystore.password}"]
    if listeners.sasl_ssl is not None:
        lines += [f"sasl.enabled.mechanisms={SCRAM_MECHANISM}",
                  f"listener.name.sasl_ssl.{SCRAM_MECHANISM.lower()}.sasl.jaas.config="
                  "org.apache.kafka.common.security.scram.ScramLoginModule required;"]
    lines += [f"{key}={value}" for key, value in (extra or {}).items()]
    return "\n".join(lines) + "\n"


def logging_config(dist: KafkaDistribution) -> tuple[str, str]:
    """(file text, JVM flag) of a WARN-level console log (the harness sends stdout to a file); the line saying
    the server started stays, so a log shows when a node was up. 3.9 logs through log4j 1 (reload4j), 4.x
    through log4j2."""
    started = "kafka.server.KafkaRaftServer"
    if dist.major < 4:
        text = ("log4j.rootLogger=WARN, stdout\nlog4j.appender.stdout=org.apache.log4j.ConsoleAppender\n"
                "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout\n"
                "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n\n"
                f"log4j.logger.{started}=INFO\n")
        return text, "-Dlog4j.configuration=file:{path}"
    text = ("status = warn\nappender.stdout.type = Console\nappender.stdout.name = STDOUT\n"
            "appender.stdout.layout.type = PatternLayout\nappender.stdout.layout.pattern = [%d] %p %m (%c)%n\n"
            "rootLogger.level = WARN\nrootLogger.appenderRef.stdout.ref = STDOUT\n"
            f"logger.started.name = {started}\nlogger.started.level = INFO\n")
    return text, "-Dlog4j2.configurationFile={path}"
