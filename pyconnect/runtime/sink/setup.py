"""What a worker hands each sink task: its consumer settings (group `connect-<name>`, Connect's
`consumer.override.*`), subscription, converters for reading, and transforms."""

from __future__ import annotations

from collections.abc import Mapping

from pyconnect.api.task_id import TaskId
from pyconnect.config.worker import WorkerConfig
from pyconnect.converters import deserializer_for, header_converter_for, side_settings
from pyconnect.kafka.config import to_librdkafka
from pyconnect.runtime.client_overrides import task_overrides
from pyconnect.runtime.errors import (
    ErrorHandlingMetrics,
    ErrorSettings,
    ToleranceOperator,
    sink_task_reporters,
)
from pyconnect.runtime.sink.config import topics, topics_regex
from pyconnect.runtime.sink.conversion import SinkConverters, SinkRecordConversion
from pyconnect.runtime.sink.runner import SinkSettings
from pyconnect.transforms.connector_config import TRANSFORMS, aliases, build_chain

DEFAULT_MAX_POLL_RECORDS = 500


def group_id(connector: str) -> str:
    """Connect's default consumer group of a sink connector (SinkUtils.consumerGroupId)."""
    return f"connect-{connector}"


class SinkSetup:
    """Per-task sink settings and conversion, from the worker's and the connector's configs."""

    def __init__(self, config: WorkerConfig, flush_interval: float, shutdown_timeout: float) -> None:
        self._config, self._flush, self._shutdown = config, flush_interval, shutdown_timeout

    def settings(self, connector: str, task: int, connector_config: Mapping[str, str]) -> SinkSettings:
        overrides = task_overrides(self._config, connector_config, "consumer")  # raises if the worker refuses one
        # Connect's defaults for sink consumers, under what the worker's `consumer.*` and the
        # connector's overrides say: offsets are committed by the runtime, reading starts at the beginning.
        # A subscribed topic that does not exist yet (the quickstart's, made by the source's first record)
        # is found by a metadata refresh: every 5 s rather than librdkafka's 5 minutes, as quickly as Java's
        # consumer retries an unknown topic.
        conf = {"group.id": group_id(connector), "auto.offset.reset": "earliest",
                "topic.metadata.refresh.interval.ms": "5000",
                **self._config.task_client_config("consumer"),
                "client.id": f"connector-consumer-{connector}-{task}",  # whatever the worker's own client.id
                **to_librdkafka(overrides, "consumer"),
                "enable.auto.commit": "false"}
        # max.poll.records has no librdkafka twin: it sizes each consume() call.
        raw = self._config.raw
        max_poll = overrides.get("max.poll.records") or raw.get("consumer.max.poll.records")
        return SinkSettings(conf, topics(connector_config), topics_regex(connector_config),
                            int(max_poll) if max_poll else DEFAULT_MAX_POLL_RECORDS, self._flush, self._shutdown)

    def operator(self, task_id: TaskId, connector_config: Mapping[str, str]) -> ToleranceOperator:
        """The task's error handling (errors.*): its reporters, a dead letter queue among them when named
        (its topic is created here if missing, so this runs on the task's thread)."""
        settings = ErrorSettings.from_config(connector_config)
        metrics = ErrorHandlingMetrics()

        def overrides(role: str) -> dict[str, str]:
            return to_librdkafka(task_overrides(self._config, connector_config, role), role)
        producer = {**self._config.task_client_config("producer"), **overrides("producer")}
        admin = {**self._config.client_config("admin"), **overrides("admin")}
        return ToleranceOperator(settings, metrics, sink_task_reporters(task_id, settings, metrics, admin, producer))

    def conversion(self, connector_config: Mapping[str, str], operator: ToleranceOperator) -> SinkRecordConversion:
        """Key/value/header converters (the connector's, else the worker's) and the connector's transforms."""
        settings, raw = self._config.settings, self._config.raw
        names = {side: connector_config.get(f"{side}.converter") for side in ("key", "value", "header")}
        key_name = names["key"] or settings.key_converter
        value_name = names["value"] or settings.value_converter
        header_name = names["header"] or settings.header_converter

        def configs(side: str) -> dict[str, str]:
            # A connector's converter takes its own `<side>.converter.*` settings, the worker's its own.
            return side_settings(connector_config if names[side] else raw, side)

        converters = SinkConverters(
            deserializer_for(key_name, configs("key"), True), deserializer_for(value_name, configs("value"), False),
            header_converter_for(header_name, configs("header")), key_name, value_name, header_name)
        chain = build_chain(connector_config) if aliases(connector_config, TRANSFORMS) else None
        return SinkRecordConversion(converters, chain, operator)
