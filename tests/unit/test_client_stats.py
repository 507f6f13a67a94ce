"""librdkafka statistics mapped to the Java client metric names, on documents a real client emits."""

from __future__ import annotations

import time

from pyconnect.kafka.client_stats import ClientStats, client_samples
from pyconnect.kafka.clients import new_producer


def _names(stats: ClientStats) -> dict[str, float]:
    return {s.name: s.value for s in stats.samples() if s.labels["clientid"]}


def test_a_client_reports_under_java_names_from_its_start() -> None:
    """Zeros before the first statistics, then librdkafka's figures (no broker: nothing is reachable)."""
    stats = ClientStats("producer", "connector-producer-x-0")
    assert _names(stats)["kafka_producer_outgoing_byte_total"] == 0
    producer = new_producer({"bootstrap.servers": "127.0.0.1:1", "statistics.interval.ms": "100",
                             "client.id": "connector-producer-x-0", "queue.buffering.max.kbytes": "1024"}, stats=stats)
    producer.produce("t", b"v" * 100)
    deadline = time.monotonic() + 10
    while _names(stats).get("kafka_producer_buffer_total_bytes", 0) == 0 and time.monotonic() < deadline:
        producer.poll(0.1)
    figures = _names(stats)
    assert figures["kafka_producer_buffer_total_bytes"] == 1024 * 1024
    assert 0 < figures["kafka_producer_buffer_available_bytes"] < 1024 * 1024  # one record queued
    assert figures["kafka_producer_record_queue_count"] == 1
    assert figures["kafka_producer_connection_count"] == 0
    assert {s.labels["clientid"] for s in stats.samples()} == {"connector-producer-x-0"}
    producer.purge()


def test_lag_is_high_watermark_minus_position() -> None:
    doc = {"client_id": "c", "rx_bytes": 10, "brokers": {"b": {"nodeid": 1, "state": "UP"},
                                                         "GroupCoordinator": {"nodeid": -1, "state": "UP"}},
           "topics": {"t": {"partitions": {
               "0": {"hi_offset": 100, "app_offset": 40, "fetch_state": "active"},
               "1": {"hi_offset": 100, "app_offset": -1001, "next_offset": 90, "fetch_state": "active"},
               "2": {"hi_offset": 100, "app_offset": 1, "fetch_state": "none"},  # not assigned
               "-1": {"hi_offset": -1, "app_offset": -1, "fetch_state": "none"}}}}}
    samples = list(client_samples("consumer", doc))
    lags = {s.labels.get("partition"): s.value for s in samples if s.name == "kafka_consumer_fetch_manager_records_lag"}
    assert lags == {"0": 60, "1": 10}
    by_name = {s.name: s.value for s in samples if "partition" not in s.labels}
    assert by_name["kafka_consumer_fetch_manager_records_lag_max"] == 60
    assert by_name["kafka_consumer_incoming_byte_total"] == 10
    assert by_name["kafka_consumer_connection_count"] == 1  # the coordinator's logical entry is not a connection


def test_a_broken_document_keeps_the_last_figures() -> None:
    stats = ClientStats("consumer", "c")
    before = stats.samples()
    stats.on_stats("{not json")
    assert stats.samples() == before
