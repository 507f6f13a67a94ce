"""LogReporter and DeadLetterQueueReporter: Connect's ErrorReporterTest, ported (each case names its source)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from pyconnect.api.data import DataException
from pyconnect.api.errors import ConnectException
from pyconnect.api.records import SourceRecord
from pyconnect.api.task_id import TaskId
from pyconnect.runtime.errors import (
    ConsumedRecord,
    DeadLetterQueueReporter,
    ErrorHandlingMetrics,
    ErrorSettings,
    LogReporter,
    ProcessingContext,
    Stage,
    TimestampType,
    sink_task_reporters,
    source_task_reporters,
)
from pyconnect.runtime.errors import dlq_headers as h
from tests.unit.errors_fakes import FakeProducer

TOPIC = "test-topic"
DLQ_TOPIC = "test-topic-errors"
TASK_ID = TaskId("job", 0)
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
TRANSFORMATION = "org.apache.kafka.connect.transforms.Transformation"


def processing_context() -> ProcessingContext:
    """ErrorReporterTest.processingContext"""
    context = ProcessingContext(ConsumedRecord(TOPIC, 5, 100, b"ab", b"x"))
    context.current(Stage.KEY_CONVERTER, JSON_CONVERTER)
    return context


def dlq(producer: FakeProducer, **settings: Any) -> tuple[DeadLetterQueueReporter, ErrorHandlingMetrics]:
    metrics = ErrorHandlingMetrics()
    return DeadLetterQueueReporter(producer, ErrorSettings(**settings), TASK_ID, metrics, poll_interval=0.01), metrics


def header(headers: list[tuple[str, bytes | None]], name: str) -> str | None:
    """ErrorReporterTest.headerValue: the last header of that name."""
    value = [v for k, v in headers if k == name][-1]
    return None if value is None else value.decode("utf-8")


def test_dlq_config_with_empty_topic_name() -> None:
    """ErrorReporterTest.testDLQConfigWithEmptyTopicName: no topic, no produce."""
    producer = FakeProducer()
    reporter, metrics = dlq(producer)
    try:
        assert reporter.report(processing_context()) is None
        assert producer.sent == [] and metrics.deadletterqueue_produce_requests == 0
    finally:
        reporter.close()


def test_dlq_config_with_valid_topic_name() -> None:
    """ErrorReporterTest.testDLQConfigWithValidTopicName: the original key and value, to the DLQ topic."""
    producer = FakeProducer()
    reporter, metrics = dlq(producer, dlq_topic=DLQ_TOPIC)
    try:
        future = reporter.report(processing_context())
        assert future is not None
        future.result(5)
        assert producer.sent == [{"topic": DLQ_TOPIC, "key": b"ab", "value": b"x", "headers": [], "timestamp": None}]
        assert metrics.deadletterqueue_produce_requests == 1 and metrics.deadletterqueue_produce_failures == 0
    finally:
        reporter.close()


def test_report_dlq_twice() -> None:
    """ErrorReporterTest.testReportDLQTwice"""
    producer = FakeProducer()
    reporter, metrics = dlq(producer, dlq_topic=DLQ_TOPIC)
    try:
        for future in [reporter.report(processing_context()), reporter.report(processing_context())]:
            assert future is not None
            future.result(5)
        assert len(producer.sent) == 2 and metrics.deadletterqueue_produce_requests == 2
    finally:
        reporter.close()


def test_dlq_keeps_original_headers_and_timestamp() -> None:
    """DeadLetterQueueReporter.report: the record's own headers and (when it has one) timestamp."""
    producer = FakeProducer()
    reporter, _ = dlq(producer, dlq_topic=DLQ_TOPIC)
    try:
        record = ConsumedRecord(TOPIC, 0, 1, None, b"v", (("h", b"1"), ("h", None)), 1234,
                                TimestampType.CREATE_TIME)
        context = ProcessingContext(record)
        context.current(Stage.VALUE_CONVERTER, JSON_CONVERTER)
        future = reporter.report(context)
        assert future is not None
        future.result(5)
        assert producer.sent[0]["headers"] == [("h", b"1"), ("h", None)]
        assert producer.sent[0]["timestamp"] == 1234 and producer.sent[0]["key"] is None
    finally:
        reporter.close()


def test_dlq_failed_delivery_fails_the_future() -> None:
    """DeadLetterQueueReporter.report's callback: a failed write is counted and fails the future."""
    producer = FakeProducer(fail_with="MSG_SIZE_TOO_LARGE")
    reporter, metrics = dlq(producer, dlq_topic=DLQ_TOPIC)
    try:
        future = reporter.report(processing_context())
        assert future is not None
        with pytest.raises(ConnectException, match="Could not produce message to dead letter queue"):
            future.result(5)
        assert metrics.deadletterqueue_produce_failures == 1
    finally:
        reporter.close()


def test_dlq_without_consumed_record() -> None:
    """DeadLetterQueueReporter.report: a context without a consumed record counts as a failed produce."""
    producer = FakeProducer()
    reporter, metrics = dlq(producer, dlq_topic=DLQ_TOPIC)
    try:
        assert reporter.report(ProcessingContext(None, Stage.TASK_PUT)) is None
        assert producer.sent == [] and metrics.deadletterqueue_produce_failures == 1
    finally:
        reporter.close()


def test_log_on_disabled_log_reporter(caplog: pytest.LogCaptureFixture) -> None:
    """ErrorReporterTest.testLogOnDisabledLogReporter"""
    metrics = ErrorHandlingMetrics()
    context = processing_context()
    context.error = RuntimeError()
    with caplog.at_level(logging.ERROR):
        LogReporter(TASK_ID, ErrorSettings(), metrics).report(context)
    assert metrics.total_errors_logged == 0 and not caplog.records


def test_log_on_enabled_log_reporter(caplog: pytest.LogCaptureFixture) -> None:
    """ErrorReporterTest.testLogOnEnabledLogReporter"""
    metrics = ErrorHandlingMetrics()
    context = processing_context()
    context.error = RuntimeError("bad")
    with caplog.at_level(logging.ERROR):
        LogReporter(TASK_ID, ErrorSettings(log_enable=True), metrics).report(context)
    assert metrics.total_errors_logged == 1
    [record] = caplog.records
    assert record.levelno == logging.ERROR and record.exc_info is not None and record.exc_info[1] is context.error


def test_log_on_enabled_without_error(caplog: pytest.LogCaptureFixture) -> None:
    """LogReporter.report: a context that did not fail is not logged."""
    metrics = ErrorHandlingMetrics()
    with caplog.at_level(logging.ERROR):
        LogReporter(TASK_ID, ErrorSettings(log_enable=True), metrics).report(processing_context())
    assert metrics.total_errors_logged == 0 and not caplog.records


def test_log_message_with_no_records() -> None:
    """ErrorReporterTest.testLogMessageWithNoRecords"""
    reporter = LogReporter(TASK_ID, ErrorSettings(log_enable=True), ErrorHandlingMetrics())
    assert reporter.message(processing_context()) == (
        "Error encountered in task job-0. Executing stage 'KEY_CONVERTER' with class "
        "'org.apache.kafka.connect.json.JsonConverter'.")


def test_log_message_with_sink_records() -> None:
    """ErrorReporterTest.testLogMessageWithSinkRecords"""
    reporter = LogReporter(TASK_ID, ErrorSettings(log_enable=True, log_include_messages=True),
                           ErrorHandlingMetrics())
    assert reporter.message(processing_context()) == (
        "Error encountered in task job-0. Executing stage 'KEY_CONVERTER' with class "
        "'org.apache.kafka.connect.json.JsonConverter', where consumed record is {topic='test-topic', "
        "partition=5, offset=100}.")


def test_log_message_with_sink_record_timestamp() -> None:
    """LogReporter.Sink.appendMessage: a CreateTime/LogAppendTime timestamp is shown with its type."""
    reporter = LogReporter(TASK_ID, ErrorSettings(log_enable=True, log_include_messages=True),
                           ErrorHandlingMetrics())
    context = ProcessingContext(ConsumedRecord(TOPIC, 5, 100, b"k", b"v", (), 1700000000000,
                                               TimestampType.LOG_APPEND_TIME))
    context.current(Stage.VALUE_CONVERTER, JSON_CONVERTER)
    assert reporter.message(context).endswith(
        "where consumed record is {topic='test-topic', partition=5, offset=100, timestamp=1700000000000, "
        "timestampType=LogAppendTime}.")


def test_log_message_with_source_record() -> None:
    """LogReporter.Source.appendMessage: the whole source record, key and value included, only with
    errors.log.include.messages."""
    record = SourceRecord({"file": "a"}, {"line": 3}, "out", "the-value", key="the-key")
    context = ProcessingContext(record)
    context.current(Stage.KAFKA_PRODUCE, "org.apache.kafka.clients.producer.KafkaProducer")
    with_messages = LogReporter(TASK_ID, ErrorSettings(log_enable=True, log_include_messages=True),
                                ErrorHandlingMetrics()).message(context)
    assert with_messages == (
        "Error encountered in task job-0. Executing stage 'KAFKA_PRODUCE' with class "
        "'org.apache.kafka.clients.producer.KafkaProducer', where source record is = SourceRecord{"
        "sourcePartition={file=a}, sourceOffset={line=3}} ConnectRecord{topic='out', kafkaPartition=null, "
        "key=the-key, keySchema=null, value=the-value, valueSchema=null, timestamp=null, "
        "headers=ConnectHeaders(headers=)}.")
    without = LogReporter(TASK_ID, ErrorSettings(log_enable=True), ErrorHandlingMetrics()).message(context)
    assert "the-key" not in without and "the-value" not in without


def test_dlq_header_consumer_record() -> None:
    """ErrorReporterTest.testDlqHeaderConsumerRecord: every context header, Java's names and values."""
    producer = FakeProducer()
    reporter, _ = dlq(producer, dlq_topic=DLQ_TOPIC, dlq_context_headers=True)
    try:
        context = ProcessingContext(ConsumedRecord("source-topic", 7, 10, b"source-key", b"source-value"))
        context.current(Stage.TRANSFORMATION, TRANSFORMATION)
        context.error = ConnectException("Test Exception")
        future = reporter.report(context)
        assert future is not None
        future.result(5)
        headers = producer.sent[0]["headers"]
        assert [k for k, _ in headers] == [h.ORIG_TOPIC, h.ORIG_PARTITION, h.ORIG_OFFSET, h.CONNECTOR_NAME,
                                           h.TASK_ID, h.STAGE, h.EXECUTING_CLASS, h.EXCEPTION,
                                           h.EXCEPTION_MESSAGE, h.EXCEPTION_STACK_TRACE]
        assert header(headers, "__connect.errors.topic") == "source-topic"
        assert header(headers, "__connect.errors.partition") == "7"
        assert header(headers, "__connect.errors.offset") == "10"
        assert header(headers, "__connect.errors.connector.name") == "job"
        assert header(headers, "__connect.errors.task.id") == "0"
        assert header(headers, "__connect.errors.stage") == "TRANSFORMATION"
        assert header(headers, "__connect.errors.class.name") == TRANSFORMATION
        assert header(headers, "__connect.errors.exception.class.name") == \
            "org.apache.kafka.connect.errors.ConnectException"
        assert header(headers, "__connect.errors.exception.message") == "Test Exception"
        trace = header(headers, "__connect.errors.exception.stacktrace")
        assert trace is not None
        assert trace.startswith("org.apache.kafka.connect.errors.ConnectException: Test Exception")
    finally:
        reporter.close()


def test_dlq_header_is_appended() -> None:
    """ErrorReporterTest.testDlqHeaderIsAppended: a record's own header of the same name stays; ours follows."""
    context = ProcessingContext(ConsumedRecord("source-topic", 7, 10, b"source-key", b"source-value",
                                               ((h.ORIG_TOPIC, b"dummy"),)))
    context.current(Stage.TRANSFORMATION, TRANSFORMATION)
    context.error = ConnectException("Test Exception")
    producer = FakeProducer()
    reporter, _ = dlq(producer, dlq_topic=DLQ_TOPIC, dlq_context_headers=True)
    try:
        future = reporter.report(context)
        assert future is not None
        future.result(5)
        headers = producer.sent[0]["headers"]
        assert [k for k, _ in headers].count(h.ORIG_TOPIC) == 2
        assert header(headers, h.ORIG_TOPIC) == "source-topic"
    finally:
        reporter.close()


class MyError(DataException):
    pass


@pytest.mark.parametrize("error, name, message", [
    (ValueError("nope"), "builtins.ValueError", "nope"),
    (DataException("bad schema"), "org.apache.kafka.connect.errors.DataException", "bad schema"),
    (MyError("mine"), f"{__name__}.MyError", "mine"),
    (RuntimeError(), "builtins.RuntimeError", None),  # Java's getMessage() null: a null header value
])
def test_exception_class_names(error: Exception, name: str, message: str | None) -> None:
    """DeadLetterQueueReporter.populateContextHeaders: exception.class.name and exception.message."""
    context = ProcessingContext(ConsumedRecord("t", 0, 0))
    context.current(Stage.VALUE_CONVERTER, ConsumedRecord)
    context.error = error
    headers = h.context_headers(context, TASK_ID)
    assert header(headers, h.EXCEPTION) == name
    assert header(headers, h.EXCEPTION_MESSAGE) == message
    assert header(headers, h.EXECUTING_CLASS) == "pyconnect.runtime.errors.context.ConsumedRecord"
    trace = header(headers, h.EXCEPTION_STACK_TRACE)
    assert trace is not None and trace.splitlines()[0] == (name if message is None else f"{name}: {message}")


def test_context_headers_without_consumed_record() -> None:
    """DeadLetterQueueReporter.populateContextHeaders: no original position without a consumed record."""
    context = ProcessingContext(None, Stage.TASK_PUT, "org.apache.kafka.connect.sink.SinkTask")
    names = [k for k, _ in h.context_headers(context, TASK_ID)]
    assert names == [h.CONNECTOR_NAME, h.TASK_ID, h.STAGE, h.EXECUTING_CLASS]


def test_task_reporters_without_dlq() -> None:
    """Worker.sinkTaskReporters / sourceTaskReporters: the log reporter always, a DLQ only when named."""
    metrics = ErrorHandlingMetrics()
    [sink_log] = sink_task_reporters(TASK_ID, ErrorSettings(), metrics, {}, {})
    [source_log] = source_task_reporters(TASK_ID, ErrorSettings(dlq_topic="ignored-for-sources"), metrics)
    assert isinstance(sink_log, LogReporter) and isinstance(source_log, LogReporter)
