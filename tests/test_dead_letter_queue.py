"""The dead letter queue reporter against a real broker: DeadLetterQueueReporter.createAndSetup and
report, as ErrorReporterTest checks them with a mock producer (testDLQConfigWithValidTopicName,
testDlqHeaderConsumerRecord), here end to end."""

from __future__ import annotations

import pytest
from confluent_kafka.admin import AdminClient

from pyconnect.api.data import DataException
from pyconnect.api.errors import ConnectException
from pyconnect.api.task_id import TaskId
from pyconnect.runtime.errors import (
    ConsumedRecord,
    ErrorHandlingMetrics,
    ErrorSettings,
    LogReporter,
    ProcessingContext,
    Stage,
    TimestampType,
    ToleranceOperator,
    ToleranceType,
    create_dlq_reporter,
    ensure_dlq_topic,
)
from tests.harness.brokers import Broker
from tests.harness.kafka_io import partition_count, read_messages

TASK = TaskId("dlq-connector", 2)
CONVERTER = "org.apache.kafka.connect.json.JsonConverter"


def test_dlq_reporter_writes_the_original_record_with_context_headers(broker: Broker, unique: str) -> None:
    """ErrorReporterTest.testDLQConfigWithValidTopicName + testDlqHeaderConsumerRecord, on a broker: the
    topic is created (1 partition), the consumed key, value, headers and timestamp arrive as they were,
    followed by the `__connect.errors.*` headers; the sink waits on the write before committing."""
    bs = broker.bootstrap
    dlq_topic = f"dlq-{unique}"
    settings = ErrorSettings(tolerance=ToleranceType.ALL, log_enable=True, dlq_topic=dlq_topic,
                             dlq_replication_factor=1, dlq_context_headers=True)
    metrics = ErrorHandlingMetrics()
    producer_config = {"bootstrap.servers": bs, "linger.ms": "0"}
    dlq = create_dlq_reporter({"bootstrap.servers": bs}, producer_config, TASK, settings, metrics)
    operator = ToleranceOperator(settings, metrics, [LogReporter(TASK, settings, metrics), dlq])
    try:
        assert partition_count(bs, dlq_topic) == 1
        record = ConsumedRecord(f"in-{unique}", 3, 42, b"the-key", b"not json", (("trace", b"t-1"),),
                                1_700_000_000_123, TimestampType.CREATE_TIME)
        context = ProcessingContext(record)

        def convert() -> object:
            raise DataException("Converting byte[] to Kafka Connect data failed due to serialization error")

        assert operator.execute(Stage.VALUE_CONVERTER, CONVERTER, convert, context) is None
        operator.pending.await_futures([(record.topic, record.partition)], timeout=30)
    finally:
        operator.close()
    [msg] = read_messages(bs, dlq_topic, expect=1)
    assert (msg.key(), msg.value(), msg.timestamp()[1]) == (b"the-key", b"not json", 1_700_000_000_123)
    headers = [(k, v.decode() if v is not None else None) for k, v in msg.headers()]
    assert headers[0] == ("trace", "t-1")
    context_headers = dict(headers[1:])
    stack = context_headers.pop("__connect.errors.exception.stacktrace")
    assert context_headers == {
        "__connect.errors.topic": f"in-{unique}",
        "__connect.errors.partition": "3",
        "__connect.errors.offset": "42",
        "__connect.errors.connector.name": "dlq-connector",
        "__connect.errors.task.id": "2",
        "__connect.errors.stage": "VALUE_CONVERTER",
        "__connect.errors.class.name": CONVERTER,
        "__connect.errors.exception.class.name": "org.apache.kafka.connect.errors.DataException",
        "__connect.errors.exception.message":
            "Converting byte[] to Kafka Connect data failed due to serialization error",
    }
    assert stack is not None and stack.startswith("org.apache.kafka.connect.errors.DataException: Converting")
    assert metrics.as_dict() | {"last-error-timestamp": 0} == {
        "total-record-failures": 1, "total-record-errors": 1, "total-records-skipped": 1, "total-retries": 0,
        "total-errors-logged": 1, "deadletterqueue-produce-requests": 1, "deadletterqueue-produce-failures": 0,
        "last-error-timestamp": 0}


def replicas(bootstrap: str, topic: str) -> int:
    """How many replicas the topic's partition 0 has, from the cluster's metadata."""
    metadata = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10)
    return len(metadata.topics[topic].partitions[0].replicas)


def test_dlq_topic_creation_honours_the_replication_factor(broker: Broker, unique: str) -> None:
    """DeadLetterQueueReporter.createAndSetup: a missing topic is created with 1 partition and the configured
    replication factor (Tansu records the factor it is asked for; a one-broker Apache Kafka refuses 2 and the
    setup fails saying why); an existing topic is used as it is, and a cluster that cannot be reached fails
    the setup."""
    bs = broker.bootstrap
    if broker.kind != "tansu":
        with pytest.raises(ConnectException, match=f"topic=dlq-rf2-{unique}: .*replication factor of 2"):
            ensure_dlq_topic({"bootstrap.servers": bs}, ErrorSettings(dlq_topic=f"dlq-rf2-{unique}",
                                                                      dlq_replication_factor=2))
    for factor in (1, 2) if broker.kind == "tansu" else (1,):
        topic = f"dlq-rf{factor}-{unique}"
        ensure_dlq_topic({"bootstrap.servers": bs}, ErrorSettings(dlq_topic=topic, dlq_replication_factor=factor))
        assert (partition_count(bs, topic), replicas(bs, topic)) == (1, factor)
    ensure_dlq_topic({"bootstrap.servers": bs}, ErrorSettings(dlq_topic=f"dlq-rf1-{unique}", dlq_replication_factor=3))
    assert replicas(bs, f"dlq-rf1-{unique}") == 1
    with pytest.raises(ConnectException, match="Could not initialize dead letter queue with topic=gone"):
        ensure_dlq_topic({"bootstrap.servers": "127.0.0.1:1"}, ErrorSettings(dlq_topic="gone"), timeout=1)
