"""Java client settings that librdkafka refuses or reads differently (pyconnect.kafka.java_settings).

Each case translates a Java client config as Connect and MM2 files carry it, builds a real librdkafka
client from the result (a client needs no broker to be created: it is built, then closed), and checks
the INFO line that names the change: one line, however many clients are built from the same settings.
Without the adaptation, librdkafka refuses to create each of these clients.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping

import pytest

from pyconnect.kafka import java_settings
from pyconnect.kafka.admin import Admin
from pyconnect.kafka.clients import KafkaClientError, new_consumer, new_producer
from pyconnect.kafka.config import to_librdkafka

BASE = {"bootstrap.servers": "127.0.0.1:1"}  # nothing listens there: clients are built, never connected


@pytest.fixture(autouse=True)
def fresh_lines(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Each test starts with no line said yet in the process, and sees librdkafka's own log lines."""
    monkeypatch.setattr(java_settings, "_said", set())
    caplog.set_level(logging.INFO, logger=java_settings.__name__)
    caplog.set_level(logging.DEBUG, logger="librdkafka")
    yield


def built(java: Mapping[str, str], role: str) -> dict[str, str]:
    """Translate `java` for `role` three times (three tasks' clients), build a real client from the result
    each time, and return the librdkafka settings."""
    conf: dict[str, str] = {}
    for _ in range(3):
        conf = to_librdkafka({**BASE, **java}, role)
        if role == "consumer":
            new_consumer(conf).close()
        elif role == "producer":
            new_producer(conf).flush(0)
        else:
            Admin(conf)
    return conf


def lines(caplog: pytest.LogCaptureFixture, *words: str) -> list[str]:
    """The INFO lines of java_settings that contain every one of `words`."""
    said = [r.getMessage() for r in caplog.records if r.name == java_settings.__name__ and r.levelno == logging.INFO]
    return [line for line in said if all(word in line for word in words)]


def librdkafka_text(caplog: pytest.LogCaptureFixture) -> str:
    """librdkafka's own log lines (ClientLog hands each to the "librdkafka" logger)."""
    return "\n".join(r.getMessage() for r in caplog.records if r.name == "librdkafka")


@pytest.mark.parametrize(("role", "java_key", "value", "key", "expected"), [
    ("consumer", "fetch.min.bytes", "0", "fetch.min.bytes", "1"),
    ("consumer", "fetch.max.wait.ms", "400000", "fetch.wait.max.ms", "299000"),
    ("consumer", "max.partition.fetch.bytes", "0", "max.partition.fetch.bytes", "1"),
    ("consumer", "max.partition.fetch.bytes", "2000000000", "max.partition.fetch.bytes", "1000000000"),
    ("consumer", "fetch.max.bytes", "2147483647", "fetch.max.bytes", "2147483135"),
    ("consumer", "auto.commit.interval.ms", "100000000", "auto.commit.interval.ms", "86400000"),
    ("consumer", "receive.buffer.bytes", "200000000", "socket.receive.buffer.bytes", "100000000"),
    ("consumer", "connections.max.idle.ms", "-1", "connections.max.idle.ms", "0"),
    ("consumer", "retry.backoff.ms", "0", "retry.backoff.ms", "1"),
    ("producer", "linger.ms", "1000000", "linger.ms", "900000"),
    ("producer", "batch.size", "0", "batch.size", "1"),
    ("producer", "max.request.size", "500", "message.max.bytes", "1000"),
    ("producer", "max.request.size", "2000000000", "message.max.bytes", "1000000000"),
    ("producer", "send.buffer.bytes", "200000000", "socket.send.buffer.bytes", "100000000"),
    ("admin", "metadata.max.age.ms", "0", "metadata.max.age.ms", "1"),
    ("admin", "socket.connection.setup.timeout.ms", "500", "socket.connection.setup.timeout.ms", "1000"),
    ("admin", "reconnect.backoff.max.ms", "5000000", "reconnect.backoff.max.ms", "3600000"),
])
def test_a_value_outside_librdkafkas_range_takes_the_nearest_bound(
        role: str, java_key: str, value: str, key: str, expected: str, caplog: pytest.LogCaptureFixture) -> None:
    conf = built({java_key: value}, role)
    assert conf[key] == expected
    assert len(lines(caplog, f"{java_key}", f"={value} is outside librdkafka's range", f"using {expected}")) == 1


def test_max_poll_interval_below_the_session_timeout_is_raised_to_it(caplog: pytest.LogCaptureFixture) -> None:
    """The issue's case: Java's consumer takes max.poll.interval.ms < session.timeout.ms; librdkafka refuses it."""
    conf = built({"max.poll.interval.ms": "1000", "session.timeout.ms": "6000"}, "consumer")
    assert conf["max.poll.interval.ms"] == "6000"
    assert len(lines(caplog, "max.poll.interval.ms=1000", "session.timeout.ms=6000", "raised to 6000")) == 1
    assert built({"max.poll.interval.ms": "1000"}, "consumer")["max.poll.interval.ms"] == "45000"  # the default


def test_fetch_max_bytes_below_a_megabyte_lowers_message_max_bytes(caplog: pytest.LogCaptureFixture) -> None:
    assert built({"fetch.max.bytes": "500000"}, "consumer")["message.max.bytes"] == "500000"
    assert len(lines(caplog, "fetch.max.bytes=500000", "message.max.bytes=1000000", "set to 500000")) == 1
    conf = built({"fetch.max.bytes": "0"}, "consumer")  # Java's 0: the broker still sends one batch
    assert (conf["fetch.max.bytes"], conf["message.max.bytes"]) == ("1000", "1000")


def test_a_consumers_request_timeout_is_librdkafkas_socket_timeout(caplog: pytest.LogCaptureFixture) -> None:
    """librdkafka's request.timeout.ms is the producer's: a consumer would warn and ignore it."""
    conf = built({"request.timeout.ms": "20000"}, "consumer")
    assert conf["socket.timeout.ms"] == "20000" and "request.timeout.ms" not in conf
    assert len(lines(caplog, "request.timeout.ms=20000", "socket.timeout.ms=20000")) == 1
    assert "producer property" not in librdkafka_text(caplog)
    admin = built({"request.timeout.ms": "7000"}, "admin")
    assert (admin["socket.timeout.ms"], admin["request.timeout.ms"]) == ("7000", "7000")


def test_a_short_request_timeout_clears_the_fetch_wait(caplog: pytest.LogCaptureFixture) -> None:
    conf = built({"request.timeout.ms": "1000"}, "consumer")  # fetch.max.wait.ms is 500 by default
    assert conf["socket.timeout.ms"] == "1500"
    assert len(lines(caplog, "socket.timeout.ms=1000", "fetch.wait.max.ms=500", "raised to 1500")) == 1
    assert "should be set lower than" not in librdkafka_text(caplog)


def test_reconnect_backoff_follows_javas_rules(caplog: pytest.LogCaptureFixture) -> None:
    """CommonClientConfigs.postProcessReconnectBackoffConfigs: reconnect.backoff.ms alone is a fixed backoff."""
    conf = built({"reconnect.backoff.ms": "20000"}, "consumer")
    assert conf["reconnect.backoff.max.ms"] == "20000"
    assert len(lines(caplog, "reconnect.backoff.ms=20000", "reconnect.backoff.max.ms set to 20000")) == 1
    conf = built({"reconnect.backoff.ms": "5000", "reconnect.backoff.max.ms": "1000"}, "producer")
    assert conf["reconnect.backoff.ms"] == "1000"
    assert len(lines(caplog, "reconnect.backoff.ms=5000", "reconnect.backoff.max.ms=1000", "set to 1000")) == 1


def test_the_connection_setup_timeouts_longest_value_is_librdkafkas_fixed_one(
        caplog: pytest.LogCaptureFixture) -> None:
    conf = built({"socket.connection.setup.timeout.ms": "10000",
                  "socket.connection.setup.timeout.max.ms": "60000"}, "admin")
    assert conf["socket.connection.setup.timeout.ms"] == "60000"
    assert "socket.connection.setup.timeout.max.ms" not in conf
    assert len(lines(caplog, "socket.connection.setup.timeout.max.ms=60000", "set to 60000")) == 1


def test_auto_offset_reset_none_is_librdkafkas_error(caplog: pytest.LogCaptureFixture) -> None:
    assert built({"auto.offset.reset": "none"}, "consumer")["auto.offset.reset"] == "error"
    assert len(lines(caplog, "auto.offset.reset=none", "auto.offset.reset=error")) == 1
    with pytest.raises(ValueError, match="by_duration:PT1H is not supported: librdkafka resets only"):
        to_librdkafka({**BASE, "auto.offset.reset": "by_duration:PT1H"}, "consumer")


def test_javas_assignor_classes_are_librdkafkas_names(caplog: pytest.LogCaptureFixture) -> None:
    java = "org.apache.kafka.clients.consumer.RangeAssignor, org.apache.kafka.clients.consumer.RoundRobinAssignor"
    assert built({"partition.assignment.strategy": java}, "consumer")["partition.assignment.strategy"] == \
        "range,roundrobin"
    assert len(lines(caplog, "partition.assignment.strategy=", "librdkafka's range,roundrobin")) == 1
    # Java's own default list: an eager assignor in the list makes Java run the eager protocol.
    mixed = ",".join(f"org.apache.kafka.clients.consumer.{name}" for name in ("RangeAssignor",
                                                                              "CooperativeStickyAssignor"))
    assert built({"partition.assignment.strategy": mixed}, "consumer")["partition.assignment.strategy"] == "range"
    assert len(lines(caplog, "librdkafka's range (a list with an eager assignor")) == 1
    for refused in ("org.apache.kafka.clients.consumer.StickyAssignor", "com.example.MyAssignor"):
        with pytest.raises(ValueError, match=f"{refused} is not supported: librdkafka assigns with range"):
            to_librdkafka({**BASE, "partition.assignment.strategy": refused}, "consumer")


def test_delivery_timeout_follows_javas_producer(caplog: pytest.LogCaptureFixture) -> None:
    """KafkaProducer.configureDeliveryTimeout: refused when set below linger.ms + request.timeout.ms, raised
    when unset (librdkafka's 300 s default would be below linger.ms, which it refuses)."""
    with pytest.raises(ValueError, match=r"should be equal to or larger than linger.ms \+ request.timeout.ms"):
        to_librdkafka({**BASE, "delivery.timeout.ms": "1000", "linger.ms": "2000"}, "producer")
    assert built({"linger.ms": "400000"}, "producer")["delivery.timeout.ms"] == "430000"
    assert len(lines(caplog, "linger.ms + request.timeout.ms = 430000", "set to 430000")) == 1


def test_a_transactional_delivery_timeout_stays_within_the_transaction(caplog: pytest.LogCaptureFixture) -> None:
    conf = built({"transactional.id": "t", "delivery.timeout.ms": "120000"}, "producer")  # Java's defaults
    assert conf["delivery.timeout.ms"] == "60000"
    assert len(lines(caplog, "delivery.timeout.ms=120000", "transaction.timeout.ms=60000", "set to 60000")) == 1
    assert built({"transactional.id": "t", "transaction.timeout.ms": "500"}, "producer")[
        "transaction.timeout.ms"] == "1000"


def test_the_codecs_level_is_librdkafkas_compression_level(caplog: pytest.LogCaptureFixture) -> None:
    conf = built({"compression.type": "zstd", "compression.zstd.level": "15", "compression.gzip.level": "5"},
                 "producer")
    assert conf["compression.level"] == "12" and "compression.gzip.level" not in conf
    assert len(lines(caplog, "compression.zstd.level=15", "compression.level=12")) == 1
    assert lines(caplog, "gzip") == []  # another codec's level: Java ignores it too


def test_java_only_producer_and_login_tuning_keys_are_ignored_with_a_line(caplog: pytest.LogCaptureFixture) -> None:
    java = {"partitioner.adaptive.partitioning.enable": "false", "metadata.max.idle.ms": "60000",
            "partitioner.ignore.keys": "false", "sasl.login.refresh.window.factor": "0.9",
            "sasl.kerberos.ticket.renew.jitter": "0.1"}
    conf = built(java, "producer")
    assert not set(java) & set(conf)
    for key in java:
        assert len(lines(caplog, f"{key}=", "ignored")) == (0 if key == "partitioner.ignore.keys" else 1), key


@pytest.mark.parametrize(("key", "value", "why"), [
    ("partitioner.ignore.keys", "true", "librdkafka's partitioners place keyed records by their key"),
    ("sasl.login.class", "com.example.Login", "is a Java class"),
    ("ssl.engine.factory.class", "com.example.Engine", "is a Java class"),
    ("bootstrap.controllers", "c:9093", "talks to brokers only"),
    ("transaction.two.phase.commit.enable", "true", "no two-phase commit"),
])
def test_what_librdkafka_cannot_do_is_refused_with_the_reason(key: str, value: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        to_librdkafka({**BASE, key: value}, "admin" if key == "bootstrap.controllers" else "producer")


def test_honoured_settings_pass_unchanged(caplog: pytest.LogCaptureFixture) -> None:
    """retry.backoff.max.ms is librdkafka's too; values Java refuses are left for librdkafka to name."""
    assert built({"retry.backoff.max.ms": "5000"}, "consumer")["retry.backoff.max.ms"] == "5000"
    assert to_librdkafka({**BASE, "max.poll.interval.ms": "0"}, "consumer")["max.poll.interval.ms"] == "0"
    assert to_librdkafka({**BASE, "fetch.min.bytes": "x"}, "consumer")["fetch.min.bytes"] == "x"
    assert lines(caplog) == []
    with pytest.raises(KafkaClientError, match="`acks` must be set to `all` when `enable.idempotence` is true"):
        built({"enable.idempotence": "true", "acks": "1"}, "producer")  # Java refuses it too
