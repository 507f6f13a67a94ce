"""What a worker hands each source task: its runner settings (Connect's per-connector producer
overrides and converters; exactly-once settings) and its offset stores (runtime/source/offset_stores.py)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping

from pyconnect.api.converter import SchemaSerialize, Serialize
from pyconnect.api.task_id import TaskId
from pyconnect.config.worker import WorkerConfig
from pyconnect.converters import converter_for, header_converter_for, schema_serializer_for, side_settings
from pyconnect.kafka.config import to_librdkafka
from pyconnect.runtime.client_overrides import task_overrides
from pyconnect.runtime.source.fencing import transactional_id
from pyconnect.runtime.source.offset_stores import ConnectorOffsetStores
from pyconnect.runtime.source.runner import RunnerSettings
from pyconnect.runtime.source.transactions import Boundary, TransactionSettings
from pyconnect.storage.offset_store import OffsetStore

log = logging.getLogger(__name__)

#: Builds a task's own offset store: (topic, the task's producer settings, read committed only).
OwnStoreFactory = Callable[[str, Mapping[str, str], bool], OffsetStore]


def _converter(connector_config: Mapping[str, str], side: str) -> Serialize | None:
    name = connector_config.get(f"{side}.converter")
    if not name:
        return None
    return converter_for(name, side_settings(connector_config, side), side == "key")


def _schema_converter(connector_config: Mapping[str, str], side: str) -> SchemaSerialize | None:
    name = connector_config.get(f"{side}.converter")
    if not name:
        return None
    return schema_serializer_for(name, side_settings(connector_config, side), side == "key")


class TaskSetup:
    """Per-task settings and offset stores, from the worker's and the connector's configs."""

    def __init__(self, config: WorkerConfig, base: RunnerSettings, offsets: OffsetStore, offsets_topic: str,
                 own_store: OwnStoreFactory) -> None:
        self._config, self._base, self._offsets, self._topic = config, base, offsets, offsets_topic
        self._own_store = own_store

    def settings(self, connector_config: Mapping[str, str]) -> RunnerSettings:
        """Connect's per-connector settings: `producer.override.<key>` (as the worker's override policy
        allows), and `key.converter` / `value.converter` (with their `<side>.converter.*` settings) in
        place of the worker's."""
        overrides = task_overrides(self._config, connector_config, "producer")  # raises if the worker refuses one
        settings = self._base
        if overrides:
            conf = {**settings.producer_conf, **to_librdkafka(overrides, "producer")}
            settings = dataclasses.replace(settings, producer_conf=conf)
        key, value = (_converter(connector_config, side) for side in ("key", "value"))
        if key is not None:
            settings = dataclasses.replace(settings, key_converter=key)
        if value is not None:
            settings = dataclasses.replace(settings, value_converter=value)
        header = connector_config.get("header.converter")
        if header:
            settings = dataclasses.replace(settings, header_converter=header_converter_for(
                header, side_settings(connector_config, "header")))
        if (key is not None or value is not None) and settings.schema_converters is not None:
            base_key, base_value = settings.schema_converters
            key_schema, value_schema = (_schema_converter(connector_config, side) for side in ("key", "value"))
            pair = (key_schema or base_key, value_schema or base_value)
            settings = dataclasses.replace(settings, schema_converters=pair)
        return settings

    def offset_stores(self, settings: RunnerSettings, connector_config: Mapping[str, str]) -> ConnectorOffsetStores:
        """The worker's store, plus the task's own where Connect gives it one (see connector_offsets)."""
        named = connector_config.get("offsets.storage.topic")
        if named and not self._config.connector_offsets_topics_permitted:
            # Connect's standalone worker has one offset store (its file) and no per-connector topics.
            log.warning("offsets.storage.topic=%s is not used by a standalone worker: the connector's source "
                        "offsets are kept in offset.storage.file.filename", named)
            named = None
        exactly_once = self._config.settings.exactly_once
        elsewhere = settings.producer_conf.get("bootstrap.servers") != self._config.settings.bootstrap_servers
        if named or (exactly_once and elsewhere):
            topic = named or self._topic
            if topic != self._topic or elsewhere:
                producer = settings.producer_conf
                return ConnectorOffsetStores(self._offsets, lambda: self._own_store(topic, producer, exactly_once))
        return ConnectorOffsetStores(self._offsets)

    def transactional(self, settings: RunnerSettings, task_id: TaskId, connector_config: Mapping[str, str],
                      stores: ConnectorOffsetStores, offsets_topic: str) -> RunnerSettings:
        """An exactly-once task's settings: its transactional.id, transaction boundary and offsets topic."""
        boundary = Boundary(str(connector_config.get("transaction.boundary") or "poll").strip().lower())
        interval = connector_config.get("transaction.boundary.interval.ms")
        transactions = TransactionSettings(
            transactional_id(self._config.group_id, task_id), boundary,
            int(interval) / 1000.0 if interval else settings.flush_interval,
            # The partition count of a task's own topic is known once the task made it: the runner sets it.
            offsets_topic, self._offsets.partitions, settings.flush_timeout + 25)
        return dataclasses.replace(settings, transactions=transactions)

    def primary_topic(self, connector_config: Mapping[str, str], stores: ConnectorOffsetStores) -> str:
        """The topic of the task's primary offset store."""
        return (connector_config.get("offsets.storage.topic") or self._topic) if stores.has_own else self._topic
