"""fit_request_to_batch: librdkafka's request limit follows a raised batch.size, as Java's producer sends a batch
larger than max.request.size alone (RecordAccumulator.drainBatchesForOneNode); tests/test_far_target_batches.py
shows the effect on the wire."""

from __future__ import annotations

import logging

import pytest

from pyconnect.kafka.config import REQUEST_FRAMING, fit_request_to_batch


def test_default_settings_are_left_as_they_are() -> None:
    conf = {"bootstrap.servers": "b:9092", "linger.ms": "5"}
    assert fit_request_to_batch(conf) == conf  # a LAN copy with defaults produces exactly as before
    assert fit_request_to_batch({"batch.size": "1000000"}) == {"batch.size": "1000000"}


def test_a_raised_batch_size_gets_a_request_that_holds_it() -> None:
    assert fit_request_to_batch({"batch.size": "8000000"}) == {
        "batch.size": "8000000", "message.max.bytes": str(8_000_000 + REQUEST_FRAMING)}
    assert fit_request_to_batch({"batch.size": "2147483647"})["message.max.bytes"] == "1000000000"  # librdkafka's top


def test_a_request_limit_the_user_set_is_kept_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    conf = {"batch.size": "8000000", "message.max.bytes": "2000000"}
    with caplog.at_level(logging.WARNING):
        assert fit_request_to_batch(conf) == conf
    assert "batch.size 8000000 is above message.max.bytes (max.request.size) 2000000" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        fit_request_to_batch({"batch.size": "8000000", "message.max.bytes": "9000000"})
    assert caplog.text == ""


def test_values_that_are_not_numbers_are_left_to_librdkafka() -> None:
    for conf in ({"batch.size": "lots"}, {"batch.size": "8000000", "message.max.bytes": "x"}):
        assert fit_request_to_batch(conf) == conf
