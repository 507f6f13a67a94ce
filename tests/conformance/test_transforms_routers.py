"""Ports of Kafka's RegexRouterTest and TimestampRouterTest (connect/transforms)."""

from __future__ import annotations

import pytest

from pyconnect.transforms import ConnectRecord
from pyconnect.transforms.routers import RegexRouter, TimestampRouter
from pyconnect.transforms.spi import VERSION


def route(regex: str, replacement: str, topic: str) -> str | None:
    router = RegexRouter()
    router.configure({"regex": regex, "replacement": replacement})
    routed = router.apply(ConnectRecord(topic, 0, timestamp=0))
    router.close()
    assert routed is not None
    return routed.topic


@pytest.mark.kafka("RegexRouterTest.staticReplacement")
def test_static_replacement() -> None:
    assert route("foo", "bar", "foo") == "bar"


@pytest.mark.kafka("RegexRouterTest.doesntMatch")
def test_doesnt_match() -> None:
    assert route("foo", "bar", "orig") == "orig"


@pytest.mark.kafka("RegexRouterTest.identity")
def test_identity() -> None:
    assert route("(.*)", "$1", "orig") == "orig"


@pytest.mark.kafka("RegexRouterTest.addPrefix")
def test_add_prefix() -> None:
    assert route("(.*)", "prefix-$1", "orig") == "prefix-orig"


@pytest.mark.kafka("RegexRouterTest.addSuffix")
def test_add_suffix() -> None:
    assert route("(.*)", "$1-suffix", "orig") == "orig-suffix"


@pytest.mark.kafka("RegexRouterTest.slice")
def test_slice() -> None:
    assert route(r"(.*)-(\d\d\d\d\d\d\d\d)", "$1", "index-20160117") == "index"


@pytest.mark.kafka("TimestampRouterTest.defaultConfiguration")
def test_timestamp_router_default_configuration() -> None:
    router = TimestampRouter()
    router.configure({})
    routed = router.apply(ConnectRecord("test", 0, timestamp=1483425001864))
    assert routed is not None and routed.topic == "test-20170103"


@pytest.mark.kafka("TimestampRouterTest.testTimestampRouterVersionRetrievedFromAppInfoParser")
def test_timestamp_router_version() -> None:
    assert TimestampRouter().version() == VERSION


def test_regex_router_rejects_invalid_regex_with_connects_message() -> None:
    errors = RegexRouter().config_def().validate_all({"regex": "(", "replacement": "x"})["regex"].errors
    assert len(errors) == 1 and errors[0].startswith("Invalid value ( for configuration regex: Invalid regex: ")


def test_timestamp_router_custom_formats_and_missing_timestamp() -> None:
    router = TimestampRouter()
    router.configure({"topic.format": "${timestamp}.${topic}", "timestamp.format": "yyyy-MM-dd'T'HH"})
    routed = router.apply(ConnectRecord("t", timestamp=1483425001864))
    assert routed is not None and routed.topic == "2017-01-03T06.t"
    with pytest.raises(Exception, match="Timestamp missing on record"):
        router.apply(ConnectRecord("t"))
