"""Map Java Kafka client settings (what Connect/MM2 files contain) to librdkafka settings.

Most names are the same in both clients. The differences that matter to users of Connect files:
SASL credentials come in `sasl.jaas.config`; `sasl.mechanism` is `sasl.mechanisms`; PEM trust
stores are `ssl.ca.location`; a few Java-only tuning keys have no librdkafka twin and are dropped
with a debug log rather than failing the client.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

log = logging.getLogger(__name__)

# Keys a Java client understands that librdkafka does not; dropping them keeps Connect files usable.
_JAVA_ONLY = {
    "key.serializer", "value.serializer", "key.deserializer", "value.deserializer",
    "max.poll.records", "interceptor.classes", "metric.reporters", "metrics.num.samples",
    "metrics.sample.window.ms", "metrics.recording.level", "auto.include.jmx.reporter",
    "sasl.login.callback.handler.class", "sasl.client.callback.handler.class",
    "ssl.endpoint.identification.algorithm.class", "ssl.truststore.type", "ssl.keystore.type",
    "ssl.protocol", "ssl.enabled.protocols", "ssl.trustmanager.algorithm", "ssl.keymanager.algorithm",
    "ssl.secure.random.implementation", "ssl.provider", "client.dns.lookup", "default.api.timeout.ms",
    "retry.backoff.max.ms", "delivery.timeout.ms.config", "partitioner.class", "security.providers",
    "send.buffer.bytes", "receive.buffer.bytes", "buffer.memory", "max.block.ms", "exclude.internal.topics",
    "allow.auto.create.topics", "internal.leave.group.on.close", "request.timeout.ms.config",
}
_RENAMES = {
    "sasl.mechanism": "sasl.mechanisms",
    "fetch.max.wait.ms": "fetch.wait.max.ms",
    "max.request.size": "message.max.bytes",
    "ssl.truststore.location": "ssl.ca.location",
}
_PRODUCER_ONLY = {
    "max.request.size", "message.max.bytes",
    "acks", "linger.ms", "batch.size", "batch.num.messages", "compression.type", "enable.idempotence",
    "max.in.flight.requests.per.connection", "retries", "delivery.timeout.ms", "partitioner",
    "queue.buffering.max.messages", "queue.buffering.max.kbytes", "queue.buffering.max.ms",
    "transactional.id", "message.timeout.ms", "compression.codec", "sticky.partitioning.linger.ms",
    "request.required.acks",
}
_CONSUMER_ONLY = {
    "group.id", "auto.offset.reset", "enable.auto.commit", "isolation.level", "fetch.min.bytes",
    "fetch.max.bytes", "max.partition.fetch.bytes", "fetch.wait.max.ms", "session.timeout.ms",
    "heartbeat.interval.ms", "max.poll.interval.ms", "fetch.max.wait.ms", "auto.commit.interval.ms",
    "group.instance.id",
    "partition.assignment.strategy", "enable.auto.offset.store", "queued.min.messages",
    "queued.max.messages.kbytes", "check.crcs", "group.protocol",
}
_JAAS = re.compile(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"')

# Client-level keys that may appear at the top of a worker or cluster config and belong to clients.
CLIENT_PREFIXES = ("security.", "sasl.", "ssl.")
CLIENT_KEYS = {"bootstrap.servers", "client.id", "client.rack", "socket.connection.setup.timeout.ms",
               "reconnect.backoff.ms", "reconnect.backoff.max.ms", "retry.backoff.ms", "request.timeout.ms",
               "metadata.max.age.ms", "connections.max.idle.ms"}


def is_client_key(key: str) -> bool:
    """A key that configures Kafka clients (connection, security or producer/consumer tuning)."""
    return (key in CLIENT_KEYS or key.startswith(CLIENT_PREFIXES) or key in _PRODUCER_ONLY
            or key in _CONSUMER_ONLY)


def _jaas_credentials(jaas: str) -> dict[str, str]:
    return {m.group(1): m.group(2).replace('\\"', '"') for m in _JAAS.finditer(jaas)}


def to_librdkafka(java: Mapping[str, str], role: str) -> dict[str, str]:
    """Translate one client's Java-style settings for `role` in {'producer','consumer','admin'}."""
    out: dict[str, str] = {}
    for key, value in java.items():
        if key in _JAVA_ONLY:
            log.debug("dropping Java-only client setting %s", key)
            continue
        if role != "producer" and key in _PRODUCER_ONLY:
            continue
        if role != "consumer" and key in _CONSUMER_ONLY:
            continue
        if key == "sasl.jaas.config":
            creds = _jaas_credentials(value)
            if "username" in creds:
                out.setdefault("sasl.username", creds["username"])
            if "password" in creds:
                out.setdefault("sasl.password", creds["password"])
            continue
        if key == "ssl.endpoint.identification.algorithm":
            out[key] = "https" if value.strip().lower() == "https" else "none"
            continue
        if key in ("ssl.truststore.password", "ssl.keystore.key"):
            continue  # a PEM CA file needs no password; PKCS12 keystores use ssl.keystore.password
        out[_RENAMES.get(key, key)] = value
    return out


def redact(conf: Mapping[str, str]) -> dict[str, str]:
    """Copy safe for logs and error messages: secrets replaced by '[hidden]'."""
    hidden = ("password", "secret", "jaas", "credentials", "token", ".key")
    return {k: ("[hidden]" if any(h in k.lower() for h in hidden) else v) for k, v in conf.items()}
