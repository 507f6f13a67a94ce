"""Java client settings that librdkafka reads differently: ranges, cross-key rules and values.

`pyconnect.kafka.config.to_librdkafka` renames Java's keys; `adapt` then makes the renamed settings ones
librdkafka accepts and that mean what Java's client makes of them. librdkafka refuses to create a client
for settings that Java takes: a `max.poll.interval.ms` below `session.timeout.ms`, a `fetch.min.bytes` of 0,
a `fetch.max.bytes` below 1 MB, a `linger.ms` above 15 minutes, Java's assignor class names, ...

Invariants:
- a value Java accepts reaches librdkafka either unchanged or as the nearest value librdkafka accepts that
  keeps Java's meaning; every such change is logged at INFO, naming the keys and both values, once per
  distinct change per process (a worker builds a client per task: one line, not one per client);
- a value Java accepts whose meaning librdkafka cannot keep (Java's `StickyAssignor`, `by_duration` offset
  resets, `partitioner.ignore.keys=true`) is refused with a ValueError that says why, before any client exists;
- a value Java refuses (below Java's own lower bound, not a number) is passed on unchanged, for librdkafka to
  refuse with its own sentence naming the key and its range;
- the checks read the librdkafka defaults where a key is unset (DEFAULTS), as the client will.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import MutableMapping

log = logging.getLogger(__name__)

INT_MAX = 2_147_483_647
# librdkafka's defaults for the keys the cross-key rules read (CONFIGURATION.md, librdkafka 2.x).
DEFAULTS = {"session.timeout.ms": 45_000, "max.poll.interval.ms": 300_000, "message.max.bytes": 1_000_000,
            "linger.ms": 5, "request.timeout.ms": 30_000, "message.timeout.ms": 300_000,
            "transaction.timeout.ms": 60_000, "fetch.wait.max.ms": 500, "socket.timeout.ms": 60_000}

# librdkafka key -> (Java's lower bound, librdkafka's range, roles ('' = every role), why a value moves).
RANGES: dict[str, tuple[int, int, int, str, str]] = {
    "fetch.min.bytes": (0, 1, 100_000_000, "consumer", "Java's 0 and librdkafka's 1 both answer once data is there"),
    "fetch.wait.max.ms": (0, 0, 299_000, "consumer", "1 s under librdkafka's longest socket.timeout.ms"),
    "max.partition.fetch.bytes": (0, 1, 1_000_000_000, "consumer", "the broker sends one batch whatever the size"),
    "fetch.max.bytes": (0, 0, 2_147_483_135, "consumer", ""),
    "auto.commit.interval.ms": (0, 0, 86_400_000, "consumer", ""),
    "max.poll.interval.ms": (1, 1, 86_400_000, "consumer", ""),
    "session.timeout.ms": (-INT_MAX, 1, 3_600_000, "consumer", ""),
    "heartbeat.interval.ms": (-INT_MAX, 1, 3_600_000, "consumer", ""),
    "linger.ms": (0, 0, 900_000, "producer", ""),
    "batch.size": (0, 1, INT_MAX, "producer", "Java's 0 and librdkafka's 1 both send each record in its own batch"),
    "message.max.bytes": (0, 1000, 1_000_000_000, "producer", ""),
    "request.timeout.ms": (0, 1, 900_000, "", ""),
    "transaction.timeout.ms": (-INT_MAX, 1000, INT_MAX, "producer", ""),
    "metadata.max.age.ms": (0, 1, 86_400_000, "", "0 and 1 both refresh the metadata at every chance"),
    "connections.max.idle.ms": (-INT_MAX, 0, INT_MAX, "", "librdkafka's 0 keeps idle connections, as Java's -1"),
    "socket.connection.setup.timeout.ms": (-INT_MAX, 1000, INT_MAX, "", ""),
    "socket.timeout.ms": (0, 10, 300_000, "", ""),
    "reconnect.backoff.ms": (0, 0, 3_600_000, "", ""),
    "reconnect.backoff.max.ms": (0, 0, 3_600_000, "", ""),
    "retry.backoff.ms": (0, 1, 300_000, "", ""),
    "retry.backoff.max.ms": (0, 1, 300_000, "", ""),
    "socket.send.buffer.bytes": (0, 0, 100_000_000, "", ""),
    "socket.receive.buffer.bytes": (0, 0, 100_000_000, "", ""),
}
# Java's names of keys that to_librdkafka renames, so that a line names the key the user wrote.
JAVA_NAMES = {"fetch.wait.max.ms": "fetch.max.wait.ms", "message.max.bytes": "max.request.size",
              "socket.send.buffer.bytes": "send.buffer.bytes", "socket.receive.buffer.bytes": "receive.buffer.bytes",
              "socket.timeout.ms": "request.timeout.ms"}
# Java's assignor classes and librdkafka's names; the cooperative ones cannot share a list with the others.
ASSIGNORS = {"RangeAssignor": "range", "RoundRobinAssignor": "roundrobin",
             "CooperativeStickyAssignor": "cooperative-sticky"}
COOPERATIVE = {"cooperative-sticky"}
# Java producer keys that librdkafka has no equivalent of: the partitioner's adaptive tuning and metadata expiry.
IGNORED = {"partitioner.adaptive.partitioning.enable": "librdkafka's partitioner does not adapt to broker load",
           "partitioner.availability.timeout.ms": "librdkafka's partitioner does not adapt to broker load",
           "metadata.max.idle.ms": "librdkafka keeps the metadata of the topics it writes"}
# Java SASL settings that tune Java's login modules (token refresh, Kerberos ticket renewal, retries) or a
# broker's token validation; librdkafka refreshes logins by its own rules and knows none of these keys.
LOGIN_TUNING_PREFIXES = ("sasl.login.refresh.", "sasl.login.retry.", "sasl.kerberos.ticket.renew.",
                         "sasl.oauthbearer.jwks.endpoint.", "sasl.oauthbearer.expected.")
LOGIN_TUNING = {"sasl.login.connect.timeout.ms", "sasl.login.read.timeout.ms", "sasl.oauthbearer.clock.skew.seconds",
                "sasl.oauthbearer.header.urlencode", "sasl.oauthbearer.scope.claim.name"}
# Java settings whose value librdkafka cannot honour, with why: refused rather than silently dropped.
UNSUPPORTED = {
    "sasl.login.class": "is a Java class (librdkafka logs in with sasl.mechanisms and its own settings)",
    "sasl.oauthbearer.jwt.retriever.class": "is a Java class (librdkafka fetches tokens with "
                                            "sasl.oauthbearer.method=oidc)",
    "ssl.engine.factory.class": "is a Java class (librdkafka's TLS is OpenSSL, set with its ssl.* settings)",
    "bootstrap.controllers": "is not supported: librdkafka's admin client talks to brokers only "
                             "(set bootstrap.servers)",
    "transaction.two.phase.commit.enable": "is not supported: librdkafka has no two-phase commit (KIP-939)",
}
COMPRESSION_LEVELS = ("compression.gzip.level", "compression.lz4.level", "compression.zstd.level")

_said: set[str] = set()
_said_lock = threading.Lock()


def say(message: str) -> None:
    """Log `message` at INFO the first time it is said in this process (see the module docstring)."""
    with _said_lock:
        if message in _said:
            return
        _said.add(message)
    log.info(message)


def _int(conf: MutableMapping[str, str], key: str) -> int | None:
    try:
        return int(conf[key])
    except (KeyError, ValueError):
        return None  # unset, or not a number: librdkafka names the invalid value itself


def _value(conf: MutableMapping[str, str], key: str) -> int:
    found = _int(conf, key)
    return DEFAULTS[key] if found is None else found


def _name(key: str, java_keys: set[str]) -> str:
    java = JAVA_NAMES.get(key)
    return java if java is not None and java in java_keys else key


def adapt(conf: MutableMapping[str, str], java_keys: set[str], role: str) -> None:
    """Make `conf` (librdkafka names; `java_keys` the keys the user wrote) acceptable to librdkafka for
    `role`, with Java's meaning (module docstring); raise ValueError for what cannot keep it."""
    _java_only(conf)
    _timeouts(conf, role)
    _ranges(conf, java_keys, role)
    _backoffs(conf)
    if role == "consumer":
        _poll_interval(conf)
        _fetch_size(conf)
        _fetch_wait(conf)
        _offset_reset(conf)
        _assignors(conf)
    if role == "producer":
        _delivery_timeout(conf, java_keys)
        _compression_level(conf)
        _partitioner(conf)
    else:
        for key in (*IGNORED, *COMPRESSION_LEVELS, "partitioner.ignore.keys", "transaction.timeout.ms"):
            conf.pop(key, None)


def _java_only(conf: MutableMapping[str, str]) -> None:
    for key in list(conf):
        value = conf[key].strip()
        if key == "sasl.oauthbearer.jwt.validator.class" or (key in UNSUPPORTED and value in ("", "false")):
            del conf[key]  # a broker's setting, or Java's default: nothing to carry over
        elif key in UNSUPPORTED:
            raise ValueError(f"{key}={value} {UNSUPPORTED[key]}")
        elif key in LOGIN_TUNING or key.startswith(LOGIN_TUNING_PREFIXES):
            del conf[key]
            say(f"{key}={value} is ignored: it tunes Java's login modules, and librdkafka refreshes logins itself")


def _timeouts(conf: MutableMapping[str, str], role: str) -> None:
    """Java's request.timeout.ms bounds every request of every client; librdkafka's request.timeout.ms is
    the producer's ack timeout only (a consumer ignores it with a warning), and socket.timeout.ms is the rest.
    Java's connection setup timeout grows to socket.connection.setup.timeout.max.ms; librdkafka's is fixed."""
    if role != "producer" and "request.timeout.ms" in conf:
        # An admin client (a producer handle to librdkafka) takes the key without a warning: it stays.
        value = conf["request.timeout.ms"] if role == "admin" else conf.pop("request.timeout.ms")
        if "socket.timeout.ms" not in conf:  # a librdkafka user's own socket.timeout.ms wins
            conf["socket.timeout.ms"] = value
            say(f"request.timeout.ms={value} is librdkafka's socket.timeout.ms={value} for the {role} "
                "(librdkafka's request.timeout.ms bounds only a producer's requests)")
    top = _int(conf, "socket.connection.setup.timeout.max.ms")
    if "socket.connection.setup.timeout.max.ms" in conf:
        raw = conf.pop("socket.connection.setup.timeout.max.ms")
        first = _int(conf, "socket.connection.setup.timeout.ms")
        if top is not None and (first is None or top > first):
            conf["socket.connection.setup.timeout.ms"] = str(top)
            say(f"socket.connection.setup.timeout.max.ms={raw}: librdkafka has one fixed connection setup timeout, "
                f"socket.connection.setup.timeout.ms, set to {top} (Java's timeout grows to that value)")


def _ranges(conf: MutableMapping[str, str], java_keys: set[str], role: str) -> None:
    for key, (java_low, low, high, roles, why) in RANGES.items():
        value = _int(conf, key)
        if value is None or (roles and roles != role) or value < java_low or low <= value <= high:
            continue
        bound = low if value < low else high
        conf[key] = str(bound)
        name = _name(key, java_keys)
        target = name if name == key else f"{name} ({key})"
        say(f"{target}={value} is outside librdkafka's range {low}..{high}: using {bound}"
            + (f" ({why})" if why else ""))


def _backoffs(conf: MutableMapping[str, str]) -> None:
    """Java (CommonClientConfigs.postProcessReconnectBackoffConfigs) backs off by a fixed reconnect.backoff.ms
    when reconnect.backoff.max.ms is unset, and never longer than the max; librdkafka refuses ms > max."""
    first = _int(conf, "reconnect.backoff.ms")
    if first is None:
        return
    if "reconnect.backoff.max.ms" not in conf:
        conf["reconnect.backoff.max.ms"] = str(first)
        say(f"reconnect.backoff.ms={first} without reconnect.backoff.max.ms: reconnect.backoff.max.ms set to "
            f"{first} (a fixed backoff, as Java's client uses)")
        return
    top = _int(conf, "reconnect.backoff.max.ms")
    if top is not None and first > top:
        conf["reconnect.backoff.ms"] = str(top)
        say(f"reconnect.backoff.ms={first} is above reconnect.backoff.max.ms={top}: reconnect.backoff.ms set to "
            f"{top} (Java's client never waits longer than the max)")


def _poll_interval(conf: MutableMapping[str, str]) -> None:
    """librdkafka requires max.poll.interval.ms >= session.timeout.ms; Java's consumer takes any pair."""
    if conf.get("group.protocol", "classic").strip().lower() == "consumer":
        return  # the session timeout is the broker's: librdkafka refuses session.timeout.ms, as Java does
    interval, session = _value(conf, "max.poll.interval.ms"), _value(conf, "session.timeout.ms")
    if 1 <= interval < session:  # below 1 Java refuses too: librdkafka says so
        conf["max.poll.interval.ms"] = str(session)
        say(f"max.poll.interval.ms={interval} is below session.timeout.ms={session}, which librdkafka refuses: "
            f"max.poll.interval.ms raised to {session}")


def _fetch_wait(conf: MutableMapping[str, str]) -> None:
    """librdkafka warns, for every consumer, when socket.timeout.ms is within 1 s of fetch.wait.max.ms (a fetch
    the broker holds could time out); Java's request timeout has no such rule, so the socket timeout goes up."""
    wait, socket = _value(conf, "fetch.wait.max.ms"), _value(conf, "socket.timeout.ms")
    need = min(wait + 1000, RANGES["socket.timeout.ms"][2])
    if socket < need:
        conf["socket.timeout.ms"] = str(need)
        say(f"socket.timeout.ms={socket} is within 1000 ms of fetch.wait.max.ms={wait}, which librdkafka warns "
            f"of: socket.timeout.ms raised to {need}")


def _fetch_size(conf: MutableMapping[str, str]) -> None:
    """librdkafka requires fetch.max.bytes >= message.max.bytes (1,000,000 unless set); a consumer's
    message.max.bytes bounds only the requests it sends, so it comes down to fetch.max.bytes (at least 1000)."""
    fetch = _int(conf, "fetch.max.bytes")
    request = _value(conf, "message.max.bytes")
    if fetch is None or fetch >= request:
        return
    lowered = max(fetch, RANGES["message.max.bytes"][1])
    conf["message.max.bytes"] = str(lowered)
    if lowered > fetch:
        conf["fetch.max.bytes"] = str(lowered)
    say(f"fetch.max.bytes={fetch} is below librdkafka's message.max.bytes={request}, which librdkafka refuses: "
        f"message.max.bytes set to {lowered}" + (f" and fetch.max.bytes to {lowered}" if lowered > fetch else ""))


def _offset_reset(conf: MutableMapping[str, str]) -> None:
    value = conf.get("auto.offset.reset")
    if value == "none":
        conf["auto.offset.reset"] = "error"
        say("auto.offset.reset=none is librdkafka's auto.offset.reset=error (the consumer reports an error "
            "where no offset is committed, as Java's throws NoOffsetForPartitionException)")
    elif value is not None and value.startswith("by_duration:"):
        raise ValueError(f"auto.offset.reset={value} is not supported: librdkafka resets only to the earliest "
                         "or latest offset (use earliest or latest)")


def _assignors(conf: MutableMapping[str, str]) -> None:
    raw = conf.get("partition.assignment.strategy")
    if raw is None:
        return
    names = []
    for item in (part.strip() for part in raw.split(",") if part.strip()):
        simple = item.rsplit(".", 1)[-1]
        if item.startswith("org.apache.kafka.") and simple in ASSIGNORS:
            names.append(ASSIGNORS[simple])
        elif "." in item or simple == "StickyAssignor":
            raise ValueError(f"partition.assignment.strategy: {item} is not supported: librdkafka assigns with "
                             "range, roundrobin or cooperative-sticky (Java's RangeAssignor, RoundRobinAssignor, "
                             "CooperativeStickyAssignor)")
        else:
            names.append(item)
    eager = [name for name in names if name not in COOPERATIVE]
    # Java runs the eager protocol when any listed assignor is eager; librdkafka refuses a mixed list.
    kept = eager if eager and len(eager) < len(names) else names
    conf["partition.assignment.strategy"] = ",".join(kept)
    if kept != [part.strip() for part in raw.split(",") if part.strip()]:
        say(f"partition.assignment.strategy={raw} is librdkafka's {','.join(kept)}"
            + (" (a list with an eager assignor runs the eager protocol, as in Java)" if kept is eager else ""))


def _delivery_timeout(conf: MutableMapping[str, str], java_keys: set[str]) -> None:
    """Java's KafkaProducer: delivery.timeout.ms >= linger.ms + request.timeout.ms, refused when set, raised
    when not. librdkafka's delivery.timeout.ms (message.timeout.ms) must exceed linger.ms and, with a
    transactional.id, stay within transaction.timeout.ms (a transaction the broker aborts anyway)."""
    floor = _value(conf, "linger.ms") + _value(conf, "request.timeout.ms")
    delivery = _int(conf, "delivery.timeout.ms")
    if delivery is not None and "delivery.timeout.ms" in java_keys and delivery < floor:
        raise ValueError("Invalid value for delivery.timeout.ms: delivery.timeout.ms should be equal to or larger "
                         f"than linger.ms + request.timeout.ms ({delivery} < {floor})")
    if delivery is None and "message.timeout.ms" not in conf and floor > DEFAULTS["message.timeout.ms"]:
        conf["delivery.timeout.ms"] = str(floor)
        say(f"linger.ms + request.timeout.ms = {floor} is above librdkafka's delivery.timeout.ms "
            f"{DEFAULTS['message.timeout.ms']}: delivery.timeout.ms set to {floor}, as Java's producer does")
    transaction = _value(conf, "transaction.timeout.ms")
    if "transactional.id" in conf and delivery is not None and delivery > transaction:
        conf["delivery.timeout.ms"] = str(transaction)
        say(f"delivery.timeout.ms={delivery} is above transaction.timeout.ms={transaction}, which librdkafka "
            f"refuses for a transactional producer: delivery.timeout.ms set to {transaction}")


def _compression_level(conf: MutableMapping[str, str]) -> None:
    """Java has a level per codec (KIP-390); librdkafka one compression.level, of -1..12, for the codec in use."""
    codec = conf.get("compression.type", "none").strip().lower()
    levels = {key: conf.pop(key) for key in COMPRESSION_LEVELS if key in conf}
    raw = levels.get(f"compression.{codec}.level")
    if raw is None:
        return
    try:
        level = int(raw)
    except ValueError:
        raise ValueError(f"Invalid value {raw} for configuration compression.{codec}.level: "
                         "Not a number of type INT") from None
    used = min(max(level, -1), 12)
    conf["compression.level"] = str(used)
    say(f"compression.{codec}.level={level} is librdkafka's compression.level={used}"
        + (" (librdkafka's range is -1..12)" if used != level else ""))


def _partitioner(conf: MutableMapping[str, str]) -> None:
    for key, why in IGNORED.items():
        if key in conf:
            say(f"{key}={conf.pop(key)} is ignored: {why}")
    ignore_keys = conf.pop("partitioner.ignore.keys", "false").strip().lower()
    if ignore_keys == "true":
        raise ValueError("partitioner.ignore.keys=true is not supported: librdkafka's partitioners place keyed "
                         "records by their key (set partitioner=random to spread records whatever their key)")
