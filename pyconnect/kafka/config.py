"""Map Java Kafka client settings (what Connect/MM2 files contain) to librdkafka settings.

Most names are the same in both clients. The differences that matter to users of Connect files:
SASL credentials come in `sasl.jaas.config`; `sasl.mechanism` is `sasl.mechanisms`; PEM trust
stores are `ssl.ca.location`; the buffer sizes are librdkafka's socket buffers and queue size; a few
Java-only tuning keys have no librdkafka twin and are dropped with a debug log rather than failing the client.
Values librdkafka reads differently (ranges, cross-key rules, assignor names) are then adapted by
pyconnect.kafka.java_settings, with one INFO line per change, or refused with the reason.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

from pyconnect.kafka.java_settings import adapt

log = logging.getLogger(__name__)

# Keys a Java client understands that librdkafka does not; dropping them keeps Connect files usable.
_JAVA_ONLY = {
    "key.serializer", "value.serializer", "key.deserializer", "value.deserializer",
    "max.poll.records", "interceptor.classes", "metric.reporters", "metrics.num.samples",
    "metrics.sample.window.ms", "metrics.recording.level", "auto.include.jmx.reporter",
    "sasl.login.callback.handler.class", "sasl.client.callback.handler.class",
    "ssl.endpoint.identification.algorithm.class",
    "ssl.protocol", "ssl.enabled.protocols", "ssl.trustmanager.algorithm", "ssl.keymanager.algorithm",
    "ssl.secure.random.implementation", "ssl.provider", "client.dns.lookup", "default.api.timeout.ms",
    "delivery.timeout.ms.config", "partitioner.class", "security.providers",
    "max.block.ms", "exclude.internal.topics",
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
    "request.required.acks", "buffer.memory",
}
_CONSUMER_ONLY = {
    "group.id", "auto.offset.reset", "enable.auto.commit", "isolation.level", "fetch.min.bytes",
    "fetch.max.bytes", "max.partition.fetch.bytes", "fetch.wait.max.ms", "session.timeout.ms",
    "heartbeat.interval.ms", "max.poll.interval.ms", "fetch.max.wait.ms", "auto.commit.interval.ms",
    "group.instance.id",
    "partition.assignment.strategy", "enable.auto.offset.store", "queued.min.messages",
    "queued.max.messages.kbytes", "check.crcs", "group.protocol",
}
# Java's socket buffer sizes are librdkafka's socket.*.buffer.bytes, where 0 (Java: -1) is the OS default.
_SOCKET_BUFFERS = {"send.buffer.bytes": "socket.send.buffer.bytes",
                   "receive.buffer.bytes": "socket.receive.buffer.bytes"}
_JAAS = re.compile(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"')

# The client settings of Kafka's MirrorClientConfig.CLIENT_CONFIG_DEF (bootstrap.servers, security.protocol
# and the client SSL and SASL settings of SslConfigs/SaslConfigs, Kafka 3.9 and trunk): the only cluster
# settings MirrorMakerConfig copies to every client and MirrorConnectorConfig keeps from `<side>.cluster.*`.
JAVA_CLIENT_SSL_KEYS = frozenset({
    "ssl.protocol", "ssl.provider", "ssl.cipher.suites", "ssl.enabled.protocols", "ssl.keystore.type",
    "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password", "ssl.keystore.key",
    "ssl.keystore.certificate.chain", "ssl.truststore.certificates", "ssl.truststore.type",
    "ssl.truststore.location", "ssl.truststore.password", "ssl.keymanager.algorithm",
    "ssl.trustmanager.algorithm", "ssl.endpoint.identification.algorithm", "ssl.secure.random.implementation",
    "ssl.engine.factory.class",
})
JAVA_CLIENT_SASL_KEYS = frozenset({
    "sasl.kerberos.service.name", "sasl.kerberos.kinit.cmd", "sasl.kerberos.ticket.renew.window.factor",
    "sasl.kerberos.ticket.renew.jitter", "sasl.kerberos.min.time.before.relogin",
    "sasl.login.refresh.window.factor", "sasl.login.refresh.window.jitter", "sasl.login.refresh.min.period.seconds",
    "sasl.login.refresh.buffer.seconds", "sasl.mechanism", "sasl.jaas.config", "sasl.client.callback.handler.class",
    "sasl.login.callback.handler.class", "sasl.login.class", "sasl.login.connect.timeout.ms",
    "sasl.login.read.timeout.ms", "sasl.login.retry.backoff.max.ms", "sasl.login.retry.backoff.ms",
    "sasl.oauthbearer.scope.claim.name", "sasl.oauthbearer.sub.claim.name", "sasl.oauthbearer.token.endpoint.url",
    "sasl.oauthbearer.jwks.endpoint.url", "sasl.oauthbearer.jwks.endpoint.refresh.ms",
    "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms",
    "sasl.oauthbearer.clock.skew.seconds", "sasl.oauthbearer.expected.audience", "sasl.oauthbearer.expected.issuer",
    "sasl.oauthbearer.header.urlencode", "sasl.oauthbearer.scope", "sasl.oauthbearer.client.credentials.client.id",
    "sasl.oauthbearer.client.credentials.client.secret", "sasl.oauthbearer.jwt.retriever.class",
    "sasl.oauthbearer.jwt.validator.class",
})
# librdkafka's names of client security settings (those Java has under another name, or not at all): a
# Python user writes these, and in mm2.properties they go wherever the Java names go (every scope).
LIBRDKAFKA_CLIENT_SECURITY_KEYS = frozenset({
    "ssl.ca.location", "ssl.ca.pem", "ssl.ca.certificate.stores", "ssl.crl.location", "ssl.certificate.location",
    "ssl.certificate.pem", "ssl.key.location", "ssl.key.pem", "ssl.curves.list", "ssl.sigalgs.list",
    "enable.ssl.certificate.verification", "sasl.mechanisms", "sasl.username", "sasl.password",
    "sasl.kerberos.principal", "sasl.kerberos.keytab", "sasl.oauthbearer.config", "sasl.oauthbearer.method",
    "sasl.oauthbearer.client.id", "sasl.oauthbearer.client.secret", "sasl.oauthbearer.extensions",
    "enable.sasl.oauthbearer.unsecure.jwt",
})
MIRROR_CLIENT_KEYS = (frozenset({"bootstrap.servers", "security.protocol"}) | JAVA_CLIENT_SSL_KEYS
                      | JAVA_CLIENT_SASL_KEYS | LIBRDKAFKA_CLIENT_SECURITY_KEYS)
SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
# Java's PASSWORD-typed client settings: the only values its ConfigDef does not trim.
_PASSWORDS = frozenset({
    "ssl.keystore.password", "ssl.key.password", "ssl.keystore.key", "ssl.keystore.certificate.chain",
    "ssl.truststore.certificates", "ssl.truststore.password", "sasl.jaas.config",
    "sasl.oauthbearer.client.credentials.client.secret", "sasl.oauthbearer.assertion.private.key.passphrase",
    "sasl.password", "sasl.oauthbearer.client.secret", "ssl.key.pem",  # their librdkafka twins
})

# Client-level keys that may appear at the top of a worker or cluster config and belong to clients.
CLIENT_PREFIXES = ("security.", "sasl.", "ssl.")
CLIENT_KEYS = {"bootstrap.servers", "client.id", "client.rack", "socket.connection.setup.timeout.ms",
               "reconnect.backoff.ms", "reconnect.backoff.max.ms", "retry.backoff.ms", "request.timeout.ms",
               "metadata.max.age.ms", "connections.max.idle.ms"}


def is_client_key(key: str) -> bool:
    """A key that configures Kafka clients (connection, security or producer/consumer tuning)."""
    return (key in CLIENT_KEYS or key.startswith(CLIENT_PREFIXES) or key in _PRODUCER_ONLY
            or key in _CONSUMER_ONLY)


def is_mirror_client_key(key: str) -> bool:
    """A key of MirrorClientConfig.CLIENT_CONFIG_DEF (bootstrap.servers, security.protocol, client SSL/SASL)
    or the librdkafka name of a client security setting (LIBRDKAFKA_CLIENT_SECURITY_KEYS)."""
    return key in MIRROR_CLIENT_KEYS


def invalid_security_protocol(value: str) -> str | None:
    """Kafka's check of `security.protocol` (case-insensitive enum); None when the value is valid."""
    if value.strip().upper() in SECURITY_PROTOCOLS:
        return None
    return f"Invalid value {value} for configuration security.protocol: String must be one of: " + \
        ", ".join(SECURITY_PROTOCOLS)


def _java_value(key: str, value: str) -> str:
    """The value a Java client uses: its ConfigDef trims every type but PASSWORD, and splits LISTs."""
    if key in _PASSWORDS:
        return value
    if key == "bootstrap.servers":
        return ",".join(item.strip() for item in value.split(",") if item.strip())
    return value.strip()


def _jaas_credentials(jaas: str) -> dict[str, str]:
    return {m.group(1): m.group(2).replace('\\"', '"') for m in _JAAS.finditer(jaas)}


# Java's key and trust stores, which librdkafka takes under other names (see _stores).
_STORE_KEYS = frozenset({"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.keystore.key",
                         "ssl.keystore.certificate.chain", "ssl.truststore.type", "ssl.truststore.location",
                         "ssl.truststore.password", "ssl.truststore.certificates"})


class UnsupportedStore(ValueError):
    """A key or trust store type librdkafka cannot read (JKS, a PKCS12 trust store)."""


def _is_jks(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\xfe\xed\xfe\xed"  # the JKS magic number
    except OSError:
        return False  # librdkafka names the missing file itself


def _stores(java: Mapping[str, str]) -> dict[str, str]:
    """Java's SslConfigs stores as librdkafka settings. librdkafka reads a PKCS12 keystore at
    ssl.keystore.location (+ ssl.keystore.password); a PEM keystore (Java's ssl.keystore.type=PEM) is a
    file with the key and its certificate chain, or the PEM text itself in ssl.keystore.key and
    ssl.keystore.certificate.chain; trust stores are PEM files or PEM text."""
    get = {k: _java_value(k, v) for k, v in java.items() if k in _STORE_KEYS}
    out: dict[str, str] = {}
    key_type = get.get("ssl.keystore.type", "PEM" if "ssl.keystore.key" in get else "JKS").strip().upper()
    if "ssl.keystore.location" in get:
        # Java's default type JKS reads PKCS12 files too (keystore.type.compat): only a real JKS file is refused.
        if key_type == "PKCS12" or (key_type == "JKS" and not _is_jks(get["ssl.keystore.location"])):
            out["ssl.keystore.location"] = get["ssl.keystore.location"]
            if "ssl.keystore.password" in get:
                out["ssl.keystore.password"] = get["ssl.keystore.password"]
        elif key_type == "PEM":
            out["ssl.certificate.location"] = out["ssl.key.location"] = get["ssl.keystore.location"]
        else:
            raise UnsupportedStore(f"ssl.keystore.type={key_type} is not supported (librdkafka reads PKCS12 and "
                                   "PEM key stores): convert the keystore, e.g. keytool -importkeystore "
                                   "-deststoretype PKCS12")
    if "ssl.keystore.key" in get:
        out["ssl.key.pem"] = get["ssl.keystore.key"]
    if "ssl.keystore.certificate.chain" in get:
        out["ssl.certificate.pem"] = get["ssl.keystore.certificate.chain"]
    trust_type = get.get("ssl.truststore.type", "PEM").strip().upper()
    if "ssl.truststore.location" in get:
        if trust_type != "PEM":
            raise UnsupportedStore(f"ssl.truststore.type={trust_type} is not supported (librdkafka reads PEM trust "
                                   "stores): export the CA certificates as PEM and set ssl.truststore.type=PEM")
        out["ssl.ca.location"] = get["ssl.truststore.location"]
    if "ssl.truststore.certificates" in get:
        out["ssl.ca.pem"] = get["ssl.truststore.certificates"]
    return out


def to_librdkafka(java: Mapping[str, str], role: str) -> dict[str, str]:
    """Translate one client's Java-style settings for `role` in {'producer','consumer','admin'}."""
    out: dict[str, str] = _stores(java)
    for key, raw_value in java.items():
        value = _java_value(key, raw_value)
        if key in _STORE_KEYS:
            continue
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
        if key in _SOCKET_BUFFERS or key == "buffer.memory":
            name, translated = _buffer_setting(key, value)
            out[name] = translated
            continue
        if key == "ssl.endpoint.identification.algorithm":
            out[key] = "https" if value.strip().lower() == "https" else "none"
            continue
        out[_RENAMES.get(key, key)] = value
    adapt(out, set(java), role)  # ranges and cross-key rules librdkafka reads differently (java_settings)
    return out


def _buffer_setting(key: str, value: str) -> tuple[str, str]:
    """librdkafka's name and value for a Java buffer size: the socket buffers, or buffer.memory (the bytes a
    producer holds unsent) as queue.buffering.max.kbytes, rounded up to whole kilobytes."""
    if key in _SOCKET_BUFFERS:
        return _SOCKET_BUFFERS[key], "0" if value == "-1" else value
    try:
        size = int(value)
    except ValueError:
        raise ValueError(f"Invalid value {value} for configuration {key}: Not a number of type LONG") from None
    return "queue.buffering.max.kbytes", str(max(1, -(-size // 1024)))


# librdkafka caps every batch at message.max.bytes (1,000,000 unless set), whatever batch.size says; Java's producer
# sends a batch bigger than max.request.size alone in its request (RecordAccumulator.drainBatchesForOneNode).
LIBRDKAFKA_MESSAGE_MAX_BYTES = 1_000_000
LIBRDKAFKA_MESSAGE_MAX_BYTES_LIMIT = 1_000_000_000  # the largest message.max.bytes librdkafka accepts
REQUEST_FRAMING = 64 * 1024  # a ProduceRequest's header, topic and partition framing around its one batch


def fit_request_to_batch(conf: Mapping[str, str]) -> dict[str, str]:
    """A producer's settings in which a `batch.size` batch fits in one request, as with Java's producer.

    librdkafka builds no batch larger than `message.max.bytes`, so a `batch.size` raised alone (the setting
    that carries a far partition) would be silently cut to 1 MB: unless `message.max.bytes` (Java's
    `max.request.size`) was set, it becomes `batch.size` plus the request's framing. One that was set and is
    smaller is kept (it is the user's request limit) and a warning says the batches stop there."""
    out = dict(conf)
    try:
        batch = int(out.get("batch.size", "0"))
    except ValueError:
        return out  # librdkafka names the invalid value when the producer is created
    if "message.max.bytes" not in out:
        if batch > LIBRDKAFKA_MESSAGE_MAX_BYTES:
            out["message.max.bytes"] = str(min(batch + REQUEST_FRAMING, LIBRDKAFKA_MESSAGE_MAX_BYTES_LIMIT))
        return out
    try:
        request = int(out["message.max.bytes"])
    except ValueError:
        return out
    if batch > request:
        log.warning("batch.size %d is above message.max.bytes (max.request.size) %d: batches stop at %d bytes",
                    batch, request, request)
    return out


# Parts of a key that make its value a secret (ssl.key.password, sasl.jaas.config, basic.auth.user.info ...).
_SECRET_PARTS = ("password", "secret", "jaas", "credentials", "token", ".key", "user.info")


def is_secret_key(key: str) -> bool:
    """Whether `key`'s value is a secret: the one rule for logs, error messages and REST answers."""
    return any(part in key.lower() for part in _SECRET_PARTS)


def redact(conf: Mapping[str, str]) -> dict[str, str]:
    """Copy safe for logs and error messages: secrets replaced by '[hidden]'."""
    return {k: ("[hidden]" if is_secret_key(k) else v) for k, v in conf.items()}
